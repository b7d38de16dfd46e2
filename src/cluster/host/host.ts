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
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type { Msg } from '@nats-io/transport-node';
import type { IslandRegistries } from '../../archipelago/extension.ts';
import { ISLAND_REGISTRIES } from '../../archipelago/island-registries.ts';
import { LocalHost } from '../../archipelago/local-host.ts';
import { MAX_NICE } from '../../archipelago/thread-priority.ts';
import { BoundedSet, SayOnce } from '../bus/bounded.ts';
import { ConfigError } from '../../config/errors.ts';
import { REGISTRIES, type Registries } from '../../config/registries.ts';
import { connectBus, connectionState, leaveBus, Subjects, watchConnection } from '../bus/connection.ts';
import { checkPrefix, type NatsAuth } from '../../config/nats-url.ts';
import { busAddress } from '../bus/credentials.ts';
import { DEFAULT_ISLAND_NICE, DEFAULT_PREFIX, heartbeatPeriodMs, maxEventBytes } from '../defaults.ts';
import { BusCodec, ownVersion, type DropCounter } from '../bus/codec.ts';
import { type BusMessage } from '../bus/messages.ts';
import { BusEndpoint } from '../bus/endpoint.ts';
import { warmRunPaths } from './warm-up.ts';
import { clusterKeyOf, UNSIGNED_WARNING, type ClusterKeySource } from '../bus/key.ts';
import { IslandRelay } from '../launcher/island-relay.ts';
import { checkHostName, defaultHostName } from './names.ts';
import { MAX_EVENT_BYTES, StudyMember, type MemberHost } from './study-member.ts';
import { callback, number, text, texts, type OptionSchema } from '../../config/library-options.ts';
import { BUS, busOptions, busSchema } from '../library-options.ts';
import { checkOrder, hostRegistries } from './order-check.ts';

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

const HOST_OPTIONS = busSchema({
  ...BUS,
  islands: number,
  islandNice: number,
  name: text,
  heartbeatMs: number,
  extensions: texts,
  log: callback,
} satisfies Record<keyof HostOptions, OptionSchema>);

/**
 * Connects to the broker and starts serving.
 * @throws ConfigError for a bad URL or prefix; BrokerUnreachableError (one line naming the URL) when the broker cannot be reached.
 */
export async function startHost(given: HostOptions): Promise<ClusterHost> {
  const options = busOptions(given, 'startHost options', HOST_OPTIONS);
  const address = busAddress(options.nats, options.auth);
  const subjects = new Subjects(checkPrefix(options.prefix ?? DEFAULT_PREFIX));
  const islands = checkOfferedIslands(options.islands);
  const islandNice = checkIslandNice(options.islandNice);
  const eventBytes = maxEventBytes(MAX_EVENT_BYTES);
  const id = randomBytes(6).toString('hex');
  const name = options.name === undefined ? defaultHostName(os.hostname(), id.slice(0, 4)) : checkHostName(options.name);
  const log = options.log ?? (() => {});
  const key = clusterKeyOf(options);
  const extensions = options.extensions ?? [];
  const registries = await hostRegistries(extensions);
  const nc = await connectBus(address, { name: `nqueens-islands host ${name}` });
  if (!key) log(UNSIGNED_WARNING);
  const connection = connectionState(nc);
  const js = jetstream(nc);
  const bus = new BusEndpoint(nc, new BusCodec(id, key), log);
  warmRunPaths(bus.codec);
  const { heartbeatMs } = options;
  const setup = { id, name, islands, islandNice, eventBytes, log, extensions, registries, connection, js, heartbeatMs };
  return new ServingHost(bus, subjects, address.display, setup);
}

/** What `startHost` checked and made before the host starts serving. */
interface HostSetup {
  id: string;
  name: string;
  islands: number;
  islandNice: number;
  eventBytes: number;
  log: (line: string) => void;
  extensions: readonly string[];
  registries: IslandRegistries;
  connection: { readonly connected: boolean };
  js: JetStreamClient;
  heartbeatMs: number | undefined;
}

/** A serving host: idle, serving one study, or running islands of one run, until it leaves. */
class ServingHost implements ClusterHost {
  readonly id: string;
  readonly name: string;
  readonly islands: number;
  readonly dropped: DropCounter;
  readonly closed: Promise<'stopped' | 'broker-lost'>;
  private done = 0;
  private membership: StudyMember | null = null;
  private relay: IslandRelay | null = null;
  private stopping = false;
  private readonly log: (line: string) => void;
  private readonly refused: SayOnce;
  private readonly pool: LocalHost;
  private readonly timer: NodeJS.Timeout;
  /** What a study member needs of this host. */
  private readonly memberHost: MemberHost;
  /** One object for the host's life: the resolved-config schema is made once per registries (resolved-schema.ts). */
  private readonly configRegistries: Registries;

  constructor(
    private readonly bus: BusEndpoint,
    private readonly subjects: Subjects,
    readonly broker: string,
    private readonly setup: HostSetup,
  ) {
    const { nc } = bus;
    ({ id: this.id, name: this.name, islands: this.islands, log: this.log } = setup);
    const { registries, log } = setup;
    this.configRegistries = registries === ISLAND_REGISTRIES ? REGISTRIES : { ...REGISTRIES, ...registries };
    this.dropped = bus.dropped;
    this.refused = new SayOnce(8, log);
    // A host runs whatever islands a run gives it on as many threads as it offers islands (a run's own `threads` is the coordinator machine's).
    this.pool = new LocalHost(this.islands, { islandNice: setup.islandNice, threads: this.islands });
    this.memberHost = {
      bus,
      subjects,
      js: setup.js,
      name: this.name,
      pool: this.pool,
      log,
      maxEventBytes: setup.eventBytes,
      left: new BoundedSet(64),
      stopping: () => this.stopping,
      runDone: () => void this.done++,
      leave: (session) => this.leaveStudy(session),
    };
    this.timer = setInterval(() => this.heartbeat(), setup.heartbeatMs ?? heartbeatPeriodMs());
    this.listen();
    // A run spread over hosts cannot outlive a disconnect (bus.ts `ConnectionEvents`): stop its
    // islands now. A study's run goes on: its work message and result survive a reconnect.
    watchConnection(nc, {
      disconnect: () => {
        log(`lost the NATS broker ${broker}; reconnecting`);
        this.relay?.brokerLost();
      },
      reconnect: () => {
        log(`reconnected to ${broker}`);
        this.heartbeat();
      },
    });
    this.heartbeat();
    let settle: (how: 'stopped' | 'broker-lost') => void = () => {};
    this.closed = new Promise<'stopped' | 'broker-lost'>((resolve) => (settle = resolve));
    void nc.closed().then(async () => {
      clearInterval(this.timer);
      this.membership?.current?.run.stop();
      const relay = this.relay;
      relay?.stop('the NATS broker was lost');
      // A run in progress is over (its islands stopped, its end said and counted) before the host is: its last line counts it.
      try {
        await relay?.done;
      } finally {
        settle(this.stopping ? 'stopped' : 'broker-lost');
      }
    });
  }

  get runsDone(): number {
    return this.done;
  }

  get busyWith(): string | null {
    if (this.relay) return "its islands of a run in progress end, reported to that run's coordinator";
    return this.membership?.current ? `its run of study ${this.membership.session} goes back to the queue` : null;
  }

  async stop(): Promise<void> {
    const { bus } = this;
    if (this.stopping) return this.closed.then(() => {});
    this.stopping = true;
    clearInterval(this.timer);
    const current = this.membership?.current;
    if (current) {
      current.msg.nak(); // back to the queue now, not after the ack deadline
      current.run.stop();
      await current.run.outcome.catch(() => {});
    }
    this.relay?.stop(`host ${this.name} left`);
    await this.relay?.done;
    if (!bus.nc.isClosed()) {
      bus.publish(this.subjects.leave, { type: 'leave', id: this.id });
      await leaveBus(bus.nc);
    }
    await this.closed;
    await this.pool.close();
  }

  private busy(): boolean {
    return this.membership !== null || this.relay !== null;
  }

  private heartbeat(): void {
    const { id, name, islands } = this;
    this.bus.publish(this.subjects.heartbeat, { type: 'host', id, name, islands, busy: this.busy() });
  }

  private listen(): void {
    const { bus, subjects, id } = this;
    /** A coordinator of another version is named once. */
    const onForeign = ({ from }: { from: string }) =>
      this.refused.say(from, `refused a coordinator running ${from}; this host runs ${ownVersion()}`);
    bus.listen(subjects.discover, ['discover'], () => this.heartbeat(), { onForeign });
    bus.listen(
      subjects.invite(id),
      ['invite'],
      (invite, from) => {
        if (!this.busy() && !this.stopping && !this.memberHost.left.has(invite.session)) void this.serveStudy(invite, from);
      },
      { onForeign },
    );
    bus.listen(subjects.islands(id), ['islands'], (order, from, msg) => this.takeOrder(order, from, msg), { onForeign });
  }

  /** A coordinator's order to run islands of its run: accepted, or refused in one line. */
  private takeOrder(order: BusMessage<'islands'>, from: string, msg: Msg): void {
    const { bus, subjects, name, log } = this;
    const { extensions } = this.setup;
    if (order.coordinator !== from) return void this.dropped.unauthenticated++;
    if (this.busy() || this.stopping) {
      // Said, not dropped: the coordinator names it at once instead of after its timeout.
      const doing = this.stopping
        ? 'leaving'
        : this.relay
          ? 'running the islands of another run'
          : `serving study ${this.membership?.session}`;
      return bus.respond(msg, { type: 'refused', runId: order.runId, reason: `host ${name} is busy (${doing})` });
    }
    const tasks = checkOrder(order, this.id, name, this.setup.registries, this.configRegistries, this.dropped);
    if (typeof tasks === 'string') {
      log(`run ${order.runId}: refused: ${tasks}`);
      return bus.respond(msg, { type: 'refused', runId: order.runId, reason: tasks });
    }
    // The worker imports this host's own extension modules, never any a message names.
    if (extensions.length > 0) for (const task of tasks) task.extensions = extensions;
    const ids = tasks.map((t) => t.island);
    log(`run ${order.runId}: island${ids.length === 1 ? '' : 's'} ${ids.join(', ')} of ${order.islands}`);
    const own = new IslandRelay(bus, subjects, order, tasks, this.id, this.pool, this.setup.connection, log);
    this.relay = own;
    this.heartbeat();
    bus.respond(msg, { type: 'accepted', runId: order.runId });
    void own.done.then(() => {
      log(`run ${order.runId}: over${own.leaving ? ` (${own.leaving})` : ''}${own.unsent()}`);
      this.done++;
      this.relay = null;
      this.heartbeat();
    });
  }

  private async serveStudy(invite: BusMessage<'invite'>, coordinator: string): Promise<void> {
    const member = new StudyMember(this.memberHost, invite, coordinator);
    this.membership = member;
    this.heartbeat();
    this.log(`joined study ${invite.session}`);
    await member.serve();
  }

  private leaveStudy(session: string): void {
    this.membership = null;
    if (!this.stopping) {
      this.log(`left study ${session}`);
      this.heartbeat();
    }
  }
}
