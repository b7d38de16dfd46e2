/**
 * A host: a long-lived process that offers its cores to coordinators on a NATS broker. Its
 * island threads are a warm pool that outlives runs. It announces itself with a heartbeat
 * (and answers a coordinator's `discover` at once), and does one thing at a time: runs some
 * islands of a coordinator's run (island-relay.ts), or serves a study it is invited to:
 * pulls its runs from a JetStream work queue one at a time, runs each on the pool, and
 * acks a run only after the coordinator has
 * confirmed its result: a host that dies mid-run leaves the run unacked, and the broker
 * gives it to another host after the ack deadline.
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { jetstream, type JsMsg } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/transport-node';
import type { ArchipelagoEvent } from '../archipelago/events.ts';
import { LocalHost } from '../archipelago/local-host.ts';
import { ConfigError } from '../config/errors.ts';
import { resolveRunConfig } from '../config/resolve.ts';
import { toRunRecord } from '../experiment/records.ts';
import type { SweepValue } from '../experiment/sweep.ts';
import { RunFailedError, startRun, type Run, type SeededRunConfig } from '../run/start-run.ts';
import { connectBus, connectionState, Subjects, watchConnection } from './bus.ts';
import { checkPrefix, parseNatsUrl } from './nats-url.ts';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_PREFIX } from './defaults.ts';
import { decodeBus, DropCounter, encodeBus, ownVersion, type BusMessage } from './bus-codec.ts';
import { IslandRelay } from './island-relay.ts';

/** How long a host waits for the coordinator to confirm a result before it gives the run back. */
const RESULT_TIMEOUT_MS = 30_000;

export interface HostOptions {
  /** nats://[user:password@|token@]host[:port] */
  nats: string;
  /** Islands this host offers (default: its cores). */
  islands?: number;
  /** Shown by coordinators (default: the machine's hostname and a short random tag). */
  name?: string;
  /** Subject prefix shared with the coordinators (default `nqi`). */
  prefix?: string;
  heartbeatMs?: number;
  /** One line per notable thing (joined a study, refused a message, ...). */
  log?: (line: string) => void;
}

export interface Host {
  readonly id: string;
  readonly name: string;
  readonly islands: number;
  /** The broker's URL as shown to people (no password). */
  readonly broker: string;
  /** Runs finished and confirmed by a coordinator. */
  readonly runsDone: number;
  readonly dropped: DropCounter;
  /** Leaves cleanly: stops the current run, gives it back to the queue, says goodbye, disconnects. */
  stop(): Promise<void>;
  /** Resolves when the host has left: by stop() (`stopped`) or because the broker was lost. */
  closed: Promise<'stopped' | 'broker-lost'>;
}

/** What the host is doing for one study. */
interface Membership {
  session: string;
  ended: boolean;
  current: { run: Run; msg: JsMsg } | null;
  endSub: Subscription;
}

/**
 * Connects to the broker and starts serving.
 * @throws ConfigError for a bad URL or prefix; BrokerUnreachableError (one line naming the URL) when the broker cannot be reached.
 */
export async function startHost(options: HostOptions): Promise<Host> {
  const address = parseNatsUrl(options.nats);
  const subjects = new Subjects(checkPrefix(options.prefix ?? DEFAULT_PREFIX));
  const islands = options.islands ?? os.availableParallelism();
  if (!Number.isInteger(islands) || islands < 1) throw new ConfigError(`--islands: expected a positive integer, got ${JSON.stringify(islands)}`);
  const id = randomBytes(6).toString('hex');
  const name = options.name ?? `${os.hostname()}-${id.slice(0, 4)}`;
  const log = options.log ?? (() => {});
  const nc = await connectBus(address, { name: `nqueens-islands host ${name}` });
  const connection = connectionState(nc);
  const js = jetstream(nc);
  const dropped = new DropCounter();
  const refused = new Set<string>();
  let runsDone = 0;
  let membership: Membership | null = null;
  let relay: IslandRelay | null = null;
  let stopping = false;
  const pool = new LocalHost(islands);
  const busy = () => membership !== null || relay !== null;

  const heartbeat = () => {
    if (nc.isClosed()) return;
    nc.publish(subjects.heartbeat, encodeBus({ type: 'host', id, name, islands, busy: busy() }));
  };
  const timer = setInterval(heartbeat, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);

  /** Decodes, counting drops; a peer of another version is named once. */
  const receive = <T extends BusMessage['type']>(bytes: Uint8Array, ...types: T[]): BusMessage<T> | null => {
    const decoded = decodeBus(bytes, ...types);
    if (decoded.kind === 'ok') return decoded.message;
    dropped.count(decoded);
    if (decoded.kind === 'incompatible' && !refused.has(decoded.from)) {
      refused.add(decoded.from);
      log(`refused a coordinator running ${decoded.from}; this host runs ${ownVersion()}`);
    }
    return null;
  };

  nc.subscribe(subjects.discover, { callback: (_err, msg) => {
      if (receive(msg.data, 'discover')) heartbeat();
    },
  });
  nc.subscribe(subjects.invite(id), {
    callback: (_err, msg) => {
      const invite = receive(msg.data, 'invite');
      if (invite && !busy() && !stopping) void serveStudy(invite);
    },
  });
  nc.subscribe(subjects.islands(id), {
    callback: (_err, msg) => {
      const order = receive(msg.data, 'islands');
      if (!order || busy() || stopping) return; // no answer: the coordinator fails these islands
      const ids = order.hostOf.flatMap((host, island) => (host === id ? [island] : []));
      log(`run ${order.runId}: island${ids.length === 1 ? '' : 's'} ${ids.join(', ')} of ${order.islands}`);
      const own = new IslandRelay(nc, subjects, order, id, pool, dropped, connection);
      relay = own;
      heartbeat();
      msg.respond(encodeBus({ type: 'accepted', runId: order.runId }));
      void own.done.then(() => {
        log(`run ${order.runId}: over${own.leaving ? ` (${own.leaving})` : ''}`);
        relay = null;
        heartbeat();
      });
    },
  });

  async function serveStudy(invite: BusMessage<'invite'>): Promise<void> {
    const member: Membership = {
      session: invite.session,
      ended: false,
      current: null,
      endSub: nc.subscribe(subjects.study(invite.session, 'end'), {
        callback: (_err, msg) => {
          if (receive(msg.data, 'end')?.session !== invite.session) return;
          member.ended = true;
          member.current?.run.stop();
        },
      }),
    };
    membership = member;
    heartbeat();
    log(`joined study ${invite.session}`);
    try {
      const consumer = await js.consumers.get(invite.stream, invite.consumer);
      while (!member.ended && !stopping && !nc.isClosed()) {
        const msg = await consumer.next({ expires: 1000 });
        if (msg && !(await serveRun(member, msg, invite.ackWaitMs))) break;
      }
    } catch (error) {
      // The study's stream is gone (the study ended) or the broker is: either way, leave it.
      if (!member.ended && !stopping && !nc.isClosed()) log(`left study ${invite.session}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      member.endSub.unsubscribe();
      membership = null;
      if (!stopping) {
        log(`left study ${invite.session}`);
        heartbeat();
      }
    }
  }

  /** Runs one work message; false when the host should leave the study. */
  async function serveRun(member: Membership, msg: JsMsg, ackWaitMs: number): Promise<boolean> {
    const order = receive(msg.data, 'run');
    if (!order || order.session !== member.session) {
      msg.term(); // no host could do better with it
      return true;
    }
    let run: Run;
    let config: SeededRunConfig;
    try {
      config = { ...resolveRunConfig(order.config, `run ${order.runId} of study ${order.session}`), seed: order.seed };
      run = startRun(config, { launcher: pool });
    } catch (error) {
      // This machine cannot run it (too little memory, ...): give it back for another host.
      log(`cannot run ${order.runId}: ${error instanceof Error ? error.message : String(error)}; leaving the study`);
      msg.nak();
      return false;
    }
    member.current = { run, msg };
    nc.publish(subjects.study(member.session, 'started'), encodeBus({ type: 'run-started', session: member.session, runId: order.runId, host: name }));
    // Tell the broker the run is alive, well within its ack deadline.
    const keepAlive = setInterval(() => msg.working(), Math.max(100, ackWaitMs / 3));
    const events: string[] = [];
    const subscription = order.events ? run.events$.subscribe((e: ArchipelagoEvent) => e.type !== 'done' && events.push(JSON.stringify(e))) : null;
    try {
      const result = await run.result.catch((error: unknown) => {
        if (error instanceof RunFailedError) return error.result;
        throw error;
      });
      if (member.ended || stopping) {
        msg.nak();
        return false;
      }
      const record = { ...toRunRecord({ id: order.cell.id, values: order.cell.values as Record<string, SweepValue> }, result, config), host: name };
      const done: BusMessage<'run-done'> = { type: 'run-done', session: member.session, runId: order.runId, host: name, record, events };
      try {
        const reply = await nc.request(subjects.study(member.session, 'result'), encodeBus(done), { timeout: RESULT_TIMEOUT_MS });
        if (receive(reply.data, 'recorded')?.runId !== order.runId) throw new Error('the coordinator did not confirm the result');
      } catch (error) {
        // No coordinator (it was stopped or died): the run stays in the queue for a resumed study.
        msg.nak();
        log(`result of ${order.runId} not confirmed (${error instanceof Error ? error.message : String(error)})`);
        return false;
      }
      msg.ack();
      runsDone++;
      return true;
    } finally {
      clearInterval(keepAlive);
      subscription?.unsubscribe();
      member.current = null;
    }
  }

  // A run spread over hosts cannot outlive a disconnect (bus.ts `ConnectionEvents`): stop its
  // islands now. A study's run goes on: its work message and result survive a reconnect.
  watchConnection(nc, {
    disconnect: () => {
      log(`lost the NATS broker ${address.display}; reconnecting`);
      relay?.brokerLost();
    },
    reconnect: () => {
      log(`reconnected to ${address.display}`);
      heartbeat();
    },
  });
  heartbeat();
  let settle: (how: 'stopped' | 'broker-lost') => void = () => {};
  const closed = new Promise<'stopped' | 'broker-lost'>((resolve) => (settle = resolve));
  void nc.closed().then(() => {
    clearInterval(timer);
    membership?.current?.run.stop();
    relay?.stop('the NATS broker was lost');
    settle(stopping ? 'stopped' : 'broker-lost');
  });

  return {
    id,
    name,
    islands,
    broker: address.display,
    get runsDone() {
      return runsDone;
    },
    dropped,
    async stop() {
      if (stopping) return closed.then(() => {});
      stopping = true;
      clearInterval(timer);
      const current = membership?.current;
      if (current) {
        current.msg.nak(); // back to the queue now, not after the ack deadline
        current.run.stop();
        await current.run.result.catch(() => {});
      }
      relay?.stop(`host ${name} left`);
      await relay?.done;
      if (!nc.isClosed()) {
        nc.publish(subjects.leave, encodeBus({ type: 'leave', id }));
        await nc.drain().catch(() => {});
      }
      await closed;
      await pool.close();
    },
    closed,
  };
}
