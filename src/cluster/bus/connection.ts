/**
 * The connection to the NATS broker and the names on it. Credentials and TLS come from
 * credentials.ts (the URL, the environment or a file); subjects
 * and JetStream stream names are scoped by a prefix, so two teams (or two test files) can
 * share one broker without seeing each other.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BrokerUnreachableError } from '../errors.ts';
import { redact, type BusAddress } from './credentials.ts';
import { checkTestKnobs, connectTimeoutMs, DRAIN_TIMEOUT_MS, reconnectAttempts, RECONNECT_WAIT_MS } from '../defaults.ts';
import { diagnoseConnect } from './diagnose.ts';
import { PART_OVERHEAD } from './parts.ts';

/** The smallest broker `max_payload` clients accept: room for a part's own overhead and as much data, and every small message whole. */
export const MIN_MAX_PAYLOAD = 4 * PART_OVERHEAD;

/** Every subject and stream name of one prefix, in one place. */
export class Subjects {
  constructor(readonly prefix: string) {}
  /** Hosts announce themselves here (heartbeat), and answer `discover` at once. */
  get heartbeat(): string {
    return `${this.prefix}.hosts.heartbeat`;
  }
  get discover(): string {
    return `${this.prefix}.hosts.discover`;
  }
  /** A host that leaves says so (Ctrl-C, SIGTERM). */
  get leave(): string {
    return `${this.prefix}.hosts.leave`;
  }
  /** Work offered to one host. */
  invite(hostId: string): string {
    return `${this.prefix}.host.${hostId}.invite`;
  }
  study(session: string, what: 'runs' | 'result' | 'started' | 'progress' | 'refused' | 'end'): string {
    return `${this.prefix}.study.${session}.${what}`;
  }
  /** A host is asked to run some of a run's islands. */
  islands(hostId: string): string {
    return `${this.prefix}.host.${hostId}.islands`;
  }
  /** Everything of one run addressed to one host (by id) or to the coordinator, on one subject so it stays in order. */
  run(runId: string, to: string): string {
    return `${this.prefix}.run.${runId}.${to}`;
  }
  /** JetStream stream names allow no dots: the prefix with dots as underscores. */
  studyStream(session: string): string {
    return `${this.prefix.replace(/\./g, '_')}_study_${session}`;
  }
}

export interface BusConnectOptions {
  /** The client's name as the broker lists it. */
  name: string;
  /** ms to wait for the broker at start. */
  timeoutMs?: number;
}

/**
 * Connects, or throws BrokerUnreachableError with one line naming the URL. Once connected
 * the client reconnects on its own (the broker may restart); callers watch `closed()`.
 *
 * A connect that fails leaves nothing open: the client (nats-core 3.4.0) keeps the socket of
 * a connection that never completed its handshake (a port that accepts TCP and never speaks
 * NATS), which would keep the process alive for ever. The sockets opened to the broker while
 * connecting are seen through node's `net.client.socket` channel and destroyed on failure.
 */
export async function connectBus(address: BusAddress, options: BusConnectOptions): Promise<NatsConnection> {
  checkTestKnobs();
  const sockets: Socket[] = [];
  const onSocket = (message: unknown) => sockets.push((message as { socket: Socket }).socket);
  subscribe('net.client.socket', onSocket);
  let nc: NatsConnection;
  try {
    nc = await connect({
      ...address.options,
      name: options.name,
      timeout: options.timeoutMs ?? connectTimeoutMs(),
      maxReconnectAttempts: reconnectAttempts(),
      reconnectTimeWait: RECONNECT_WAIT_MS,
    });
  } catch (error) {
    for (const socket of sockets) socket.destroy();
    unsubscribe('net.client.socket', onSocket);
    const why = redact(error instanceof Error ? error.message : String(error), address.secrets);
    const found = await diagnosed(address);
    throw new BrokerUnreachableError(`--nats ${address.display}: cannot connect to the NATS broker (${found ?? why})`);
  } finally {
    unsubscribe('net.client.socket', onSocket);
  }
  // Below it a large message cannot travel in parts (parts.ts), and a small one may not fit whole.
  const maxPayload = nc.info?.max_payload;
  if (maxPayload !== undefined && maxPayload < MIN_MAX_PAYLOAD) {
    await nc.close().catch(() => {});
    throw new BrokerUnreachableError(
      `--nats ${address.display}: the broker's max_payload is ${maxPayload} bytes; this tool needs at least ${MIN_MAX_PAYLOAD} (raise max_payload in the broker's configuration)`,
    );
  }
  return nc;
}

/** What a look of our own says of a failed connect (a TLS-only broker, a certificate refused), or null. */
async function diagnosed(address: BusAddress): Promise<string | null> {
  const server = String(address.options.servers);
  const at = server.lastIndexOf(':');
  const port = Number(server.slice(at + 1));
  if (at < 0 || !Number.isInteger(port)) return null;
  const host = server.slice(0, at).replace(/^\[|\]$/g, '');
  const scheme = address.display.startsWith('tls://') ? 'tls' : 'nats';
  const tls = address.options.tls ? { ...address.options.tls } : undefined;
  return diagnoseConnect(host, port, scheme, tls as Parameters<typeof diagnoseConnect>[3]).catch(() => null);
}

/**
 * Leaves the broker: drains (what was sent goes out, subscriptions end), then closes. A drain
 * still waiting after DRAIN_TIMEOUT_MS (the broker went away meanwhile and the client waits
 * for it) is cut short by the close: leaving never hangs.
 */
export async function leaveBus(nc: NatsConnection): Promise<void> {
  if (nc.isClosed()) return;
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)));
  await Promise.race([nc.drain().catch(() => {}), cut]);
  clearTimeout(timer);
  await nc.close().catch(() => {});
}

export interface ConnectionEvents {
  /**
   * The connection dropped. Core NATS keeps no messages for a client that is away, so what
   * one run's peers sent meanwhile is gone: a run spread over hosts cannot go on after a
   * disconnect, however soon the client reconnects (a study can: its work queue and results
   * are requests and acks that survive a reconnect).
   */
  disconnect?(): void;
  /** It is back (subscriptions renewed); the client retries a few times before it gives up and closes. */
  reconnect?(): void;
}

/** Calls `events` at every disconnect and reconnect of `nc`, for as long as it is open. */
export function watchConnection(nc: NatsConnection, events: ConnectionEvents): void {
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') events.disconnect?.();
      else if (status.type === 'reconnect') events.reconnect?.();
    }
  })();
}

/**
 * Whether the client is connected right now: false from a disconnect until it reconnects.
 * Peers cannot be heard while the broker is away, so silence then says nothing about them.
 * One per connection: it watches for as long as the connection is open.
 */
export function connectionState(nc: NatsConnection): { readonly connected: boolean } {
  const state = { connected: true };
  watchConnection(nc, { disconnect: () => (state.connected = false), reconnect: () => (state.connected = true) });
  return state;
}
