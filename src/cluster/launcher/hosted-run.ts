/**
 * One launched run on the coordinator's side (cluster-launcher.ts launches it): where its
 * islands go (`placeIslands`), the coordination the archipelago sees (`BusCoordination`),
 * and what each host has answered and must still hear, with each island's outcome
 * (`HostedRun`).
 */
import { randomBytes } from 'node:crypto';
import { encode } from '../../archipelago/codec.ts';
import { HALTED, RUNNING, type Coordination, type StopState } from '../../archipelago/coordination.ts';
import type { LaunchPlan } from '../../archipelago/launcher.ts';
import type { IslandReport } from '../../archipelago/messages.ts';
import type { Subjects } from '../bus/connection.ts';
import { carried } from '../bus/carried.ts';
import { type BusMessage } from '../bus/messages.ts';
import type { BusEndpoint } from '../bus/endpoint.ts';
import type { KnownHost } from '../leases/host-directory.ts';
import { safeText } from '../bus/text.ts';
import { bestMessageProblem, reportProblem, solutionProblem } from '../result-checks.ts';

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
  /** Every host's relay carries the evaluation ledger between hosts (ledger-relay.ts). */
  readonly keepsLedger = true;
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
export class HostedRun {
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
    // An island already failed (its host taken for lost, then back from a stop) no longer counts in the run's record.
    if (this.settles[control.island].done) return;
    if (control.type === 'best' && bestMessageProblem(control, this.n)) return void dropped.invalid++;
    if (control.type === 'solution' && solutionProblem(control.genes, this.n)) return void dropped.invalid++;
    if (control.type === 'progress') this.coordination.seen(control.island, control.iteration);
    this.plan.onControl(control);
  }

  private owns(from: string, island: number): boolean {
    return this.hostOf[island] === from;
  }
}
