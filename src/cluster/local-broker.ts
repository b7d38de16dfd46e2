/**
 * A nats-server of our own, on loopback: started on a free port (`-p -1`: the server picks
 * one and logs it, so two callers never race for a port) with JetStream in a temporary
 * store folder that goes when it stops. For tests, benchmarks, and trying hosts on one
 * machine; a real deployment runs its broker as docs/distributed.md shows.
 *
 * The server never outlives its starter: it runs under a small watchdog process (node, so
 * it works wherever this does) that holds a pipe from the starter. When the pipe closes
 * (the starter exited, crashed or was SIGKILLed) the watchdog kills the server and removes
 * its store. The server has its own process group, so a Ctrl-C in the terminal reaches the
 * starter alone, which stops it cleanly; the watchdog ignores signals and obeys the pipe.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokerReadyMs } from './defaults.ts';

export interface NatsServer {
  /** nats://127.0.0.1:PORT (tls:// with `tls`; without credentials). */
  url: string;
  port: number;
  /** Resolves when the server has exited (and its store is gone): its exit code, or the signal that ended it. */
  exited: Promise<ServerExit>;
  /** SIGKILL: the broker is lost, as when its machine dies. */
  kill(): Promise<void>;
  /** Stops the server and removes its store. Idempotent. */
  stop(): Promise<void>;
}

export interface ServerExit {
  code: number | null;
  signal: string | null;
}

export interface NatsServerOptions {
  /** A given port (a broker restarted where its clients reconnect); default: one the server picks. */
  port?: number;
  user?: string;
  password?: string;
  token?: string;
  /** TLS required of every client (PEM files); with `ca`, clients must show a certificate it signed. */
  tls?: { cert: string; key: string; ca?: string };
  /** The broker's `max_payload` in bytes (nats-server's default: 1 MB). */
  maxPayload?: number;
}

/** The broker could not be started (no store, the server would not start or never said it was ready): one line. */
export class BrokerStartError extends Error {
  override name = 'BrokerStartError';
}

/**
 * The watchdog (CommonJS, run with `node -e`): argv is the server's executable, its store,
 * then its arguments. It says how the server ended as one JSON line on stdout.
 */
const WATCHDOG = `
const { spawn } = require('node:child_process');
const { rmSync } = require('node:fs');
const [exe, store, ...args] = process.argv.slice(1);
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
const server = spawn(exe, args, { stdio: ['ignore', 'ignore', 'inherit'], detached: true });
const end = (signal) => { if (server.exitCode === null && server.signalCode === null) server.kill(signal); };
let said = '';
process.stdin.setEncoding('utf8').on('data', (d) => { said += d; if (said.includes('kill')) end('SIGKILL'); else if (said.includes('stop')) end('SIGTERM'); });
process.stdin.on('end', () => end('SIGKILL'));
process.stdin.on('error', () => end('SIGKILL'));
const done = (exit) => { rmSync(store, { recursive: true, force: true }); process.stdout.write(JSON.stringify(exit) + '\\n', () => process.exit(0)); };
server.on('error', (error) => done({ code: null, signal: null, error: error.message }));
server.on('exit', (code, signal) => done({ code, signal }));
`;

/** Starts nats-server and resolves once it accepts clients (its "Server is ready" line, not a timer), within brokerReadyMs(). */
export function startLocalBroker(executable: string, options: NatsServerOptions = {}): Promise<NatsServer> {
  const store = makeStore();
  if (store instanceof BrokerStartError) return Promise.reject(store);
  const args = ['-a', '127.0.0.1', '-p', String(options.port ?? -1), '-js', '-sd', store];
  // No flag sets it: a config file of one line, in the store (it goes with it).
  if (options.maxPayload !== undefined) {
    writeFileSync(join(store, 'broker.conf'), `max_payload: ${Math.floor(options.maxPayload)}\n`);
    args.push('-c', join(store, 'broker.conf'));
  }
  if (options.user !== undefined) args.push('--user', options.user, '--pass', options.password ?? '');
  if (options.token !== undefined) args.push('--auth', options.token);
  if (options.tls) {
    args.push('--tls', '--tlscert', options.tls.cert, '--tlskey', options.tls.key);
    if (options.tls.ca !== undefined) args.push('--tlscacert', options.tls.ca, '--tlsverify');
  }
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, executable, store, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  watchdog.stdin.on('error', () => {}); // a watchdog already gone
  let report = '';
  watchdog.stdout.setEncoding('utf8').on('data', (chunk: string) => (report += chunk));
  const exited = new Promise<ServerExit & { error?: string }>((resolve) =>
    watchdog.once('exit', () => {
      rmSync(store, { recursive: true, force: true }); // the watchdog's own end, should it have been killed
      resolve(parsedExit(report));
    }),
  );
  const tell = async (what: 'stop' | 'kill') => {
    if (watchdog.exitCode === null && watchdog.signalCode === null) watchdog.stdin.write(what);
    await exited;
  };
  return new Promise((resolve, reject) => {
    let log = '';
    let port = 0;
    let timedOut = false;
    // Rejected once the server is gone: the caller that gives up leaves nothing running.
    const deadline = setTimeout(() => {
      timedOut = true;
      void tell('kill').then(() =>
        reject(new BrokerStartError(`nats-server ${executable} did not say it was ready within ${brokerReadyMs() / 1000} s; stopped it`)),
      );
    }, brokerReadyMs());
    watchdog.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
      port ||= Number(/client connections on 127\.0\.0\.1:(\d+)/.exec(log)?.[1] ?? 0);
      if (!port || !log.includes('Server is ready')) return;
      clearTimeout(deadline);
      watchdog.stderr.removeAllListeners('data');
      watchdog.stderr.resume();
      const url = `${options.tls ? 'tls' : 'nats'}://127.0.0.1:${port}`;
      resolve({ url, port, exited, kill: () => tell('kill'), stop: () => tell('stop') });
    });
    void exited.then((exit) => {
      if (timedOut) return;
      clearTimeout(deadline);
      const last =
        log
          .trim()
          .split('\n')
          .pop()
          ?.replace(/^\[\d+\] \S+ \S+ /, '') ?? '';
      const why = exit.error ?? `${describeExit(exit)}${last ? `: ${last}` : ''}`;
      reject(new BrokerStartError(`nats-server ${executable} ended before it was ready (${why})`));
    });
  });
}

/** The store folder in the temporary folder, or why not (TMPDIR gone, not writable). */
function makeStore(): string | BrokerStartError {
  try {
    return mkdtempSync(join(tmpdir(), 'nq-nats-'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return new BrokerStartError(
      `cannot make the broker's store in the temporary folder ${tmpdir()} (${code}; set TMPDIR to a writable folder)`,
    );
  }
}

function parsedExit(report: string): ServerExit & { error?: string } {
  try {
    return JSON.parse(report.trim().split('\n')[0]) as ServerExit & { error?: string };
  } catch {
    return { code: null, signal: null, error: 'its watchdog ended without a word' };
  }
}

/** `killed by SIGKILL`, `exit code 1`. */
export function describeExit(exit: ServerExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}
