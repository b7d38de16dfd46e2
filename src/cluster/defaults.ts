/** The cluster's defaults in one place (no NATS imports: the CLI's --help reads them without loading NATS). */
import type { LauncherCapabilities } from '../archipelago/launcher.ts';
import { RUN_DEFAULTS } from '../config/defaults.ts';
import { shortened } from '../config/test-knob.ts';

/** Subject prefix when no --nats-prefix is given (the run config's `cluster.prefix` default). */
export const DEFAULT_PREFIX = RUN_DEFAULTS.cluster.prefix;
/** Seconds a coordinator waits for its hosts (--wait; the run config's `cluster.wait` default). */
export const DEFAULT_WAIT_SECONDS = RUN_DEFAULTS.cluster.wait;
/** A host's heartbeat period (and a run coordinator's); one not heard for MISSED_HEARTBEATS of its listener's checks is lost (bus/liveness.ts). */
export const DEFAULT_HEARTBEAT_MS = 1000;
export const MISSED_HEARTBEATS = 3;
/** A study's run not acked (nor kept alive) this long goes to another host. */
export const DEFAULT_ACK_WAIT_MS = 30_000;
/** ms a client waits for the broker to answer at start (a port that accepts and stays silent ends here, exit 2). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** ms between a client's attempts to reconnect to a lost broker, and how long it goes on (a broker back within 5 s is found again). */
export const RECONNECT_WAIT_MS = 500;
export const RECONNECT_WINDOW_MS = 5000;
/** ms a client's drain may take when it leaves before it closes without it (bus.ts `leaveBus`). */
export const DRAIN_TIMEOUT_MS = 5000;
/** Where a password (for the --nats URL's user) or a token may come from instead of the URL, which `ps` shows. */
export const PASSWORD_ENV = 'NQI_NATS_PASSWORD';
export const TOKEN_ENV = 'NQI_NATS_TOKEN';
/** The most islands a coordinator counts for one host, whatever it announces: a host offers one per core (and runs a run's share on that many threads). */
export const MAX_HOST_ISLANDS = 256;
/**
 * How far below a host's main thread (its relay) its island threads run, in Linux nice steps
 * (--island-nice; src/archipelago/thread-priority.ts): the relay then gets a core at once
 * when a stop or migrants arrive, and islands still take every core nothing else wants.
 */
export const DEFAULT_ISLAND_NICE = 10;
/**
 * Bytes of migrants one host may hold unread from all the run's other hosts together
 * (launcher/migrant-flow.ts): past it, migrants to it are dropped and counted. Well below
 * the half of nats-server's default `max_pending` (64 MiB) at which the broker stalls
 * every client that publishes to a reader that fell behind.
 */
export const UNREAD_MIGRANT_BYTES = 16 * 1024 * 1024;
/** A host's lease lives this long after its coordinator's last refresh (every third of it): a dead coordinator's hosts are free again after at most this. */
export const LEASE_TTL_MS = 10_000;

/**
 * Test-only knobs: the suite's tests of a lease that expires, of a broker that never answers,
 * of a broker that is gone for good and of a host or coordinator that goes silent would
 * otherwise wait the production figures out (10 s, 5 s, 5 s, three 1 s heartbeats), and its
 * test of a study run's event lines past their bound would need 240 MiB of them. Set in the
 * environment of those tests' processes only, they lower the figure (never raise it); the code
 * path is the same. Unset, as in every production run, the defaults hold.
 */
export const TEST_LEASE_TTL_ENV = 'NQI_TEST_LEASE_TTL_MS';
export const TEST_CONNECT_TIMEOUT_ENV = 'NQI_TEST_CONNECT_TIMEOUT_MS';
export const TEST_RECONNECT_WINDOW_ENV = 'NQI_TEST_RECONNECT_WINDOW_MS';
export const TEST_HEARTBEAT_ENV = 'NQI_TEST_HEARTBEAT_MS';
export const TEST_MAX_EVENT_BYTES_ENV = 'NQI_TEST_MAX_EVENT_BYTES';
export const TEST_BROKER_READY_ENV = 'NQI_TEST_BROKER_READY_MS';
export const TEST_UNREAD_MIGRANT_BYTES_ENV = 'NQI_TEST_UNREAD_MIGRANT_BYTES';

/** ms a nats-server started by `broker` (local-broker.ts) has to say it is ready; one that does not is stopped. */
export const BROKER_READY_MS = 15_000;

/** The broker's start-up deadline: BROKER_READY_MS, or the shorter NQI_TEST_BROKER_READY_MS. */
export function brokerReadyMs(env: NodeJS.ProcessEnv = process.env): number {
  return shortened(env, TEST_BROKER_READY_ENV, BROKER_READY_MS);
}

/** The lease TTL: LEASE_TTL_MS, or the shorter NQI_TEST_LEASE_TTL_MS. */
export function leaseTtlMs(env: NodeJS.ProcessEnv = process.env): number {
  return shortened(env, TEST_LEASE_TTL_ENV, LEASE_TTL_MS);
}

/** The connect timeout: DEFAULT_CONNECT_TIMEOUT_MS, or the shorter NQI_TEST_CONNECT_TIMEOUT_MS. */
export function connectTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return shortened(env, TEST_CONNECT_TIMEOUT_ENV, DEFAULT_CONNECT_TIMEOUT_MS);
}

/** Reconnect attempts after a lost broker: RECONNECT_WINDOW_MS of them, or the shorter NQI_TEST_RECONNECT_WINDOW_MS. */
export function reconnectAttempts(env: NodeJS.ProcessEnv = process.env): number {
  return Math.round(shortened(env, TEST_RECONNECT_WINDOW_ENV, RECONNECT_WINDOW_MS) / RECONNECT_WAIT_MS);
}

/**
 * The heartbeat period: DEFAULT_HEARTBEAT_MS, or the shorter NQI_TEST_HEARTBEAT_MS. Hosts beat
 * and coordinators say `alive` at it; silence for MISSED_HEARTBEATS of it is a loss.
 */
export function heartbeatPeriodMs(env: NodeJS.ProcessEnv = process.env): number {
  return shortened(env, TEST_HEARTBEAT_ENV, DEFAULT_HEARTBEAT_MS);
}

/** Reads every test-only knob, so a bad one is refused (ConfigError) before a client connects, not once it is serving. */
export function checkTestKnobs(env: NodeJS.ProcessEnv = process.env): void {
  leaseTtlMs(env);
  connectTimeoutMs(env);
  reconnectAttempts(env);
  heartbeatPeriodMs(env);
  brokerReadyMs(env);
  unreadMigrantBytes(env);
}

/** UNREAD_MIGRANT_BYTES, or the lower NQI_TEST_UNREAD_MIGRANT_BYTES (a stalled host's bound is reached in a few iterations, on a loaded machine too). */
export function unreadMigrantBytes(env: NodeJS.ProcessEnv = process.env): number {
  return shortened(env, TEST_UNREAD_MIGRANT_BYTES_ENV, UNREAD_MIGRANT_BYTES, { least: 64 * 1024, unit: 'bytes' });
}

/** The bound on a study run's event lines (host/study-member.ts): `fallback`, or the lower NQI_TEST_MAX_EVENT_BYTES. */
export function maxEventBytes(fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  return shortened(env, TEST_MAX_EVENT_BYTES_ENV, fallback, { least: 1, unit: 'bytes' });
}

/** What the cluster's launcher supports: the hosts' islands answer no checkpoint request (cluster-launcher.ts `BusCoordination`). */
export const CLUSTER_CAPABILITIES: LauncherCapabilities = { checkpoints: false, why: 'islands on other hosts are not checkpointed' };
