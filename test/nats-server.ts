/**
 * A real nats-server per test file, found (or skipped with one line) the way every system
 * program of the tests is: see system-tools.ts (NQI_NATS_SERVER, NQI_REQUIRE_NATS_SERVER).
 * The server itself is src/cluster/local-broker.ts; `localCluster()` gives a describe()
 * one broker and `host` processes of the built CLI.
 */
import { after, before } from 'node:test';
import { TEST_HEARTBEAT_ENV, TEST_LEASE_TTL_ENV, TEST_RECONNECT_WINDOW_ENV } from '../src/cluster/defaults.ts';
import { startLocalBroker, type NatsServer } from '../src/cluster/local-broker.ts';
import { spawnCli, type LiveCli } from './cli-helpers.ts';
import { systemTool, type SystemToolSpec } from './system-tools.ts';

export const NATS_SERVER: SystemToolSpec = {
  name: 'nats-server',
  commands: ['nats-server'],
  paths: ['/usr/sbin/nats-server', '/usr/bin/nats-server'],
  install: 'apt-get install nats-server',
};

/**
 * For the processes of a test that waits for a dead coordinator's leases to expire: leases of
 * 1.5 s instead of 10 (src/cluster/defaults.ts `leaseTtlMs`), renewed every third of it (0.5 s)
 * as always by coordinators that live. Only those tests' processes get it.
 */
export const SHORT_LEASES: NodeJS.ProcessEnv = { [TEST_LEASE_TTL_ENV]: '1500' };

/**
 * For every process of a test that waits for a host or a coordinator to be found lost (killed,
 * or silent on purpose): heartbeats and `alive` every 0.5 s instead of 1 s (src/cluster/defaults.ts
 * `heartbeatPeriodMs`), so silence is a loss after 1.5 s instead of 3 s, and islands told to
 * terminate have 1.5 s to report. All of the test's parties must have it (an in-process
 * coordinator: `heartbeatMs: SHORT_HEARTBEAT_MS`), or the quicker ones take the others for lost.
 */
export const SHORT_HEARTBEAT_MS = 500;
export const SHORT_HEARTBEAT: NodeJS.ProcessEnv = { [TEST_HEARTBEAT_ENV]: String(SHORT_HEARTBEAT_MS) };

/**
 * For the processes of a test whose broker is killed for good: they give up reconnecting after
 * 1 s (two attempts, src/cluster/defaults.ts `reconnectAttempts`) instead of 5 s. The same
 * code path ends them; tests of a broker that comes back keep the production window.
 */
export const SHORT_RECONNECT: NodeJS.ProcessEnv = { [TEST_RECONNECT_WINDOW_ENV]: '1000' };

/**
 * `start()` with `env` in this process's environment for its synchronous part only, for a
 * client in the test's own process: it reads the knobs above as it connects (connectBus),
 * before its first await. The environment is as before once `start` returns.
 */
export function withTestEnv<T>(env: NodeJS.ProcessEnv, start: () => T): T {
  const saved = Object.keys(env).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  try {
    return start();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * `waited`, or a failure naming `what` once `seconds` have passed: a test that would hang on
 * a protocol wait fails saying which wait, instead of at its suite's timeout. A guard only,
 * far above the wait's length on a loaded machine, never a timing assertion.
 */
export function within<T>(seconds: number, what: string, waited: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${seconds} s for ${what}: it never came`)), seconds * 1000);
  });
  return Promise.race([waited, expired]).finally(() => clearTimeout(timer));
}

/** For describe(..., { skip: nats.skip }) and, in before(), nats.path(). */
export const nats = systemTool(NATS_SERVER);

export interface HostOptions {
  /** Islands each host offers (default 1). */
  islands?: number;
  /** Subject prefix (default: a fresh one, so each test has its own subjects on the shared broker, as two teams would). */
  prefix?: string;
  /** Another broker's URL (default: the suite's). */
  url?: string;
  /** More environment (e.g. NQI_CLUSTER_KEY) and flags for each host. */
  env?: NodeJS.ProcessEnv;
  args?: string[];
}

export interface LocalCluster {
  /** The suite's broker (started in before()). */
  readonly server: NatsServer;
  /** A prefix no other test of the suite uses. */
  freshPrefix(): string;
  /** `host` processes named `names`, resolved once each says it is ready; all are killed after the suite. */
  startHosts(names: readonly string[], options?: HostOptions): Promise<{ prefix: string; hosts: Map<string, LiveCli> }>;
}

/**
 * Call inside a describe(): its before() starts one nats-server, its after() kills the host
 * processes still running and stops the server.
 */
export function localCluster(tag: string): LocalCluster {
  let server: NatsServer | null = null;
  const spawned: LiveCli[] = [];
  let prefixes = 0;
  before(async () => {
    server = await startLocalBroker(nats.path());
  });
  after(async () => {
    for (const host of spawned) if (host.child.exitCode === null && host.child.signalCode === null) host.child.kill('SIGKILL');
    await Promise.all(spawned.map((h) => h.exited));
    await server?.stop();
  });
  const freshPrefix = () => `${tag}${++prefixes}`;
  return {
    get server() {
      if (!server) throw new Error('localCluster: the broker starts in before()');
      return server;
    },
    freshPrefix,
    async startHosts(names, options = {}) {
      const prefix = options.prefix ?? freshPrefix();
      const url = options.url ?? this.server.url;
      const hosts = new Map<string, LiveCli>();
      for (const name of names) {
        const host = spawnCli(
          [
            'host',
            '--nats',
            url,
            '--nats-prefix',
            prefix,
            '--name',
            name,
            '--islands',
            String(options.islands ?? 1),
            ...(options.args ?? []),
          ],
          { env: options.env },
        );
        spawned.push(host);
        hosts.set(name, host);
      }
      await Promise.all([...hosts.values()].map((h) => h.waitForStderr(/ ready: /)));
      return { prefix, hosts };
    },
  };
}
