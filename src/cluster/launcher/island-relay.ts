/**
 * A host's part of a run whose islands are spread over hosts. The islands here run on the
 * host's warm pool exactly as local islands do: the same worker, the same MessagePort
 * transport, the same shared-memory coordination (sized for the whole run, ids global).
 * This relay, on the host's main thread, carries the rest over the bus:
 *
 * - an edge to an island elsewhere ends at a MessagePort held here: its migrants go out on
 *   the other host's run subject, and arriving migrants are posted into the port the island
 *   reads (then the islands are woken, so a sync island waiting for them looks again);
 * - what islands share (barrier arrivals and departures, the sync found-epoch, the async
 *   stop and its claimer) is watched in the shared memory and published to the other hosts
 *   on every change; what other hosts publish is written into it;
 * - each island's messages to the coordinator and its report are forwarded as they are.
 *
 * Order is what keeps sync runs repeatable: everything from one host to another travels on
 * one subject over one connection, so it arrives in the order it was sent, and before
 * publishing a state change the relay first sends the migrants already queued (an island
 * posts its migrants before it arrives at the barrier or departs). A state message carries
 * the found-epoch together with the arrivals, and is applied found-epoch first. It also
 * carries the run's evaluation ledger (ledger-relay.ts), applied before the arrivals.
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { Subscription } from '@nats-io/transport-node';
import { DEPARTED, HALTED, NO_CUT, RUNNING, SOLVED } from '../../archipelago/coordination.ts';
import type { LocalHost } from '../../archipelago/local-host.ts';
import type { IslandTask } from '../../archipelago/messages.ts';
import { migrationModeOf } from '../../archipelago/modes/registry.ts';
import { SharedMemoryCoordination } from '../../archipelago/shared-memory-coordination.ts';
import type { IslandPorts } from '../../archipelago/transport.ts';
import type { Subjects } from '../bus/connection.ts';
import { carried } from '../bus/carried.ts';
import { type BusMessage } from '../bus/messages.ts';
import type { BusEndpoint } from '../bus/endpoint.ts';
import { Liveness } from '../bus/liveness.ts';
import { heartbeatPeriodMs, unreadMigrantBytes } from '../defaults.ts';
import { PermutationCheck } from '../result-checks.ts';
import { LedgerRelay } from './ledger-relay.ts';
import { MigrantFlow } from './migrant-flow.ts';
import { YoungCollection } from './young-gc.ts';

/** An edge end held by the relay. */
interface RelayPort {
  from: number;
  to: number;
  port: MessagePort;
}

export class IslandRelay {
  private readonly coordination: SharedMemoryCoordination;
  private readonly sync: boolean;
  /** Every migrant must be a permutation of the run's N. */
  private readonly permutations: PermutationCheck;
  private readonly outgoing: RelayPort[] = [];
  /** `${from}>${to}` → the port whose other end island `to` reads. */
  private readonly incoming = new Map<string, MessagePort>();
  private readonly controls: MessagePort[] = [];
  /** The run subjects of the run's other hosts, where state changes go. */
  private readonly peerSubjects: string[];
  /** What each other host of the run has read of the migrants sent to it (a stopped reader is not sent more). */
  private readonly flow: MigrantFlow;
  /** The buffers migrants leave behind on this thread, collected young (young-gc.ts). */
  private readonly young = new YoungCollection();
  private readonly sub: Subscription;
  /** Last published value of each local island's barrier, and of the shared fields. */
  private readonly published = new Map<number, number>();
  private known = { foundEpoch: NO_CUT, stop: RUNNING as number };
  /** The run's evaluation ledger between this host and the others (a budget in sync and lagged modes reads it). */
  private readonly ledger: LedgerRelay;
  /** The hosts of the run heard from so far (see `onBus`). */
  private readonly heard = new Set<string>();
  private watching = true;
  /** Resolves when every island here has ended and its report was sent. */
  readonly done: Promise<void>;
  private terminate: () => void = () => {};
  /** Why the islands here were ended by the host itself (it is leaving); their reports say so. */
  leaving: string | null = null;
  /** The coordinator, silent through MISSED_HEARTBEATS checks of this host's own (bus/liveness.ts), counts as gone. */
  private readonly coordinatorCheck: Liveness<'coordinator'>;

  constructor(
    private readonly bus: BusEndpoint,
    private readonly subjects: Subjects,
    private readonly order: BusMessage<'islands'>,
    /** This host's islands of the order, checked (host.ts `checkOrder`). */
    private readonly tasks: IslandTask[],
    private readonly hostId: string,
    pool: LocalHost,
    /** The host's connection state (bus.ts `connectionState`). */
    connection: { readonly connected: boolean },
    private readonly log: (line: string) => void = () => {},
  ) {
    // Sync and lagged islands wait for migrants (lagged ones for those of one sending iteration, which the message carries).
    this.sync = tasks.some((task) => migrationModeOf(task.run.migration.mode).waitsForMigrants);
    this.permutations = new PermutationCheck(tasks[0].run.n);
    this.peerSubjects = [...new Set(order.hostOf)].filter((host) => host !== hostId).map((host) => subjects.run(order.runId, host));
    this.flow = new MigrantFlow(this.peerSubjects.length, unreadMigrantBytes());
    this.coordination = SharedMemoryCoordination.create(order.islands, true);
    this.ledger = new LedgerRelay(
      this.coordination.ledger!,
      tasks.map((task) => task.island),
      order.islands,
    );
    this.sub = bus.listen(
      subjects.run(order.runId, hostId),
      ['migrants', 'read', 'state', 'alive', 'halt', 'terminate', 'depart'],
      (message, from) => this.onBus(message, from),
    );
    const placements = this.wire();
    // What islands share changes before they say so (a claim, then its solution): a change
    // not yet published goes out first, so a stop never waits behind the claimer's messages.
    const started = pool.start(placements, this.coordination, (bytes) => {
      this.publishChanges();
      this.toCoordinator({ type: 'control', runId: order.runId, bytes });
    });
    this.terminate = started.terminate;
    const sent = started.reports.map((report, i) =>
      report.then(
        (bytes) => this.toCoordinator({ type: 'report', runId: order.runId, island: this.tasks[i].island, bytes, error: null }),
        (error: unknown) =>
          this.toCoordinator({
            type: 'report',
            runId: order.runId,
            island: this.tasks[i].island,
            bytes: null,
            error: this.leaving ?? (error instanceof Error ? error.message : String(error)),
          }),
      ),
    );
    // Migrants also go out as they come, not only when shared state changes: an island whose
    // neighbours have all left still sends, and its port must not fill up. Those queued behind
    // one go with it, so the client writes them to the socket at once (one write, not one each).
    for (const edge of this.outgoing)
      edge.port.on('message', (bytes: Uint8Array) => {
        this.sendMigrants(edge, bytes);
        this.flushEdge(edge);
      });
    void this.watch();
    this.coordinatorCheck = new Liveness(bus.nc, connection, heartbeatPeriodMs(), () => this.stop('the coordinator was lost'));
    this.coordinatorCheck.heard('coordinator');
    this.done = Promise.all(sent).then(() => this.close());
  }

  /** Channels for every edge that touches an island here: island ⇄ island, or island ⇄ relay. */
  private wire() {
    const here = new Set(this.tasks.map((t) => t.island));
    const ports = new Map<number, IslandPorts>();
    const placements = this.tasks.map((task) => {
      const control = new MessageChannel();
      this.controls.push(control.port1);
      const own: IslandPorts = { control: control.port2, inPorts: new Array<MessagePort>(task.sources.length), outPorts: [] };
      ports.set(task.island, own);
      return { task, ports: own, control: control.port1 };
    });
    for (const task of this.tasks) {
      const own = ports.get(task.island)!;
      for (const to of task.targets) {
        const channel = new MessageChannel();
        own.outPorts.push(channel.port1);
        if (here.has(to)) {
          const receiver = this.tasks.find((t) => t.island === to)!;
          ports.get(to)!.inPorts[receiver.sources.indexOf(task.island)] = channel.port2;
        } else {
          this.outgoing.push({ from: task.island, to, port: channel.port2 });
        }
      }
      task.sources.forEach((from, k) => {
        if (here.has(from)) return;
        const channel = new MessageChannel();
        own.inPorts[k] = channel.port2;
        this.incoming.set(`${from}>${task.island}`, channel.port1);
      });
    }
    return placements;
  }

  private toCoordinator(message: BusMessage<'control' | 'report'>): void {
    this.bus.publish(this.subjects.run(this.order.runId, 'coordinator'), message);
  }

  /**
   * To every other host of the run. Not to the coordinator: it has no use for barriers, and
   * learns of a stop from the claim itself (the winner's solution); a copy would only cost it
   * a decode on the same cores, at the moment the other hosts' islands must stop.
   */
  private broadcast(message: BusMessage<'state'>): void {
    for (const subject of this.peerSubjects) this.bus.publish(subject, message);
  }

  /** Sends the migrants islands here have queued for islands elsewhere (before a state change is published). */
  private flushMigrants(): void {
    for (const edge of this.outgoing) this.flushEdge(edge);
  }

  private flushEdge(edge: RelayPort): void {
    for (let m = receiveMessageOnPort(edge.port); m; m = receiveMessageOnPort(edge.port)) this.sendMigrants(edge, m.message as Uint8Array);
  }

  private sendMigrants({ from, to }: RelayPort, bytes: Uint8Array): void {
    const { runId, hostOf } = this.order;
    const admitted = this.flow.admit(hostOf[to], bytes.length);
    if (admitted === 'dropped-first')
      this.log(`run ${runId}: host ${hostOf[to]} stopped reading its migrants; dropping those to it until it reads again`);
    if (admitted !== 'send') return;
    this.young.relayed(bytes.length);
    this.bus.publish(this.subjects.run(runId, hostOf[to]), {
      type: 'migrants',
      runId: this.order.runId,
      from,
      to,
      bytes,
    });
  }

  /** Publishes what changed in the shared memory, each time it changes, until the islands here are done. */
  private async watch(): Promise<void> {
    while (this.watching) {
      const seq = this.coordination.seq();
      this.publishChanges();
      await this.coordination.changed(seq);
    }
  }

  /**
   * A state message: `reached` (island, epoch pairs) and the shared fields as this relay knows
   * them (`known` holds the smaller of its own found-epoch and those it was told, which the
   * shared memory holds too).
   */
  private state(reached: number[], ledger: number[]): BusMessage<'state'> {
    const { foundEpoch, stop } = this.known;
    const { runId } = this.order;
    return {
      type: 'state',
      runId,
      reached,
      foundEpoch,
      stop,
      winner: this.coordination.winner(),
      ledger,
      ledgerFound: this.ledger.knownFound(),
    };
  }

  /** Tells host `to` what was published of the islands here and the shared fields, again: `to` may have missed it. */
  private sendWholeState(to: string): void {
    this.bus.publish(this.subjects.run(this.order.runId, to), this.state([...this.published].flat(), this.ledger.resend()));
  }

  /**
   * Sends queued migrants, then the state that changed since the last call (if any). Async
   * islands wait for no migrant, so there a stop goes out before the migrants queued behind
   * it (their own handlers send them): the other hosts read it sooner.
   */
  private publishChanges(): void {
    const c = this.coordination;
    if (this.sync) this.flushMigrants();
    const reached: number[] = [];
    for (const task of this.tasks) {
      const epoch = c.reached(task.island);
      if (this.published.get(task.island) !== epoch) {
        this.published.set(task.island, epoch);
        reached.push(task.island, epoch);
      }
    }
    // After the arrivals: an island publishes its count before it departs.
    const { ledger, foundChanged } = this.ledger.changes();
    const foundEpoch = c.cut();
    const stop = c.stopState();
    if (reached.length > 0 || ledger.length > 0 || foundChanged || foundEpoch < this.known.foundEpoch || stop !== this.known.stop) {
      this.known = { foundEpoch: Math.min(foundEpoch, this.known.foundEpoch), stop };
      this.broadcast(this.state(reached, ledger));
    }
  }

  /**
   * A message of this run from `from`: the coordinator's (alive, halt, terminate, depart) only
   * from the coordinator that gave the order, migrants and state only from the host of the
   * islands they speak for, and migrants only if each is a permutation of the run's N.
   */
  private onBus(message: BusMessage<'migrants' | 'read' | 'state' | 'alive' | 'halt' | 'terminate' | 'depart'>, from: string): void {
    const { dropped } = this.bus;
    const { hostOf, islands, coordinator } = this.order;
    const fromCoordinator = from === coordinator;
    if (message.runId !== this.order.runId) return void dropped.malformed++;
    if (
      message.type === 'migrants' || message.type === 'read' || message.type === 'state'
        ? fromCoordinator || !hostOf.includes(from) || from === this.hostId
        : !fromCoordinator
    ) {
      return void dropped.unauthenticated++;
    }
    const c = this.coordination;
    if (fromCoordinator) this.coordinatorCheck.heard('coordinator');
    if (message.type === 'migrants') {
      const port = this.incoming.get(`${message.from}>${message.to}`);
      if (!port || hostOf[message.from] !== from) return void dropped.unauthenticated++;
      this.tellRead(from, message.bytes.length);
      this.young.relayed(message.bytes.length);
      const migrants = carried('migrants', message.bytes);
      if (!migrants || migrants.from !== message.from) return void dropped.malformed++;
      if (this.permutations.problem(migrants.genes, migrants.count) !== null) return void dropped.invalid++;
      port.postMessage(message.bytes);
      // A sync or lagged island may be waiting for these; an async one never waits, and a wake-up
      // would only run this relay's own watcher again for nothing, once per migrant.
      if (this.sync) c.notify();
    } else if (message.type === 'read') {
      this.flow.read(from, message.bytes);
    } else if (message.type === 'state') {
      const { reached, winner } = message;
      const own = (island: number) => island >= 0 && island < islands && hostOf[island] === from;
      for (let k = 0; k < reached.length; k += 2)
        if (!own(reached[k]) || !(reached[k + 1] >= -1) || k + 1 === reached.length) return void dropped.malformed++;
      if (winner >= islands || message.foundEpoch < 0) return void dropped.malformed++;
      // The ledger before the arrivals: a departed island's last count must be there.
      if (this.ledger.apply(message.ledger, message.ledgerFound, own) !== null) return void dropped.malformed++;
      // Found-epoch before arrivals: an island passing a barrier must already see it.
      if (message.foundEpoch < this.known.foundEpoch) {
        c.reportCut(message.foundEpoch);
        this.known.foundEpoch = message.foundEpoch;
      }
      if (message.stop === SOLVED && winner >= 0) c.claim(winner);
      if (message.stop === HALTED) c.halt();
      this.known.stop = c.stopState();
      for (let k = 0; k + 1 < reached.length; k += 2) {
        const [island, epoch] = [reached[k], reached[k + 1]];
        if (epoch === DEPARTED) c.depart(island);
        else c.arrive(island, epoch);
      }
      // A host that got its order after this one had published cannot have heard it: core NATS
      // keeps nothing for a subscriber that was not there yet (its islands would wait at the
      // start gate for an arrival long sent). Its first state says it is listening now.
      if (!this.heard.has(from)) {
        this.heard.add(from);
        this.sendWholeState(from);
      }
    } else if (message.type === 'alive') {
      // Only its time matters (above).
    } else if (message.type === 'halt') {
      c.halt();
    } else if (message.type === 'terminate') {
      this.terminate();
    } else {
      for (const island of message.islands) if (island < islands) c.depart(island);
    }
  }

  /** The host leaves: its islands end now and are reported failed with `reason`. */
  stop(reason: string): void {
    this.leaving ??= reason;
    this.terminate();
  }

  /** The broker connection dropped: the run cannot go on (see bus.ts `ConnectionEvents`); the islands here stop within milliseconds. */
  brokerLost(): void {
    this.leaving ??= 'the NATS broker was lost';
    this.coordination.halt();
  }

  /** Says to `from`, every so often, how much of its migrants this host has read (migrant-flow.ts). */
  private tellRead(from: string, bytes: number): void {
    const read = this.flow.received(from, bytes);
    if (read !== null) this.bus.publish(this.subjects.run(this.order.runId, from), { type: 'read', runId: this.order.runId, bytes: read });
  }

  /** '' or, for each host of the run that stopped reading (by id), the migrants it was not sent. */
  unsent(): string {
    const each = this.flow.unsentTo().map(([id, u]) => `${u.messages} migrant messages (${u.bytes} bytes) to host ${id}`);
    return each.length ? `; not sent as their host had stopped reading: ${each.join(', ')}` : '';
  }

  private close(): void {
    this.coordinatorCheck.close();
    // The last changes (a claim, departures) may have come after the watcher's last look.
    this.publishChanges();
    this.flushMigrants();
    this.watching = false;
    this.coordination.notify(); // ends the watcher's wait
    this.sub.unsubscribe();
    for (const port of [...this.controls, ...this.incoming.values(), ...this.outgoing.map((o) => o.port)]) port.close();
  }
}
