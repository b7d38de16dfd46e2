/**
 * The launcher for islands on other machines: it splits a run's islands over hosts of the
 * bus (contiguous blocks, in host order), sends each host its islands' tasks, and gives the
 * archipelago a coordination that talks over the bus. The archipelago drives it exactly as
 * it drives the local pool (src/archipelago/launcher.ts); it never learns where islands run.
 *
 * One winner: in async mode each host's islands claim the stop in their own shared memory
 * and the claim travels to the other hosts; two hosts can both claim within the relay's
 * latency. The coordinator decides: the first valid solution it receives wins (the
 * archipelago's rule); the other claimer is recorded as 'also-solved' (run-result.ts).
 * A host that is lost (no heartbeat, or gone from the bus) fails its islands, as a crashed
 * worker would; `onIslandError` decides whether the run goes on.
 *
 * Core NATS delivers a message only to those subscribed when the broker routes it, so
 * nothing is sent to a host before it can hear it: an order that finds nobody listening (a
 * host that reconnects after a broker restart renews its subscriptions a moment later) is
 * sent again at the host's next heartbeat, and what the run tells its hosts (halt,
 * terminate, departures) waits for each host's acceptance, which it sends once subscribed.
 * No wait is unbounded: an order has ACCEPT_TIMEOUT_MS, and islands told to terminate have
 * MISSED_HEARTBEATS heartbeat periods to report, or fail.
 */
import { randomBytes } from 'node:crypto';
import { encode } from '../../archipelago/codec.ts';
import { HALTED, RUNNING, type Coordination, type StopState } from '../../archipelago/coordination.ts';
import type { LaunchedRun, LaunchPlan, Launcher, LaunchReport } from '../../archipelago/launcher.ts';
import type { IslandReport } from '../../archipelago/messages.ts';
import { watchConnection, type Subjects } from '../bus/connection.ts';
import { CLUSTER_CAPABILITIES, heartbeatPeriodMs, MISSED_HEARTBEATS } from '../defaults.ts';
import { carried } from '../bus/carried.ts';
import { type BusMessage } from '../bus/messages.ts';
import type { BusEndpoint } from '../bus/endpoint.ts';
import type { HostDirectory, KnownHost } from '../leases/host-directory.ts';
import { safeText } from '../bus/text.ts';
import { bestMessageProblem, reportProblem, solutionProblem } from '../result-checks.ts';

/** How long a host has to accept its islands. */
const ACCEPT_TIMEOUT_MS = 10_000;

/**
 * Island ids 0..islands-1 in contiguous blocks over hosts, in proportion to the islands each
 * offers (largest remainders, ties to the first host): 4 islands on hosts offering 1 and 3
 * go 0 | 1 2 3. Returns each island's host index.
 */
export function placeIslands(islands: number, offered: readonly number[]): number[] {
  const total = offered.reduce((a, b) => a + b, 0);
  const exact = offered.map((k) => (islands * k) / total);
  const counts = exact.map(Math.floor);
  const byRemainder = exact.map((x, h) => h).sort((a, b) => exact[b] - counts[b] - (exact[a] - counts[a]) || a - b);
  for (let k = 0, left = islands - counts.reduce((a, b) => a + b, 0); k < left; k++) counts[byRemainder[k]]++;
  return counts.flatMap((count, h) => new Array<number>(count).fill(h));
}

/**
 * The coordinator's side of a run's coordination, over the bus. Its stop is only its own
 * halt: a claim travels from host to host, and the coordinator learns of it from the claimer's
 * solution, so it follows none of the hosts' shared state.
 */
class BusCoordination implements Coordination {
  private stop: StopState = RUNNING;
  private readonly counts: number[];
  constructor(
    readonly islands: number,
    private readonly publishHalt: () => void,
  ) {
    this.counts = new Array<number>(islands).fill(0);
  }
  stopState(): StopState {
    return this.stop;
  }
  halt(): boolean {
    if (this.stop !== RUNNING) return false;
    this.stop = HALTED;
    this.publishHalt();
    return true;
  }
  requestCheckpoint(): number {
    throw new Error('checkpoints are not taken of islands on other hosts');
  }
  iterations(island: number): number {
    return this.counts[island];
  }
  /** From the hosts: a newer count. */
  seen(island: number, iterations: number): void {
    if (iterations > this.counts[island]) this.counts[island] = iterations;
  }
}

/** How an island's report promise is settled, once. */
interface Settle {
  resolve: (report: IslandReport) => void;
  reject: (error: Error) => void;
  done: boolean;
}

/**
 * One launched run on the coordinator's side: which host has which islands, what each host
 * has answered and must still hear, and each island's outcome.
 */
class HostedRun {
  readonly runId = randomBytes(8).toString('hex');
  /** Each island's index in `hosts`. */
  readonly hostIndex: number[];
  /** Only the hosts that got islands. */
  readonly hosts: KnownHost[];
  /** Each island's host id. */
  readonly hostOf: string[];
  readonly coordination: BusCoordination;
  readonly reports: Promise<IslandReport>[];
  private readonly n: number;
  private readonly islands: number;
  /** Per host: 'waiting' for its answer to the order (what it must hear is kept in `due`), 'accepted', or 'failed' (told nothing more). */
  private readonly answered: ('waiting' | 'accepted' | 'failed')[];
  private readonly due: BusMessage<'halt' | 'terminate' | 'depart'>[][];
  private readonly settles: Settle[];

  constructor(
    private readonly bus: BusEndpoint,
    private readonly subjects: Subjects,
    allHosts: readonly KnownHost[],
    private readonly plan: LaunchPlan,
  ) {
    this.n = plan.tasks[0].run.n;
    this.islands = plan.tasks.length;
    const hostIndex = placeIslands(
      this.islands,
      allHosts.map((h) => h.islands),
    );
    // Only hosts that got islands take part.
    const hosts = allHosts.filter((_, h) => hostIndex.includes(h));
    hostIndex.forEach((h, island) => (hostIndex[island] = hosts.indexOf(allHosts[h])));
    this.hostIndex = hostIndex;
    this.hosts = hosts;
    this.hostOf = hostIndex.map((h) => hosts[h].id);
    this.answered = hosts.map(() => 'waiting');
    this.due = hosts.map(() => []);
    this.coordination = new BusCoordination(this.islands, () => this.toHosts({ type: 'halt', runId: this.runId }));
    this.settles = plan.tasks.map(() => ({ resolve: () => {}, reject: () => {}, done: false }));
    this.reports = this.settles.map((s) => new Promise<IslandReport>((resolve, reject) => Object.assign(s, { resolve, reject })));
  }

  toHosts(message: BusMessage<'alive' | 'halt' | 'terminate' | 'depart'>): void {
    this.hosts.forEach((host, h) => {
      if (this.answered[h] === 'accepted') this.bus.publish(this.subjects.run(this.runId, host.id), message);
      else if (this.answered[h] === 'waiting' && message.type !== 'alive') this.due[h].push(message);
    });
  }

  /** The host accepted: it listens on its run subject now; it hears first what it missed, in order. */
  accept(h: number): void {
    this.answered[h] = 'accepted';
    for (const message of this.due[h].splice(0)) this.bus.publish(this.subjects.run(this.runId, this.hosts[h].id), message);
  }

  settle(island: number, outcome: IslandReport | Error): void {
    const s = this.settles[island];
    if (!s || s.done) return;
    s.done = true;
    if (outcome instanceof Error) s.reject(outcome);
    else s.resolve(outcome);
  }

  /** Fails every unsettled island of host `h` and tells the others not to wait for them. */
  failHost(h: number, reason: string): void {
    if (this.answered[h] === 'waiting') {
      this.answered[h] = 'failed';
      this.due[h].length = 0;
    }
    const lost = this.hostIndex.flatMap((owner, island) => (owner === h && !this.settles[island].done ? [island] : []));
    for (const island of lost) this.settle(island, new Error(reason));
    if (lost.length > 0) this.toHosts({ type: 'depart', runId: this.runId, islands: lost });
  }

  unsettled(h: number): boolean {
    return this.hostIndex.some((owner, island) => owner === h && !this.settles[island].done);
  }

  /** Host `h`'s order: its islands' tasks. */
  order(h: number): BusMessage<'islands'> {
    return {
      type: 'islands',
      runId: this.runId,
      coordinator: this.bus.codec.self,
      islands: this.islands,
      hostOf: this.hostOf,
      // Without extension modules: a host runs only those it was started with (it refuses an entry it lacks).
      tasks: this.plan.tasks.filter((_, island) => this.hostIndex[island] === h).map(({ extensions: _urls, ...task }) => encode(task)),
    };
  }

  /**
   * What the run's hosts send, each about its own islands only. Results are checked where
   * they land: a solution with the independent validator, a best and a report's fitness
   * recomputed; a claim that fails is dropped and counted.
   */
  hear(message: BusMessage<'control' | 'report'>, from: string): void {
    const { dropped } = this.bus;
    if (message.runId !== this.runId) return void dropped.malformed++;
    if (!this.hostOf.includes(from)) return void dropped.unauthenticated++;
    if (message.type === 'control') return this.control(message.bytes, from);
    if (!this.owns(from, message.island)) return void dropped.unauthenticated++;
    if (!message.bytes) return this.settle(message.island, new Error(safeText(message.error ?? 'failed', 500)));
    // A report that fails is dropped, not taken as the island's end: a forged one must not end a real island.
    const report = carried('report', message.bytes);
    if (!report || report.island !== message.island) return void dropped.malformed++;
    if (reportProblem(report, this.n)) return void dropped.invalid++;
    this.coordination.seen(report.island, report.iterations);
    // Only this coordinator halts its run: an island halted while it did not was stopped by a forged halt, not by a limit.
    if (report.stopReason === 'stopped' && this.coordination.stopState() === RUNNING)
      return this.settle(message.island, new Error('stopped by a halt this coordinator did not send (forged on the bus?)'));
    this.settle(message.island, report);
  }

  private control(bytes: Uint8Array, from: string): void {
    const { dropped } = this.bus;
    const control = carried('control', bytes);
    if (!control) return void dropped.malformed++;
    if (!this.owns(from, control.island)) return void dropped.unauthenticated++;
    if (control.type === 'best' && bestMessageProblem(control, this.n)) return void dropped.invalid++;
    if (control.type === 'solution' && solutionProblem(control.genes, this.n)) return void dropped.invalid++;
    if (control.type === 'progress') this.coordination.seen(control.island, control.iteration);
    this.plan.onControl(control);
  }

  private owns(from: string, island: number): boolean {
    return this.hostOf[island] === from;
  }
}

export class ClusterLauncher implements Launcher {
  readonly capabilities = CLUSTER_CAPABILITIES;
  /** Host name of each island of the last launched run. */
  private placement: string[] = [];
  /** The broker was lost during the last run (a later run on a reconnected client may go on). */
  private brokerLost = false;
  /** Set before the coordinator disconnects on purpose, so that is not taken for a lost broker. */
  closing = false;
  /** Ends the current run's islands when the connection drops (bus.ts `watchConnection`). */
  private lost: (() => void) | null = null;
  private connected = true;
  private readonly waiting: (() => void)[] = [];
  /** Reconnected since the leases were last renewed before a run. */
  private reconnected = false;
  /** Hosts whose lease was lost while the broker was away (another coordinator has them now): not ours to use. */
  private readonly unleased = new Set<string>();

  constructor(
    private readonly bus: BusEndpoint,
    private readonly subjects: Subjects,
    private readonly hosts: readonly KnownHost[],
    private readonly directory: HostDirectory,
    /** One line when the coordinator waits for something (a host not yet listening). */
    private readonly log: (line: string) => void = () => {},
    /** Renews the hosts' leases; the ids of those lost (host-lease.ts `renew`). */
    private readonly renewLeases: () => Promise<readonly string[]> = () => Promise.resolve([]),
  ) {
    const { nc } = bus;
    // Lost at the first disconnect, not after the reconnect attempts: what was sent meanwhile is gone for good.
    watchConnection(nc, {
      disconnect: () => {
        this.connected = false;
        if (!this.closing) this.lost?.();
      },
      reconnect: () => {
        this.connected = true;
        this.reconnected = true;
        for (const wake of this.waiting.splice(0)) wake();
      },
    });
    // Given up reconnecting: a run waiting for the connection (see `connection`) is lost too.
    void nc.closed().then(() => {
      this.connected = false;
      if (!this.closing) this.lost?.();
    });
  }

  report(): LaunchReport {
    const { malformed, incompatible, unauthenticated, invalid } = this.bus.dropped;
    return {
      placement: [...this.placement],
      brokerLost: this.brokerLost,
      dropped: { malformed, foreign: incompatible, unauthenticated, invalid },
    };
  }

  /** Resolves once the client is connected: a run launched while it reconnects (after a broker restart) starts when it is back. */
  private connection(): Promise<void> {
    return this.connected ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }

  /**
   * After a reconnect the leases are renewed before any order: a broker restarted without its
   * memory has lost them (they are created again), and a host another coordinator leased
   * meanwhile is not ours any more.
   */
  private async leased(): Promise<void> {
    if (!this.reconnected) return;
    this.reconnected = false;
    const lost = await this.renewLeases().catch(() => []);
    for (const id of lost) this.unleased.add(id);
  }

  /**
   * Whether `host` was heard (a heartbeat) after now and before `deadline`, while `wanted()`.
   * A host renews its subscriptions before it beats again after a reconnect, so by then
   * the broker routes its orders to it.
   */
  private async heardAgain(host: KnownHost, deadline: number, wanted: () => boolean): Promise<boolean> {
    const since = Date.now();
    while (wanted() && !this.bus.nc.isClosed()) {
      if ((this.directory.hosts.get(host.id)?.lastSeen ?? 0) > since) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.directory.nextBeat(left);
    }
    return false;
  }

  launch(plan: LaunchPlan): LaunchedRun {
    const { bus, subjects } = this;
    const { nc } = bus;
    const run = new HostedRun(bus, subjects, this.hosts, plan);
    const { runId, hosts, coordination } = run;
    this.placement = run.hostIndex.map((h) => hosts[h].name);
    // A client that gave up reconnecting takes no subscription (it would throw): the run is lost below, not an error.
    const sub = nc.isClosed()
      ? null
      : bus.listen(subjects.run(runId, 'coordinator'), ['control', 'report'], (message, from) => run.hear(message, from));
    const previous = this.directory.events.onGone;
    this.directory.events.onGone = (host, how) => {
      previous?.(host, how);
      const h = hosts.findIndex((k) => k.id === host.id);
      if (h >= 0) run.failHost(h, `host ${host.name} ${how === 'lost' ? 'was lost (no heartbeat)' : 'left'}`);
    };
    this.brokerLost = false;
    this.lost = () => {
      this.brokerLost = true;
      hosts.forEach((_, h) => run.failHost(h, 'the NATS broker was lost'));
    };
    // A connection that gave up reconnecting before this run: nothing can reach the hosts.
    if (nc.isClosed()) this.lost();

    // Each host gets its islands' tasks; a host that refuses or does not answer fails its islands.
    void this.connection()
      .then(() => this.leased())
      .then(() => {
        if (nc.isClosed()) return;
        hosts.forEach((host, h) => {
          if (this.unleased.has(host.id)) run.failHost(h, `host ${host.name} was leased by another coordinator while the broker was away`);
          else void this.sendOrder(run, h, run.order(h), Date.now() + ACCEPT_TIMEOUT_MS);
        });
      });

    // Hosts end the islands of a coordinator that went silent (killed), instead of running them forever:
    // `alive` at the hosts' own period, whatever heartbeatMs this coordinator was given.
    const alive = setInterval(() => run.toHosts({ type: 'alive', runId }), heartbeatPeriodMs());
    let terminated: NodeJS.Timeout | undefined;
    return {
      coordination,
      reports: run.reports,
      terminate: () => {
        run.toHosts({ type: 'terminate', runId });
        // A local worker is killed at once; islands elsewhere get a bound too: a host that does not report them fails them.
        terminated ??= setTimeout(
          () => hosts.forEach((host, h) => run.failHost(h, `host ${host.name} did not report its islands after they were terminated`)),
          MISSED_HEARTBEATS * this.directory.heartbeatMs,
        );
      },
      release: () => {
        this.lost = null;
        clearInterval(alive);
        clearTimeout(terminated);
        sub?.unsubscribe();
        this.directory.events.onGone = previous;
      },
      threads: null, // the hosts' (the record's `hosts` names them)
    };
  }

  /**
   * Sends host `h` of `run` its `order` and takes its answer by `deadline`; a refusal or no
   * answer fails its islands. `said`: the wait for a host not listening was logged already.
   */
  private async sendOrder(run: HostedRun, h: number, order: BusMessage<'islands'>, deadline: number, said = false): Promise<void> {
    const { bus } = this;
    const { runId } = run;
    const host = run.hosts[h];
    // Only the ordered host's answer about this run counts: another reply (a party without the key answering first) is dropped.
    const answer = await bus.requestFrom(
      this.subjects.islands(host.id),
      order,
      ['accepted', 'refused'],
      (message, from) => from === host.id && message.runId === runId,
      Math.max(1, deadline - Date.now()),
    );
    if (answer.kind === 'answer') {
      if (answer.message.type === 'refused') run.failHost(h, safeText(answer.message.reason, 500));
      else run.accept(h);
      return;
    }
    // Nobody subscribed to the host's orders (yet): it has not heard this one; ask again once it beats.
    if (answer.kind === 'no-responders' && run.unsettled(h)) {
      if (!said) this.log(`host ${host.name} is not listening for orders yet (reconnecting?): asking again at its next heartbeat`);
      if (await this.heardAgain(host, deadline, () => run.unsettled(h))) return this.sendOrder(run, h, order, deadline, true);
    }
    const why =
      answer.kind === 'timeout' && answer.foreign ? `it runs ${answer.foreign}` : answer.kind === 'timeout' ? 'timeout' : 'no responders';
    run.failHost(h, `host ${host.name} did not accept its islands (${why})${bus.keyHint()}`);
  }
}
