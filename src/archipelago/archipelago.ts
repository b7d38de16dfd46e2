import { Observable, Subject } from 'rxjs';
import { allocGenes, toOneBased, type Genes } from '../problem/genes.ts';
import { validateSolution } from '../problem/validate.ts';
import { CheckpointRequests } from './checkpoint-requests.ts';
import { RUNNING, type Coordination } from './coordination.ts';
import { IslandFailedError } from './errors.ts';
import type { ArchipelagoEvent, ArchipelagoResult } from './events.ts';
import { islandRunOf } from './island-options.ts';
import { scheduledAtOrBefore, wallClock } from './schedule.ts';
import type { LaunchedRun, Launcher } from './launcher.ts';
import { LocalHost } from './local-host.ts';
import type { BestMessage, ControlMessage, IslandReport, IslandTask } from './messages.ts';
import { migrationEvents } from './migration-log.ts';
import { BetweenTracker } from './observables/between.ts';
import { SURVIVAL_ITERATIONS, survivalRecords } from './observables/survival.ts';
import type { CoordinatorRules } from './modes/define.ts';
import { checkOptions, DEFAULT_PROGRESS_INTERVAL_MS, STOP_GRACE_MS, type ArchipelagoOptions } from './options.ts';
import { buildResult, earliestFinder, heldAt, type Failure, type Winner } from './run-result.ts';
import { edgesOf, sourcesOf, targetsOf, type Edge } from '../topology/topology.ts';

export type { ArchipelagoOptions } from './options.ts';
export type { IslandGroup, MigrationOptions, RunLimits, RunSpec } from './island-options.ts';
export type * from './events.ts';

export interface Archipelago {
  /** Every event of the run, ending with `done`. Subscribe right after starting (it is not replayed). */
  events$: Observable<ArchipelagoEvent>;
  /** Resolves when every island has stopped; rejects with IslandFailedError under `onIslandError: 'fail'`. */
  result: Promise<ArchipelagoResult>;
  /** Asks every island to stop (idempotent). */
  stop(): void;
}

/**
 * Starts the archipelago: builds the topology and one task per island, has a launcher put
 * them on a host (by default a local worker pool made for this run and closed after it),
 * and turns what the islands send into one event stream and a result. Throws at once on
 * bad options.
 */
export function startArchipelago(options: ArchipelagoOptions): Archipelago {
  const mode = checkOptions(options);
  const { topology, islands, seed } = options.run;
  const edges = edgesOf(topology, islands, seed);
  const ownHost = options.launcher ? null : new LocalHost(islands, options.threads ? { threads: options.threads } : {});
  const run = new ArchipelagoRun(options, mode.coordinator, edges, options.launcher ?? ownHost!);
  const result = run.result.finally(() => ownHost?.close());
  result.catch(() => {}); // rejections belong to whoever awaits `result`; never an unhandled one
  return { events$: run.events$, result, stop: () => run.halt() };
}

/** What one island runs, from the options and the topology's edges: its run (its group's settings in place), and its place. */
function islandTasks(options: ArchipelagoOptions, edges: readonly Edge[]): IslandTask[] {
  return Array.from({ length: options.run.islands }, (_, island) => ({
    type: 'task',
    island,
    run: islandRunOf(options.run, island),
    progressIntervalMs: options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    sources: sourcesOf(edges, island),
    targets: targetsOf(edges, island),
    snapshot: options.resume?.[island] ?? null,
    ...(options.extensions?.length ? { extensions: options.extensions } : {}),
  }));
}

/** One run of the archipelago: the coordinator's state between launch and result. */
class ArchipelagoRun {
  private readonly subject = new Subject<ArchipelagoEvent>();
  readonly events$ = this.subject.asObservable();
  readonly result: Promise<ArchipelagoResult>;
  private readonly islands: number;
  /** The winner is the first finder by (iteration, island), from the reports; nobody claims (the mode's winner rule). */
  private readonly firstFinder: boolean;
  /** Checkpoints, and survival records, are at epoch barriers (the mode's checkpoint policy). */
  private readonly atBarriers: boolean;
  private readonly launched: LaunchedRun;
  private readonly coordination: Coordination;
  private readonly launchedAt = wallClock();
  /** When the last island passed the start gate (so far): the search's clock starts here. */
  private searchFrom: number | null = null;
  private readonly reports: (IslandReport | null)[];
  private readonly failures: (Failure | null)[];
  /** The best each island has reported so far (what counts for an island that ends without a report). */
  private readonly lastBest: (BestMessage | null)[];
  /** Each island's evaluations at its last progress message (what counts for an island without a report). */
  private readonly lastEvaluations: number[];
  private readonly checkpoints: CheckpointRequests;
  private readonly between: BetweenTracker;
  /** Takeover mode: each island's takeover iteration as last reported (-1: not yet); null for other modes. */
  private takeover: number[] | null = null;
  /** Takeover mode, every island taken over: the run halts once every island still going has sampled this iteration (see onTakeover). */
  private haltAfterSample: number | null = null;
  /** Each island's iteration at its last progress message (-1: none yet). */
  private readonly sampledTo: number[];
  private fatal: IslandFailedError | null = null;
  /** Async: the claimer's validated solution, as soon as its message arrives. */
  private claimed: Winner | null = null;
  private invalidClaim = false;
  private haltedAt: number | null = null;
  private startedIslands = 0;
  /** Workers are being terminated after the stop's grace period. */
  private terminating = false;
  private finished = false;
  private graceTimer: NodeJS.Timeout | undefined;
  private readonly timeLimit: NodeJS.Timeout | undefined;
  private readonly checkpointTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ArchipelagoOptions,
    private readonly rules: CoordinatorRules,
    private readonly edges: readonly Edge[],
    launcher: Launcher,
  ) {
    const { islands, limits } = options.run;
    this.islands = islands;
    this.firstFinder = rules.winner === 'first-finder';
    this.atBarriers = rules.checkpoints === 'barrier';
    this.reports = new Array<IslandReport | null>(this.islands).fill(null);
    this.failures = new Array<Failure | null>(this.islands).fill(null);
    this.lastBest = new Array<BestMessage | null>(this.islands).fill(null);
    this.lastEvaluations = new Array<number>(this.islands).fill(0);
    this.sampledTo = new Array<number>(this.islands).fill(-1);
    this.checkpoints = new CheckpointRequests(this.islands);
    this.between = new BetweenTracker(this.islands);
    this.launched = launcher.launch({
      tasks: islandTasks(options, edges),
      onControl: (message) => this.onControl(message),
      threads: options.threads ?? null,
    });
    this.coordination = this.launched.coordination;
    this.timeLimit = limits.timeLimit !== null ? setTimeout(() => this.halt(), limits.timeLimit * 1000) : undefined;
    this.checkpointTimer =
      options.checkpointEveryMs !== undefined ? setInterval(() => this.requestCheckpoint(), options.checkpointEveryMs) : undefined;
    const ends = this.launched.reports.map((report, island) =>
      report.then(
        (r) => this.onReport(r),
        (error: unknown) => this.onFailure(island, error),
      ),
    );
    this.result = Promise.allSettled(ends).then((outcomes) => this.finish(outcomes));
  }

  /** Seconds of search at wall time `at`. */
  private seconds(at = wallClock()): number {
    return Math.max(0, at - (this.searchFrom ?? this.launchedAt)) / 1000;
  }

  private emit(event: ArchipelagoEvent): void {
    this.subject.next(event);
  }

  halt(): void {
    if (this.finished) return;
    if (this.coordination.halt()) this.haltedAt = wallClock();
    this.startGrace();
  }

  /** Islands stop by themselves within milliseconds; terminate workers only if one does not. */
  private startGrace(): void {
    if (this.graceTimer || this.finished) return;
    this.graceTimer = setTimeout(() => {
      this.terminating = true;
      this.launched.terminate();
    }, STOP_GRACE_MS);
  }

  /** After an island has failed no request could complete, so none is made. */
  private requestCheckpoint(): void {
    if (
      this.startedIslands < this.islands ||
      !this.checkpoints.idle ||
      this.failures.some((f) => f !== null) ||
      this.coordination.stopState() !== RUNNING
    )
      return;
    this.checkpoints.open(this.coordination.requestCheckpoint());
  }

  private validated(island: number, genes: Genes): number[] | null {
    const tuple = toOneBased(genes);
    const check = validateSolution(tuple, this.options.run.n);
    if (check.valid) return tuple;
    this.emit({
      type: 'island-error',
      island,
      iteration: this.coordination.iterations(island),
      message: `reported an invalid solution: ${check.reason}`,
      fatal: false,
    });
    return null;
  }

  private emitMigrations(records: Int32Array, survivals: Int32Array): void {
    for (const event of migrationEvents(records, this.rules.numbersMigrations)) this.emit(event);
    for (const r of survivalRecords(survivals))
      this.emit({ type: 'survival', ...r, epoch: this.atBarriers ? r.epoch : null, after: SURVIVAL_ITERATIONS });
  }

  /**
   * Takeover mode: records an island's takeover. Once every island is taken over the run has
   * its answer and stops, at a point of the schedule rather than wherever the halt finds the
   * islands: it halts when every island still going has sent its sample of the last scheduled
   * iteration at or before the takeover, so the record's `between` series is complete to the
   * takeover (record-cut.ts drops what comes after) and the same on every rerun.
   */
  private onTakeover(island: number, iteration: number): void {
    this.takeover ??= new Array<number>(this.islands).fill(-1);
    this.takeover[island] = iteration;
    if (this.haltAfterSample === null && this.takeover.every((t) => t >= 0))
      this.haltAfterSample = scheduledAtOrBefore(Math.max(...this.takeover));
    this.haltIfSampled();
  }

  /** Halts a taken-over run once no island still going lacks its sample of `haltAfterSample` (an island's samples arrive in order). */
  private haltIfSampled(): void {
    const at = this.haltAfterSample;
    if (at === null) return;
    for (let k = 0; k < this.islands; k++) if (!this.reports[k] && !this.failures[k] && this.sampledTo[k] < at) return;
    this.halt();
  }

  private onControl(message: ControlMessage): void {
    if (message.type === 'snapshot') {
      const snapshots = this.checkpoints.answer(message);
      if (snapshots)
        this.emit({
          type: 'checkpoint',
          mode: this.options.run.migration.mode,
          epoch: this.atBarriers ? snapshots[0].epoch : null,
          islands: snapshots,
          seconds: this.seconds(),
        });
    } else if (message.type === 'best') {
      this.lastBest[message.island] = message;
    } else if (message.type === 'started') {
      this.searchFrom = Math.max(this.searchFrom ?? message.time, message.time);
      if (++this.startedIslands === this.islands)
        this.emit({ type: 'started', islands: this.islands, seconds: (this.searchFrom - this.launchedAt) / 1000 });
    } else if (message.type === 'progress') {
      this.emitMigrations(message.migrations, message.survivals);
      this.lastEvaluations[message.island] = message.evaluations;
      this.sampledTo[message.island] = message.iteration;
      const { type: _t, migrations: _m, survivals: _s, observation, time, ...stats } = message;
      this.emit({ type: 'progress', ...stats, seconds: this.seconds(time) });
      const between = observation ? this.between.add(message.island, message.iteration, observation) : null;
      if (between) this.emit({ type: 'between', ...between, seconds: this.seconds(time) });
      if (message.takenOverAt !== undefined) this.onTakeover(message.island, message.takenOverAt);
      else this.haltIfSampled();
    } else if (message.type === 'solution' && !this.claimed && !this.invalidClaim) {
      const solution = this.validated(message.island, message.genes);
      if (!solution) {
        this.invalidClaim = true;
        return;
      }
      this.claimed = { island: message.island, iteration: message.iteration, solution, foundAt: message.foundAt };
      // A best so far no longer counts once a solution is claimed: its chromosomes (N genes an
      // island) need not wait for the result beside the solution (docs/large-n.md).
      this.lastBest.forEach((b, i) => (this.lastBest[i] = b && { ...b, best: allocGenes(0) }));
      this.emit({
        type: 'solution',
        island: message.island,
        iteration: message.iteration,
        solution,
        seconds: this.seconds(message.foundAt),
      });
      this.startGrace();
    }
  }

  private onReport(report: IslandReport): void {
    this.reports[report.island] = report;
    this.emitMigrations(report.migrations, report.survivals);
    this.haltIfSampled();
    if (report.stopReason === 'solved' && !this.firstFinder) this.startGrace(); // the others are stopping now
  }

  private onFailure(island: number, error: unknown): void {
    const iteration = this.coordination.iterations(island);
    const reason = this.terminating
      ? `did not stop within ${STOP_GRACE_MS} ms of the stop and was terminated`
      : error instanceof Error
        ? error.message
        : String(error);
    this.failures[island] = { message: reason, iteration };
    this.haltIfSampled();
    const isFatal = this.options.run.onIslandError === 'fail' && !this.terminating;
    this.emit({ type: 'island-error', island, iteration, message: reason, fatal: isFatal });
    if (isFatal && !this.fatal) {
      this.fatal = new IslandFailedError(island, iteration, reason);
      this.halt();
    }
  }

  /** Every island has ended. allSettled: even if handling one island's end threw (a bug), timers and channels are cleaned up first. */
  private finish(outcomes: PromiseSettledResult<void>[]): ArchipelagoResult {
    this.finished = true;
    clearTimeout(this.timeLimit);
    clearInterval(this.checkpointTimer);
    clearTimeout(this.graceTimer);
    this.launched.release();
    const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (broken) {
      this.subject.complete();
      throw broken.reason;
    }
    const result = buildResult({
      reports: this.reports,
      failures: this.failures,
      lastBest: this.lastBest,
      lastEvaluations: this.lastEvaluations,
      // A run nobody claimed may still hold a solution (async islands stopped before they
      // looked at their initial population): it is one, validated, whatever ended the run.
      winner: this.firstFinder ? this.finderWinner() : (this.claimed ?? this.finderWinner()),
      // Modes that stop at a cut without counting through the winner (lagged) have their islands report their counters there.
      countsThroughWinner: this.rules.countsThroughWinner,
      haltedAt: this.haltedAt,
      iterations: (island) => this.coordination.iterations(island),
      launchedAt: this.launchedAt,
      searchFrom: this.searchFrom,
      now: wallClock(),
      edges: this.edges.length,
      threads: this.launched.threads,
      between: this.between.series(),
    });
    if (result.solved && (this.firstFinder || !this.claimed)) {
      this.emit({
        type: 'solution',
        island: result.foundBy!,
        iteration: result.foundAtIteration!,
        solution: result.solution!,
        seconds: result.foundAtSeconds!,
      });
    }
    this.emit({ type: 'done', result });
    this.subject.complete();
    if (this.fatal) {
      this.fatal.result = result;
      throw this.fatal;
    }
    return result;
  }

  private finderWinner(): Winner | null {
    const finder = earliestFinder(this.reports);
    const solution = finder ? this.validated(finder.island, finder.solution!) : null;
    return finder && solution
      ? { island: finder.island, iteration: heldAt(finder), solution, foundAt: finder.foundAt || finder.stoppedAt }
      : null;
  }
}
