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
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import { extendRegistries, loadExtensions, missingEntry, type IslandRegistries } from '../../archipelago/extension.ts';
import { ISLAND_REGISTRIES } from '../../archipelago/island-registries.ts';
import { LocalHost } from '../../archipelago/local-host.ts';
import { MAX_NICE } from '../../archipelago/thread-priority.ts';
import type { IslandTask } from '../../archipelago/messages.ts';
import type { ForeignMessages } from '../../archipelago/message-shapes.ts';
import { safeText } from '../bus/text.ts';
import { BoundedSet, SayOnce } from '../bus/bounded.ts';
import { ConfigError } from '../../config/errors.ts';
import { readMemoryLimits, runMemoryAdvice } from '../../config/memory.ts';
import { REGISTRIES, type Registries } from '../../config/registries.ts';
import { checkResolved } from '../../config/resolved-schema.ts';
import { toRunRecord } from '../../experiment/records.ts';
import type { SweepValue } from '../../experiment/sweep.ts';
import { RunFailedError, startSeededRun, type SeededRun, type SeededRunConfig } from '../../run/start-run.ts';
import { connectBus, connectionState, leaveBus, Subjects, watchConnection } from '../bus/connection.ts';
import { checkPrefix, type NatsAuth } from '../../config/nats-url.ts';
import { busAddress } from '../bus/credentials.ts';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_ISLAND_NICE, DEFAULT_PREFIX } from '../defaults.ts';
import { BusCodec, ownVersion, type DropCounter } from '../bus/codec.ts';
import { carried } from '../bus/carried.ts';
import { type BusMessage } from '../bus/messages.ts';
import { BusEndpoint } from '../bus/endpoint.ts';
import { warmRunPaths } from './warm-up.ts';
import { clusterKeyOf, UNSIGNED_WARNING, type ClusterKeySource } from '../bus/key.ts';
import { IslandRelay } from '../launcher/island-relay.ts';
import { checkHostName, defaultHostName } from './names.ts';

/** How long a host waits for the coordinator to confirm a result before it gives the run back. */
const RESULT_TIMEOUT_MS = 30_000;
/** One attempt of it: the result is sent again after this (a reply lost while the broker restarted). */
const RESULT_ATTEMPT_MS = 2000;

export interface HostOptions extends ClusterKeySource {
  /** nats://[user:password@|token@]host[:port] */
  nats: string;
  /** Credentials and TLS files beside the URL (credentials.ts); NQI_NATS_PASSWORD / NQI_NATS_TOKEN are read too. */
  auth?: NatsAuth;
  /** Islands this host offers (default: its cores). */
  islands?: number;
  /**
   * How far below the host's main thread, which carries runs over the bus, its island threads
   * run: 0 to 19 nice steps (default DEFAULT_ISLAND_NICE, 10; Linux only, elsewhere ignored).
   * 0 makes islands compete with the relay and with the machine's other work as equals.
   */
  islandNice?: number;
  /** Shown by coordinators (default: the machine's hostname and a short random tag). */
  name?: string;
  /** Subject prefix shared with the coordinators (default `nqi`). */
  prefix?: string;
  heartbeatMs?: number;
  /**
   * URLs of extension modules (`archipelago/extension.ts`) whose GA modes and policies this
   * host's islands may run. A host loads these and nothing else: an order from the bus that
   * names a module is refused, as is one needing an entry none of these provides.
   */
  extensions?: readonly string[];
  /** One line per notable thing (joined a study, refused a message, ...). */
  log?: (line: string) => void;
}

/** A host process's handle (`startHost`): not a launcher; coordinators launch islands on it over the bus. */
export interface ClusterHost {
  readonly id: string;
  readonly name: string;
  readonly islands: number;
  /** The broker's URL as shown to people (no password). */
  readonly broker: string;
  /** Runs finished: a study's runs confirmed by its coordinator, and solve runs whose islands ran here. */
  readonly runsDone: number;
  readonly dropped: DropCounter;
  /** What leaving now ends, in words (its run's islands, or a study run that goes back to its queue); null when idle. */
  readonly busyWith: string | null;
  /** Leaves cleanly: stops the current run, gives it back to the queue, says goodbye, disconnects. */
  stop(): Promise<void>;
  /** Resolves when the host has left: by stop() (`stopped`) or because the broker was lost. */
  closed: Promise<'stopped' | 'broker-lost'>;
}

/** What the host is doing for one study. */
interface Membership {
  session: string;
  /** The study's coordinator: only it may end the study or confirm a result. */
  coordinator: string;
  ended: boolean;
  current: { run: SeededRun; msg: JsMsg } | null;
  endSub: Subscription;
}

/** `--island-nice` of a host: an integer 0 to MAX_NICE (default DEFAULT_ISLAND_NICE); `given` is what the error shows. */
export function checkIslandNice(nice: number | undefined, given: unknown = nice): number {
  if (nice === undefined) return DEFAULT_ISLAND_NICE;
  if (!Number.isInteger(nice) || nice < 0 || nice > MAX_NICE)
    throw new ConfigError(
      `--island-nice: expected an integer from 0 to ${MAX_NICE} (how far below the host's relay its islands run), got ${JSON.stringify(given)}`,
    );
  return nice;
}

/**
 * `--islands` of a host: at most the cores this machine has (os.availableParallelism()), the
 * default. A host offering more would take islands it can only run by sharing cores, from
 * hosts that have them free.
 */
export function checkOfferedIslands(islands: number | undefined): number {
  const cores = os.availableParallelism();
  if (islands === undefined) return cores;
  if (!Number.isInteger(islands) || islands < 1)
    throw new ConfigError(`--islands: expected a positive integer, got ${JSON.stringify(islands)}`);
  if (islands > cores)
    throw new ConfigError(
      `--islands: this machine has ${cores} core${cores === 1 ? '' : 's'} (os.availableParallelism()); a host offers at most that many islands, got ${islands}`,
    );
  return islands;
}

/**
 * Connects to the broker and starts serving.
 * @throws ConfigError for a bad URL or prefix; BrokerUnreachableError (one line naming the URL) when the broker cannot be reached.
 */
export async function startHost(options: HostOptions): Promise<ClusterHost> {
  const address = busAddress(options.nats, options.auth);
  const subjects = new Subjects(checkPrefix(options.prefix ?? DEFAULT_PREFIX));
  const islands = checkOfferedIslands(options.islands);
  const islandNice = checkIslandNice(options.islandNice);
  const id = randomBytes(6).toString('hex');
  const name = options.name === undefined ? defaultHostName(os.hostname(), id.slice(0, 4)) : checkHostName(options.name);
  const log = options.log ?? (() => {});
  const key = clusterKeyOf(options);
  const extensions = options.extensions ?? [];
  const registries = await hostRegistries(extensions);
  // One object for the host's life: the resolved-config schema is made once per registries (resolved-schema.ts).
  const configRegistries: Registries = registries === ISLAND_REGISTRIES ? REGISTRIES : { ...REGISTRIES, ...registries };
  const nc = await connectBus(address, { name: `nqueens-islands host ${name}` });
  if (!key) log(UNSIGNED_WARNING);
  const connection = connectionState(nc);
  const js = jetstream(nc);
  const bus = new BusEndpoint(nc, new BusCodec(id, key), log);
  warmRunPaths(bus.codec);
  const dropped = bus.dropped;
  const refused = new SayOnce(8, log);
  /** Studies whose queue was found gone: not joined again. */
  const left = new BoundedSet(64);
  let runsDone = 0;
  let membership: Membership | null = null;
  let relay: IslandRelay | null = null;
  let stopping = false;
  const pool = new LocalHost(islands, { islandNice });
  const busy = () => membership !== null || relay !== null;

  const heartbeat = () => bus.publish(subjects.heartbeat, { type: 'host', id, name, islands, busy: busy() });
  const timer = setInterval(heartbeat, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);

  /** A coordinator of another version is named once. */
  const onIncompatible = ({ from }: { from: string }) =>
    refused.say(from, `refused a coordinator running ${from}; this host runs ${ownVersion()}`);

  bus.listen(subjects.discover, ['discover'], () => heartbeat(), { onIncompatible });
  bus.listen(
    subjects.invite(id),
    ['invite'],
    (invite, from) => {
      if (!busy() && !stopping && !left.has(invite.session)) void serveStudy(invite, from);
    },
    { onIncompatible },
  );
  bus.listen(
    subjects.islands(id),
    ['islands'],
    (order, from, msg) => {
      if (order.coordinator !== from) return void dropped.unauthenticated++;
      if (busy() || stopping) {
        // Said, not dropped: the coordinator names it at once instead of after its timeout.
        const doing = stopping ? 'leaving' : relay ? 'running the islands of another run' : `serving study ${membership?.session}`;
        return bus.respond(msg, { type: 'refused', runId: order.runId, reason: `host ${name} is busy (${doing})` });
      }
      const tasks = checkOrder(order, id, name, registries, configRegistries, dropped);
      if (typeof tasks === 'string') {
        log(`run ${order.runId}: refused: ${tasks}`);
        return bus.respond(msg, { type: 'refused', runId: order.runId, reason: tasks });
      }
      // The worker imports this host's own extension modules, never any a message names.
      if (extensions.length > 0) for (const task of tasks) task.extensions = extensions;
      const ids = tasks.map((t) => t.island);
      log(`run ${order.runId}: island${ids.length === 1 ? '' : 's'} ${ids.join(', ')} of ${order.islands}`);
      const own = new IslandRelay(bus, subjects, order, tasks, id, pool, connection);
      relay = own;
      heartbeat();
      bus.respond(msg, { type: 'accepted', runId: order.runId });
      void own.done.then(() => {
        log(`run ${order.runId}: over${own.leaving ? ` (${own.leaving})` : ''}`);
        runsDone++;
        relay = null;
        heartbeat();
      });
    },
    { onIncompatible },
  );

  async function serveStudy(invite: BusMessage<'invite'>, coordinator: string): Promise<void> {
    const member: Membership = {
      session: invite.session,
      coordinator,
      ended: false,
      current: null,
      endSub: bus.listen(subjects.study(invite.session, 'end'), ['end'], (end, from) => {
        if (end.session !== invite.session || from !== coordinator) return void dropped.unauthenticated++;
        member.ended = true;
        member.current?.run.stop();
      }),
    };
    membership = member;
    heartbeat();
    log(`joined study ${invite.session}`);
    try {
      const consumer = await js.consumers.get(invite.stream, invite.consumer);
      while (!member.ended && !stopping && !nc.isClosed()) {
        const msg = await consumer.next({ expires: 1000 });
        // Nothing came: the queue may be gone (the pull says nothing of it); info() throws then.
        if (!msg) await consumer.info();
        else if (!(await serveRun(member, msg, invite.ackWaitMs))) break;
      }
    } catch (error) {
      // The study's stream is gone (the study ended) or the broker is: either way, leave it, and
      // never join it again (an invitation to it would only find it gone once more).
      if (!member.ended && !stopping && !nc.isClosed()) {
        left.add(invite.session);
        log(`left study ${invite.session}: ${safeText(error instanceof Error ? error.message : String(error), 200)}`);
      }
    } finally {
      member.endSub.unsubscribe();
      membership = null;
      if (!stopping) {
        log(`left study ${invite.session}`);
        heartbeat();
      }
    }
  }

  /**
   * Sends a run's result until its study's coordinator confirms it: null once it did, else why
   * not. Each attempt is short and the result is sent again (recorded once: the coordinator
   * answers a repeat as a duplicate), so a broker that restarts costs a few seconds, not the
   * whole RESULT_TIMEOUT_MS; a reply from anyone but the coordinator is dropped.
   */
  async function confirm(member: Membership, done: BusMessage<'run-done'>): Promise<string | null> {
    const deadline = Date.now() + RESULT_TIMEOUT_MS;
    let why = 'timeout';
    while (Date.now() < deadline && !stopping && !nc.isClosed()) {
      const answer = await bus.requestFrom(
        subjects.study(member.session, 'result'),
        done,
        ['recorded'],
        (message, from) => from === member.coordinator && message.runId === done.runId,
        Math.min(RESULT_ATTEMPT_MS, Math.max(1, deadline - Date.now())),
      );
      if (answer.kind === 'answer') return null;
      why = answer.kind === 'no-responders' ? 'the coordinator is not listening' : 'timeout';
      // Nobody listening (the coordinator's client renews its subscriptions after a reconnect): not at once again.
      if (answer.kind === 'no-responders') await new Promise((resolve) => setTimeout(resolve, RESULT_ATTEMPT_MS / 4));
    }
    return why;
  }

  /** Runs one work message; false when the host should leave the study. */
  async function serveRun(member: Membership, msg: JsMsg, ackWaitMs: number): Promise<boolean> {
    // A work message may be redelivered (its host died): out of its sender's order on purpose.
    const decoded = bus.decode(msg, ['run'], { unordered: true });
    const order =
      decoded.kind === 'ok' && decoded.message.session === member.session && decoded.from === member.coordinator ? decoded.message : null;
    if (!order) {
      if (decoded.kind === 'ok') dropped.unauthenticated++;
      msg.term(); // no host could do better with it
      return true;
    }
    let run: SeededRun;
    // The resolved config as the coordinator resolved it (the codec checked its shape): not resolved again here.
    const config: SeededRunConfig = order.config;
    try {
      const tooBig = runMemoryAdvice(config, readMemoryLimits());
      if (tooBig) throw new Error(`n: ${tooBig}`);
      run = startSeededRun(config, { launcher: pool });
    } catch (error) {
      // This machine cannot run it (too little memory, ...): give it back for another host.
      log(`cannot run ${order.runId}: ${error instanceof Error ? error.message : String(error)}; leaving the study`);
      msg.nak();
      return false;
    }
    member.current = { run, msg };
    bus.publish(subjects.study(member.session, 'started'), {
      type: 'run-started',
      session: member.session,
      runId: order.runId,
      host: name,
    });
    // Tell the broker the run is alive, well within its ack deadline.
    const keepAlive = setInterval(() => msg.working(), Math.max(100, ackWaitMs / 3));
    const events: string[] = [];
    const subscription = run.events$.subscribe((e: ArchipelagoEvent) => {
      if (order.events && e.type !== 'done') events.push(JSON.stringify(e));
    });
    try {
      const result = await run.result.catch((error: unknown) => {
        if (error instanceof RunFailedError) return error.result;
        throw error;
      });
      if (member.ended || stopping) {
        msg.nak();
        return false;
      }
      const made = toRunRecord({ id: order.cell.id, values: order.cell.values as Record<string, SweepValue> }, result, config);
      const record = { ...made, host: name };
      const done: BusMessage<'run-done'> = { type: 'run-done', session: member.session, runId: order.runId, host: name, record, events };
      const confirmed = await confirm(member, done);
      if (confirmed !== null) {
        // No coordinator (it was stopped or died): the run stays in the queue for a resumed study.
        msg.nak();
        log(`result of ${order.runId} not confirmed (${confirmed})`);
        return false;
      }
      msg.ack();
      runsDone++;
      return true;
    } finally {
      clearInterval(keepAlive);
      subscription.unsubscribe();
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
    get busyWith() {
      if (relay) return "its islands of a run in progress end, reported to that run's coordinator";
      return membership?.current ? `its run of study ${membership.session} goes back to the queue` : null;
    },
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
        bus.publish(subjects.leave, { type: 'leave', id });
        await leaveBus(nc);
      }
      await closed;
      await pool.close();
    },
    closed,
  };
}

/** The registries this host's islands build from: the built-in ones and its own extension modules'. */
async function hostRegistries(urls: readonly string[]): Promise<IslandRegistries> {
  if (urls.length === 0) return ISLAND_REGISTRIES;
  const loaded = await Promise.all(
    urls.map(async (url) => {
      try {
        const [extension] = await loadExtensions([url]);
        if (extension === null || typeof extension !== 'object')
          throw new Error('its default export is not an extension (gaModes, emigrantSelections, replacements)');
        return extension;
      } catch (error) {
        throw new ConfigError(
          `--extension ${url}: cannot load it (${(error instanceof Error ? error.message : String(error)).split('\n')[0]})`,
        );
      }
    }),
  );
  return extendRegistries(ISLAND_REGISTRIES, loaded);
}

/**
 * This host's islands of an order, checked: each task an island task of this version, the
 * ones `hostOf` gives this host, in range, and runnable with this host's registries. Returns
 * them, or the one line why the host refuses the order (the coordinator shows it).
 */
function checkOrder(
  order: BusMessage<'islands'>,
  id: string,
  name: string,
  registries: IslandRegistries,
  configRegistries: Registries,
  dropped: DropCounter,
): IslandTask[] | string {
  const ids = order.hostOf.flatMap((host, island) => (host === id ? [island] : []));
  const arrived = order.tasks.map((bytes) => carried('task', bytes));
  const fits = (task: ForeignMessages['task'] | null, k: number): task is ForeignMessages['task'] =>
    task !== null &&
    task.island === ids[k] &&
    task.run.islands === order.islands &&
    [...task.sources, ...task.targets].every((i) => i < order.islands);
  const tasks = arrived.filter(fits);
  if (tasks.length !== ids.length || tasks.length !== arrived.length) {
    dropped.malformed++;
    return `host ${name} got island tasks it cannot read or that do not match the order (another tool version?)`;
  }
  const checkedTasks: IslandTask[] = [];
  for (const task of tasks) {
    const named = task.extensions ?? [];
    if (named.length > 0) {
      return `host ${name} loads no code named by a message (the order names extension module ${JSON.stringify(safeText(named[0], 100))}); start the host with --extension FILE instead`;
    }
    const { ga, migration } = task.run;
    const replacement = typeof migration.replacement === 'string' ? migration.replacement : migration.replacement.kind;
    const missing = missingEntry({ mode: ga.mode, emigrantSelection: migration.emigrantSelection.kind, replacement }, registries);
    if (missing) return `host ${name} has no ${safeText(missing, 140)}: it is not built in and no --extension of this host provides it`;
    // The resolved run as it arrived, checked against this host's registries: never resolved again.
    const checked = checkResolved('run', task.run, configRegistries);
    if ('problem' in checked) {
      dropped.malformed++;
      return `host ${name} got island ${task.island} with a run that is not a resolved run config (${safeText(checked.problem, 200)})`;
    }
    checkedTasks.push({ ...task, run: checked.config });
  }
  return checkedTasks;
}
