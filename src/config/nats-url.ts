/**
 * Reading `--nats URL` and `--nats-prefix` (no NATS client here: configs, result records and
 * traces use it to hide a password, without loading the client). The URL is split by hand, not by `new URL`:
 * a password with an unencoded `/`, `#` or `@` must still be found, and hidden, whole. No
 * message ever shows the string as given, only `display` (credentials as ***).
 */
import { ConfigError, NatsUrlError } from './errors.ts';

export const DEFAULT_NATS_PORT = 4222;

export interface NatsUrl {
  /** `nats` (plain TCP) or `tls` (TLS required). */
  scheme: 'nats' | 'tls';
  /** host:port, no credentials. */
  server: string;
  /** From `user:password@`: both set; from `token@`: only `user` set (a token, or a user whose password comes from elsewhere). */
  user?: string;
  password?: string;
  /** The URL as shown to people: `nats://alice:***@host:4222`, `nats://***@host:4222`. */
  display: string;
}

const SCHEMES = ['nats', 'tls'] as const;

/** Percent-decoding where the text is encoded, else the text as given (a raw `%` is a character like any other). */
function decodePart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The URL with every credential as ***: for messages about a URL that may not even parse.
 * Everything before the last `@` of the part after `://` is credentials.
 */
export function maskNatsUrl(text: string): string {
  const at = text.lastIndexOf('@');
  if (at < 0) return text;
  const start = text.indexOf('://') + 3;
  const userinfo = text.slice(start >= 3 && start <= at ? start : 0, at);
  const colon = userinfo.indexOf(':');
  const user = colon > 0 ? userinfo.slice(0, colon) : '';
  // A user name is shown only when a password follows it (else it may be a token).
  const shown = colon > 0 && /^[A-Za-z0-9._~-]{1,64}$/.test(user) ? `${user}:***` : '***';
  return `${text.slice(0, start >= 3 && start <= at ? start : 0)}${shown}${text.slice(at)}`;
}

/**
 * Reads `--nats URL`: (nats|tls)://[user[:password]@ | token@]host[:port]; the port defaults
 * to 4222. The credentials end at the last `@` and the user at the first `:` before it, so
 * a password may hold `/`, `#`, `@` and `:` unencoded; percent-encoding is decoded.
 * @throws NatsUrlError naming the flag for anything else, showing the URL masked.
 */
export function parseNatsUrl(text: string, flag = '--nats'): NatsUrl {
  const shown = maskNatsUrl(text);
  const bad = (why: string) =>
    new NatsUrlError(flag, `${why}, got ${JSON.stringify(shown)}; expected nats://[user:password@]host[:port] or tls://...`);
  const schemeEnd = text.indexOf('://');
  const scheme = schemeEnd < 0 ? 'nats' : text.slice(0, schemeEnd).toLowerCase();
  if (!(SCHEMES as readonly string[]).includes(scheme))
    throw bad(/^[a-z][a-z0-9+.-]{0,19}$/.test(scheme) ? `scheme ${scheme} is not offered` : 'not a nats:// or tls:// URL');
  const rest = schemeEnd < 0 ? text : text.slice(schemeEnd + 3);
  const at = rest.lastIndexOf('@');
  const userinfo = at < 0 ? null : rest.slice(0, at);
  const hostPort = rest.slice(at + 1).replace(/\/$/, '');
  if (/[/?#]/.test(hostPort)) throw bad('a path or query has no meaning here');
  // host, [v6 host] or host:port; a host name is letters, digits, dots and dashes.
  const parts = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(hostPort);
  if (hostPort === '') throw bad('no host');
  if (!parts) throw bad(`host ${JSON.stringify(hostPort.slice(0, 100))} is not a host name or address with an optional :port`);
  const port = parts[2] === undefined ? DEFAULT_NATS_PORT : Number(parts[2]);
  if (port < 1 || port > 65535) throw bad(`port ${port} is out of range 1-65535`);
  const server = `${parts[1]}:${port}`;
  const url: NatsUrl = { scheme: scheme as NatsUrl['scheme'], server, display: `${scheme}://${server}` };
  if (userinfo !== null) {
    if (userinfo === '') throw bad('an empty user or token before @');
    const colon = userinfo.indexOf(':');
    if (colon < 0) {
      url.user = decodePart(userinfo);
      url.display = `${scheme}://***@${server}`;
    } else {
      url.user = decodePart(userinfo.slice(0, colon));
      url.password = decodePart(userinfo.slice(colon + 1));
      if (url.user === '') throw bad('a password without a user');
      url.display = shown.startsWith(`${scheme}://***@`)
        ? `${scheme}://***:***@${server}`
        : `${scheme}://${userinfo.slice(0, colon)}:***@${server}`;
    }
  }
  return url;
}

/**
 * The URL as people see it when the password for its user comes from elsewhere (the
 * environment, a file): the user is shown (it is a user, not a token), and nothing else.
 */
export function displayNatsUrl(url: NatsUrl, passwordElsewhere: boolean): string {
  if (url.user === undefined || url.password !== undefined || !passwordElsewhere) return url.display;
  return `${url.scheme}://${/^[A-Za-z0-9._~-]{1,64}$/.test(url.user) ? url.user : '***'}@${url.server}`;
}

/** Credentials and TLS files beside the URL (all optional; src/cluster/bus/credentials.ts reads them). */
export interface NatsAuth {
  /** `--nats-creds FILE`: a NATS `.creds` file (JWT and seed), an nkey seed file, or a file whose first line is the password (for the URL's user) or the token. */
  credsFile?: string;
  /** `tls://` only: the CA that signed the broker's certificate (`--nats-ca`), and this client's certificate and key (`--nats-cert`, `--nats-key`). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** `--nats-prefix`: NATS subject tokens (letters, digits, - and _), dot-separated. */
export function checkPrefix(prefix: string, flag = '--nats-prefix'): string {
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix) || prefix.length > 64) {
    throw new ConfigError(
      `${flag}: expected subject tokens of letters, digits, - and _ separated by dots (at most 64 characters), got ${JSON.stringify(prefix)}`,
    );
  }
  return prefix;
}

/** A config (file shape or resolved) as people and files see it: `cluster.nats` with its password or token as ***. */
export function withoutSecrets<T>(config: T): T {
  const cluster = (config as { cluster?: { nats?: unknown } | null } | null)?.cluster;
  if (!cluster || typeof cluster.nats !== 'string') return config;
  return { ...config, cluster: { ...cluster, nats: maskNatsUrl(cluster.nats) } };
}
