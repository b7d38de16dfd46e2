/** The cluster's defaults in one place (no imports: the CLI's --help reads them without loading NATS). */

/** Subject prefix when no --nats-prefix is given. */
export const DEFAULT_PREFIX = 'nqi';
/** Seconds a coordinator waits for its hosts (--wait). */
export const DEFAULT_WAIT_SECONDS = 30;
/** A host's heartbeat period (and a run coordinator's); one silent for MISSED_HEARTBEATS periods counts as lost. */
export const DEFAULT_HEARTBEAT_MS = 1000;
export const MISSED_HEARTBEATS = 3;
/** A study's run not acked (nor kept alive) this long goes to another host. */
export const DEFAULT_ACK_WAIT_MS = 30_000;
