/**
 * A nats-server of our own, on loopback: started on a free port (`-p -1`: the server picks
 * one and logs it, so two callers never race for a port) with JetStream in a temporary
 * store folder that goes when it stops. For tests, benchmarks, and trying hosts on one
 * machine; a real deployment runs its broker as docs/distributed.md shows.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface NatsServer {
  /** nats://127.0.0.1:PORT (tls:// with `tls`; without credentials). */
  url: string;
  port: number;
  /** Resolves when the server has exited. */
  exited: Promise<void>;
  /** SIGKILL: the broker is lost, as when its machine dies. */
  kill(): Promise<void>;
  /** Stops the server and removes its store. Idempotent. */
  stop(): Promise<void>;
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

/** Starts nats-server and resolves once it accepts clients (its "Server is ready" line, not a timer). */
export function startLocalBroker(executable: string, options: NatsServerOptions = {}): Promise<NatsServer> {
  const store = mkdtempSync(join(tmpdir(), 'nq-nats-'));
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
  const child: ChildProcess = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const cleanup = exited.then(() => rmSync(store, { recursive: true, force: true }));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await cleanup;
  };
  return new Promise((resolve, reject) => {
    let log = '';
    let port = 0;
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
      port ||= Number(/client connections on 127\.0\.0\.1:(\d+)/.exec(log)?.[1] ?? 0);
      if (port && log.includes('Server is ready')) {
        child.stderr!.removeAllListeners('data');
        child.stderr!.resume();
        resolve({
          url: `${options.tls ? 'tls' : 'nats'}://127.0.0.1:${port}`,
          port,
          exited,
          kill: () => end('SIGKILL'),
          stop: () => end('SIGTERM'),
        });
      }
    });
    child.once('error', (error) => {
      rmSync(store, { recursive: true, force: true });
      reject(error);
    });
    void exited.then(() => reject(new Error(`nats-server exited before it was ready:\n${log}`)));
  });
}
