import { Observable, Subject } from 'rxjs';
import { allocGenes, backToGenes, toRows, toRowsInPlace, type Genes, type Rows } from '../problem/genes.ts';
import { validateSolution } from '../problem/validate.ts';
import { CheckpointRequests } from './checkpoint-requests.ts';
import { RUNNING, type Coordination } from './coordination.ts';
import { IslandFailedError } from './errors.ts';
import type { ArchipelagoEvent, ArchipelagoResult } from './events.ts';
import { islandRunOf } from './island-options.ts';
import { scheduledAtOrBefore, wallClock } from './schedule.ts';
import type { LaunchedRun, Launcher } from './launcher.ts';
import { LocalHost } from './local-host.ts';
import type { ControlMessage, IslandReport, IslandTask, ProgressMessage } from './messages.ts';
import { migrationEvents } from './migration-log.ts';
import { BetweenTracker } from './observables/between.ts';
import { SURVIVAL_ITERATIONS, survivalRecords } from './observables/survival.ts';
import type { CoordinatorRules } from './modes/define.ts';
import { checkOptions, DEFAULT_PROGRESS_INTERVAL_MS, STOP_GRACE_MS, type ArchipelagoOptions } from './options.ts';
import { buildResult } from './run-result.ts';
import { migrantsInFlight } from './in-flight.ts';
import { IslandEnds, StopSchedule, WinnerTracker } from './coordinator-state.ts';
import { NO_HOOK, type GaCoordinatorHook } from '../ga/modes/coordinator-hook.ts';
import type { GaModeDefinition } from '../ga/modes/define.ts';
import { GA_MODE_REGISTRY } from '../ga/modes/registry.ts';
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
  const edges = edgesOf(topology, islands, seed, options.topologies);
  const ownHost = options.launcher ? null : new LocalHost(islands, options.threads ? { threads: options.threads } : {});
  const gaMode = (options.gaModes ?? GA_MODE_REGISTRY).find((m) => m.kind === options.run.ga.mode);
  const run = new ArchipelagoRun(options, mode.coordinator, gaMode, edges, options.launcher ?? ownHost!, mode.repeatable);
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
    ...(options.checkpointAtIteration !== undefined ? { checkpointFrom: options.checkpointAtIteration } : {}),
    ...(options.resume ? { arriving: migrantsInFlight(options.resume, island, sourcesOf(edges, island)) } : {}),
    ...(options.extensions?.length ? { extensions: options.extensions } : {}),
    ...(options.run.lineage === false ? { lineage: false } : {}),
  }));
}

/** One run of the archipelago: the coordinator's state between launch and result, in named trackers. */
class ArchipelagoRun {
  private readonly subject = new Subject<ArchipelagoEvent>();
  readonly events$ = this.subject.asObservable();
  readonly result: Promise<ArchipelagoResult>;
  private readonly islands: number;
  /** Checkpoints, and survival records, are at epoch barriers (the mode's checkpoint policy). */
  private readonly atBarriers: boolean;
  private readonly launched: LaunchedRun;
  private readonly coordination: Coordination;
  private readonly launchedAt = wallClock();
  private readonly ends: IslandEnds;
  private readonly winner: WinnerTracker;
  private readonly stops: StopSchedule;
  private readonly checkpoints: CheckpointRequests;
  private readonly between: BetweenTracker;
  /** The run's GA mode's part of the coordinator. */
  private readonly gaMode: GaCoordinatorHook;
  private fatal: IslandFailedError | null = null;

  constructor(
    private readonly options: ArchipelagoOptions,
    private readonly rules: CoordinatorRules,
    gaMode: GaModeDefinition | undefined,
    private readonly edges: readonly Edge[],
    launcher: Launcher,
    private readonly repeatable: boolean,
  ) {
    const { islands, limits } = options.run;
    this.islands = islands;
    this.atBarriers = rules.checkpoints === 'barrier';
    this.ends = new IslandEnds(islands);
    // The winner is the first finder by (iteration, island), from the reports; nobody claims (the mode's winner rule).
    this.winner = new WinnerTracker(rules.winner === 'first-finder');
    this.between = new BetweenTracker(islands);
    if (options.resume)
      this.between.restore(
        options.resumeBetween ?? [],
        options.resume.map((s) => s.runner?.observations ?? []),
      );
    this.gaMode = gaMode?.coordinator?.({ islands, scheduledAtOrBefore }) ?? NO_HOOK;
    this.launched = launcher.launch({
      tasks: islandTasks(options, edges),
      onControl: (message) => this.onControl(message),
      threads: options.threads ?? null,
    });
    this.coordination = this.launched.coordination;
    this.stops = new StopSchedule(
      STOP_GRACE_MS,
      () => this.launched.terminate(),
      limits.timeLimit,
      () => this.halt(),
    );
    this.checkpoints = new CheckpointRequests(islands, options.checkpointEveryMs, () => this.requestCheckpoint());
    // The islands' tasks have this first request out from their start (island-runner.ts, `request`).
    if (options.checkpointAtIteration !== undefined) this.checkpoints.open(this.coordination.requestCheckpoint());
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
    return Math.max(0, at - (this.ends.searchFrom ?? this.launchedAt)) / 1000;
  }

  private emit(event: ArchipelagoEvent): void {
    this.subject.next(event);
  }

  halt(): void {
    if (this.stops.finished) return;
    if (this.coordination.halt()) this.stops.halted();
    this.stops.startGrace();
  }

  /** The GA mode's hook was told something: it may have the run's answer. */
  private haltIfModeDone(): void {
    if (this.gaMode.halts) this.halt();
  }

  /** After an island has failed no request could complete, so none is made. */
  private requestCheckpoint(): void {
    const { ends } = this;
    if (!ends.allStarted || !this.checkpoints.idle || ends.anyFailed || this.coordination.stopState() !== RUNNING) return;
    this.checkpoints.open(this.coordination.requestCheckpoint());
  }

  private readonly validated = (island: number, genes: Genes): Rows | null => this.checked(island, genes, false);
  /** For genes nobody reads after (a claim's, or the reports' when no budget may censor the record): rows made in place. */
  private readonly validatedInPlace = (island: number, genes: Genes): Rows | null => this.checked(island, genes, true);

  private checked(island: number, genes: Genes, inPlace: boolean): Rows | null {
    const tuple = inPlace ? toRowsInPlace(genes) : toRows(genes);
    const check = validateSolution(tuple, this.options.run.n);
    if (check.valid) return tuple;
    if (inPlace) backToGenes(genes, tuple);
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

  private onControl(message: ControlMessage): void {
    if (message.type === 'snapshot') {
      const snapshots = this.checkpoints.answer(message);
      if (snapshots)
        this.emit({
          type: 'checkpoint',
          mode: this.options.run.migration.mode,
          epoch: this.atBarriers ? snapshots[0].epoch : null,
          islands: snapshots,
          between: this.between.series().filter((p) => p.iteration <= Math.min(...snapshots.map((s) => s.state.iterations))),
          seconds: this.seconds(),
        });
    } else if (message.type === 'best') {
      this.ends.lastBest[message.island] = message;
    } else if (message.type === 'started') {
      if (this.ends.start(message.time))
        this.emit({ type: 'started', islands: this.islands, seconds: (this.ends.searchFrom! - this.launchedAt) / 1000 });
    } else if (message.type === 'progress') {
      this.onProgress(message);
    } else if (message.type === 'solution') {
      const won = this.winner.claim(message, this.validatedInPlace);
      if (!won) return;
      // A best so far no longer counts once a solution is claimed: its chromosomes (N genes an
      // island) need not wait for the result beside the solution (docs/large-n.md).
      this.ends.lastBest.forEach((b, i) => (this.ends.lastBest[i] = b && { ...b, best: allocGenes(0) }));
      this.emit({
        type: 'solution',
        island: won.island,
        iteration: won.iteration,
        solution: won.solution,
        seconds: this.seconds(won.foundAt),
      });
      this.stops.startGrace();
    }
  }

  private onProgress(message: ProgressMessage): void {
    this.emitMigrations(message.migrations, message.survivals);
    this.ends.lastEvaluations[message.island] = message.evaluations;
    const { type: _t, migrations: _m, survivals: _s, observation, time, ...stats } = message;
    this.emit({ type: 'progress', ...stats, seconds: this.seconds(time) });
    const between = observation ? this.between.add(message.island, message.iteration, observation) : null;
    if (between) this.emit({ type: 'between', ...between, seconds: this.seconds(time) });
    this.gaMode.sampled(message.island, message.iteration, message);
    this.haltIfModeDone();
  }

  private onReport(report: IslandReport): void {
    this.ends.reports[report.island] = report;
    const final = this.ends.reports.every(Boolean) ? this.between.final() : null;
    if (final) this.emit({ type: 'between', ...final, seconds: this.seconds(report.stoppedAt), final: true });
    this.emitMigrations(report.migrations, report.survivals);
    this.gaMode.ended(report.island);
    this.haltIfModeDone();
    if (report.stopReason === 'solved' && this.rules.winner !== 'first-finder') this.stops.startGrace(); // the others are stopping now
  }

  private onFailure(island: number, error: unknown): void {
    const iteration = this.coordination.iterations(island);
    const { terminating } = this.stops;
    const reason = terminating
      ? `did not stop within ${STOP_GRACE_MS} ms of the stop and was terminated`
      : error instanceof Error
        ? error.message
        : String(error);
    this.ends.failures[island] = { message: reason, iteration };
    this.gaMode.ended(island);
    this.haltIfModeDone();
    const isFatal = this.options.run.onIslandError === 'fail' && !terminating;
    this.emit({ type: 'island-error', island, iteration, message: reason, fatal: isFatal });
    if (isFatal && !this.fatal) {
      this.fatal = new IslandFailedError(island, iteration, reason);
      this.halt();
    }
  }

  /** Every island has ended. allSettled: even if handling one island's end threw (a bug), timers and channels are cleaned up first. */
  private finish(outcomes: PromiseSettledResult<void>[]): ArchipelagoResult {
    this.stops.finish();
    this.checkpoints.stop();
    this.launched.release();
    const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (broken) {
      this.subject.complete();
      throw broken.reason;
    }
    const result = this.buildResult();
    if (result.solved && this.winner.announcesAtEnd) {
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

  /** The islands kept the evaluation ledger: one host, a repeatable mode, and a resumed run's checkpoint has its part (island-runner.ts). */
  private keepsLedger(): boolean {
    const resumed = this.options.resume ?? [];
    return this.repeatable && this.coordination.keepsLedger === true && resumed.every((s) => s.runner?.budget !== undefined);
  }

  private buildResult(): ArchipelagoResult {
    const { ends } = this;
    return buildResult({
      reports: ends.reports,
      failures: ends.failures,
      lastBest: ends.lastBest,
      lastEvaluations: ends.lastEvaluations,
      // A budget may censor the record to a best read from the reports' genes: those are then left as they came.
      winner: this.winner.winner(ends.reports, this.options.run.limits.maxEvaluations === null ? this.validatedInPlace : this.validated),
      // Modes that stop at a cut without counting through the winner (lagged) have their islands report their counters there.
      countsThroughWinner: this.rules.countsThroughWinner,
      haltedAt: this.stops.haltedAt,
      iterations: (island) => this.coordination.iterations(island),
      launchedAt: this.launchedAt,
      searchFrom: ends.searchFrom,
      now: wallClock(),
      edges: this.edges.length,
      threads: this.launched.threads,
      between: this.between.series(),
      mode: this.gaMode,
      // Its islands kept the evaluation ledger (one host, a repeatable mode): the record is the unlimited run's prefix.
      budget: this.keepsLedger() ? this.options.run.limits.maxEvaluations : null,
    });
  }
}
