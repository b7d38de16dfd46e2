/**
 * Why a connection to the broker failed, when the NATS client says only "(timeout)": it
 * upgrades to TLS when the broker requires it and retries a TLS handshake that fails until
 * its timeout, so a certificate error or a `nats://` URL for a TLS-only broker look alike.
 * One look of our own says which: the broker's INFO line (does it require TLS?) and, if so, a
 * TLS handshake with the client's own TLS options (what the certificate check says).
 */
import { isIP, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions as TlsOptions } from 'node:tls';

/** How long the look may take in all. */
const PROBE_MS = 2000;
/** How long after its handshake the look waits for the broker to refuse the client's certificate. */
const REFUSAL_MS = 500;

/** One phrase saying why, or null when the look finds nothing to say (the client's own reason stands). */
export async function diagnoseConnect(
  host: string,
  port: number,
  scheme: 'nats' | 'tls',
  tls: TlsOptions | undefined,
): Promise<string | null> {
  return (await diagnosis(host, port, scheme, tls))?.text ?? null;
}

/**
 * What the look says only when it shows that the client cannot connect (its certificate or the
 * broker's refused, or no certificate for a broker that verifies clients), else null: asked
 * while the client still retries, so that a refusal is one line at once, not after its timeout.
 */
export async function refusalOf(host: string, port: number, scheme: 'nats' | 'tls', tls: TlsOptions | undefined): Promise<string | null> {
  const found = await diagnosis(host, port, scheme, tls);
  return found?.refused ? found.text : null;
}

async function diagnosis(
  host: string,
  port: number,
  scheme: 'nats' | 'tls',
  tls: TlsOptions | undefined,
): Promise<{ text: string; refused: boolean } | null> {
  const info = await infoOf(host, port);
  if (info === null || info.tls_required !== true) return null;
  const tlsError = await handshake(host, port, tls ?? {});
  const hint = scheme === 'nats' ? 'the broker requires TLS: use tls:// (with --nats-ca if its certificate is not from a public CA)' : null;
  // A broker that verifies clients says so in its INFO; without a certificate a TLS 1.3 handshake still
  // succeeds (the broker refuses after it), so the handshake alone would find nothing to say.
  const noCertificate = info.tls_verify === true && tls?.cert === undefined;
  const found = [
    hint,
    tlsError === null
      ? null
      : tlsError.startsWith('the broker refused')
        ? tlsError
        : hint
          ? `its certificate: ${tlsError}`
          : `TLS certificate check failed: ${tlsError}`,
    noCertificate ? CLIENT_CERTIFICATE : null,
  ];
  const said = found.filter((x) => x !== null);
  return said.length === 0 ? null : { text: said.join('; '), refused: tlsError !== null || noCertificate };
}

const CLIENT_CERTIFICATE = 'the broker requires a client certificate: give --nats-cert and --nats-key';

/** What the diagnosis reads of the broker's INFO line. */
interface BrokerInfo {
  tls_required?: unknown;
  tls_verify?: unknown;
}

/** The broker's INFO (the first line it sends, before any TLS), or null. */
function infoOf(host: string, port: number): Promise<BrokerInfo | null> {
  return new Promise((resolve) => {
    let text = '';
    const socket = tcpConnect({ host, port });
    const done = (value: BrokerInfo | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(null), PROBE_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const line = /^INFO (\{.*\}) *\r?\n/.exec(text);
      if (line) {
        try {
          done(JSON.parse(line[1]) as BrokerInfo);
        } catch {
          done(null);
        }
      } else if (text.length > 64 * 1024 || text.includes('\n')) done(null);
    });
    socket.on('error', () => done(null));
  });
}

/** The broker's alert, as one phrase: it refused the client's certificate (or the handshake). */
function refusal(error: NodeJS.ErrnoException): string {
  const alert = /alert ([a-z ]+)/i.exec(error.message)?.[1]?.trim() ?? error.code ?? 'refused';
  return `the broker refused this client's certificate (TLS alert: ${alert}); is it signed by a CA the broker trusts (its tlscacert)?`;
}

/** The TLS error of a handshake after the broker's INFO line, or null when it succeeds. */
function handshake(host: string, port: number, tls: TlsOptions): Promise<string | null> {
  return new Promise((resolve) => {
    const raw = tcpConnect({ host, port });
    let secure: ReturnType<typeof tlsConnect> | null = null;
    const done = (value: string | null) => {
      clearTimeout(timer);
      secure?.destroy();
      raw.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(null), PROBE_MS);
    raw.once('data', () => {
      raw.pause();
      // SNI takes a name, never an address.
      secure = tlsConnect({ ...tls, socket: raw, ...(isIP(host) ? {} : { servername: host }) });
      // Under TLS 1.3 the client's side of the handshake ends before the broker has checked the
      // client's certificate: a refusal comes as an alert just after. Wait a moment for one.
      secure.once('secureConnect', () => setTimeout(() => done(null), REFUSAL_MS));
      secure.once('error', (error: NodeJS.ErrnoException) =>
        done(
          secure?.authorized === true || /alert/i.test(error.message)
            ? refusal(error)
            : `${error.message}${error.code ? ` (${error.code})` : ''}`,
        ),
      );
      secure.resume();
    });
    raw.on('error', () => done(null));
  });
}
