import { BuildStopped } from '../ga/errors.ts';
import { stoppedInBuild } from './stopped-in-build.ts';
import { UNKNOWN_ORIGIN } from '../ga/lineage.ts';
import { createEvolver, evolverSpecOf } from '../ga/create-evolver.ts';
import type { Evolver } from '../ga/evolver.ts';
import type { EmigrantSelection, ReplacementPolicy } from '../ga/migration-policy.ts';
import { Rng } from '../ga/rng.ts';
import { CourseLog } from './course-log.ts';
import { IslandProgress } from './island-progress.ts';
import { ImmigrantTracker } from './observables/survival.ts';
import type { IslandReport, IslandTask, MigrantsMessage, StopReason } from './messages.ts';
import { MigrationLog } from './migration-log.ts';
import type { IslandRegistries } from './extension.ts';
import { ISLAND_REGISTRIES } from './island-registries.ts';
import { emigrantSelectionFor, replacementFor } from '../migration-policy/lookup.ts';
import { HALTED, RUNNING, type IslandCoordination } from './coordination.ts';
import { measuresOf, type IslandCounters } from './island-counters.ts';
import type { IslandLoop, IslandMode } from './modes/define.ts';
import { migrationModeOf } from './modes/registry.ts';
import { evaluationShare, wallClock } from './schedule.ts';
import type { IslandTransport } from './island-transport.ts';
import type { IslandSnapshot, RunnerState } from './island-snapshot.ts';
import { answer, awaitBarrier, isSteps, STEPPED, type Steps } from './island-thread.ts';
import { BudgetGate } from './budget-gate.ts';

/** What the worker's glue gives the loop besides the task; none of it is in the task. */
export interface RunnerHooks {
  /** Wraps the island's evolver once it is built (the worker installs a test fault this way, test-fault.ts). */
  wrap?(evolver: Evolver, island: number): void;
}

/**
 * One island's whole run, inside its worker: build the evolver, loop `step()`, migrate as
 * its migration mode says (modes/), report progress, stop when told. Returns its report; on
 * a throw it still marks itself departed so no barrier waits for it. `registries` are what
 * its task names (the built-in ones and the task's extensions). Its thread's scheduler steps
 * it (island-thread.ts): it yields after each iteration and where it waits.
 */
export function* runIsland(
  task: IslandTask,
  transport: IslandTransport,
  shared: IslandCoordination,
  hooks: RunnerHooks = {},
  registries: IslandRegistries = ISLAND_REGISTRIES,
): Steps<IslandReport> {
  let run: IslandRun | null = null;
  const startedAt = wallClock();
  try {
    run = new IslandRun(task, transport, shared, hooks, registries);
    return yield* run.run();
  } catch (error) {
    // A stop during the population's build (start-up) is a stop, not a failure.
    if (error instanceof BuildStopped) return stoppedInBuild(task.island, error, startedAt);
    run?.reportBest(true);
    throw error;
  } finally {
    shared.depart(task.island);
  }
}

class IslandRun implements IslandLoop {
  readonly id: number;
  readonly migration: IslandTask['run']['migration'];
  readonly migrating: boolean;
  readonly evolver: Evolver;
  private readonly mode: IslandMode;
  /** Another island's claim stops this one at once (the mode's `stopsOnClaim`). */
  private readonly stopsOnClaim: boolean;
  /** The run's limits as loop bounds: Infinity for none; evaluations are this island's share (none with a ledger). */
  private readonly maxIterations: number;
  private readonly maxEvaluations: number;
  /** A budget in a repeatable mode, every island on this host: the ledger's gate (budget-gate.ts) instead of a share. */
  private readonly budget: BudgetGate | null;
  /** The gate stopped it: it counts its state at the last confirmed iteration. */
  private overBudget = false;
  private readonly select: EmigrantSelection;
  private readonly replace: ReplacementPolicy;
  private readonly log = new MigrationLog();
  private readonly immigrants: ImmigrantTracker;
  migrantsReceived = 0;
  migrantsSent = 0;
  migrantsAccepted = 0;
  private readonly startedAt = wallClock();
  private foundAt = 0;
  private foundAtIteration = -1;
  private claimed = false;
  private readonly progressReports: IslandProgress;
  private readonly course = new CourseLog();
  /** The last checkpoint request this island answered (or found already past); a request made while it was built is answered at its first chance. */
  private served = 0;
  /** The migrants it sent once a checkpoint was asked for and before it answered (its snapshot carries them). */
  private sentWhilePending: MigrantsMessage[] = [];
  readonly resumed: IslandTask['snapshot'];
  readonly arriving: readonly MigrantsMessage[];

  constructor(
    private readonly task: IslandTask,
    readonly transport: IslandTransport,
    readonly shared: IslandCoordination,
    hooks: RunnerHooks,
    registries: IslandRegistries,
  ) {
    this.id = task.island;
    this.migration = task.run.migration;
    this.migrating = this.migration.migrants > 0 && this.migration.interval > 0;
    const definition = migrationModeOf(this.migration.mode, registries.migrationModes);
    this.select = emigrantSelectionFor(this.migration.emigrantSelection, registries.emigrantSelections);
    this.replace = replacementFor(this.migration.replacement, registries.replacements);
    this.immigrants = new ImmigrantTracker(task.island);
    this.stopsOnClaim = definition.stopsOnClaim;
    // Modes that stop at a cut stop only on the coordinator's halt (a solution elsewhere is
    // seen at the cut, so every island's iterations stay whole and repeatable).
    const shouldStop = this.stopsOnClaim ? () => shared.stopState() !== RUNNING : () => shared.stopState() === HALTED;
    const snapshot = task.snapshot;
    const rng = snapshot ? new Rng(snapshot.state.rng) : Rng.forStream(task.run.seed, task.island);
    this.evolver = createEvolver(evolverSpecOf(task.run), rng, shouldStop, snapshot?.state, registries.gaModes, {
      island: task.island,
      seed: task.run.seed,
    });
    if (task.lineage !== false) this.evolver.trackLineage?.(task.island, snapshot?.state.origins);
    hooks.wrap?.(this.evolver, this.id);
    // The one place "no limit" (null) becomes a bound the loop compares with.
    const { maxIterations, maxEvaluations } = task.run.limits;
    this.maxIterations = maxIterations ?? Infinity;
    // A checkpoint taken without the ledger (no budget then, or made by hand) resumes with shares: its islands may be iterations apart.
    const ledgered = maxEvaluations !== null && definition.repeatable && (!snapshot || snapshot.runner?.budget !== undefined);
    const ledger = ledgered ? (shared.ledger ?? null) : null;
    this.budget = ledger && maxEvaluations !== null ? new BudgetGate(task.island, ledger, maxEvaluations, shared) : null;
    this.maxEvaluations =
      maxEvaluations === null || this.budget ? Infinity : evaluationShare(maxEvaluations, task.run.islands, task.island);
    this.evolver.evaluationBudget = this.maxEvaluations;
    this.resumed = snapshot;
    this.arriving = task.arriving ?? [];
    if (snapshot) this.restore(snapshot);
    this.progressReports = new IslandProgress(this.id, this.evolver, transport, task.progressIntervalMs);
    if (snapshot?.runner) {
      this.progressReports.observed = snapshot.runner.observed;
      this.progressReports.recent = snapshot.runner.observations;
    }
    this.mode = definition.create(this);
  }

  /** Continues a snapshot's counters and logs (a snapshot without the runner's part: counted from here). */
  private restore(snapshot: IslandSnapshot): void {
    this.migrantsSent = snapshot.migrantsSent;
    this.migrantsAccepted = snapshot.migrantsAccepted;
    const r = snapshot.runner;
    if (!r) return;
    this.migrantsReceived = r.migrantsReceived;
    this.immigrants.restore(r.immigrantsChecked, r.immigrantsSurvived, r.batches, r.hashes);
    this.evolver.population.written.set(r.written);
    this.evolver.population.writes = r.writes;
    this.course.restore(r.course, r.courseState);
  }

  get immigrantsChecked(): number {
    return this.immigrants.checked;
  }

  get immigrantsSurvived(): number {
    return this.immigrants.survived;
  }

  *run(): Steps<IslandReport> {
    const { evolver, shared, id, mode } = this;
    // Its count before the start gate: once past it, every island finds every other's.
    this.budget?.start(evolver, this.resumed?.runner?.budget);
    // The start gate: nobody iterates until all are built (an early island cannot solve before the others exist).
    shared.arrive(id, 0);
    if (!(yield* awaitBarrier(shared, 0))) return this.report('stopped');
    // Its best before 'started' (one port, in order): once the run is reported started, the coordinator holds every island's best.
    this.progressReports.reportBest();
    this.transport.report({ type: 'started', island: id, time: wallClock() });
    this.progress(); // the start of every island's curve
    // A log resumed from a snapshot taken between iterations holds its iteration; one taken at a barrier (sync), inside it, does not.
    if (this.course.noted < evolver.iterations) this.noteCourse();
    mode.start?.();
    const reason = yield* this.loop();
    // The loop has stopped: that is the moment stop latency measures. Posting the solution
    // (its first encoding is cold code) comes after, as the other islands already saw the claim.
    const stoppedAt = wallClock();
    if (this.claimed) {
      this.transport.report({
        type: 'solution',
        island: id,
        iteration: evolver.iterations,
        genes: evolver.solution!,
        foundAt: this.foundAt,
      });
    }
    this.progress(true); // the end of its curve, and its last state observed
    return this.report(reason, stoppedAt);
  }

  /** Steps until something stops the island; why it stopped. Yields after each iteration. */
  private *loop(): Steps<StopReason> {
    const { evolver, shared, id, mode } = this;
    for (;;) {
      const stop = shared.stopState();
      if (stop === HALTED) return 'stopped';
      if (stop !== RUNNING && this.stopsOnClaim) return 'other-solved';
      if (evolver.iterations >= this.maxIterations) return yield* answer(mode.limit?.('max-iterations') ?? 'max-iterations');
      if (evolver.evaluations >= this.maxEvaluations) return yield* answer(mode.limit?.('max-evaluations') ?? 'max-evaluations');
      const gate = this.budget ? yield* this.budget.gate(evolver, this) : 'go';
      if (gate === 'halted') continue; // the loop head sees it
      if (gate === 'over') {
        this.overBudget = true;
        return yield* answer(mode.limit?.('max-evaluations') ?? 'max-evaluations');
      }
      const ready = mode.beforeStep?.() ?? true;
      if (!(isSteps(ready) ? yield* ready : ready)) continue; // halted: the loop head sees it
      const before = evolver.iterations;
      const solved = evolver.step();
      shared.setIterations(id, evolver.iterations);
      if (evolver.iterations !== before) mode.stepped?.();
      if (solved) {
        this.noteCourse();
        return yield* answer(mode.solved());
      }
      if (evolver.iterations === before) continue; // abandoned for a stop: the loop head sees it
      this.immigrants.check(evolver.population, evolver.iterations);
      const migrated = mode.migrate();
      const outcome = isSteps(migrated) ? yield* migrated : migrated;
      this.noteCourse();
      this.budget?.published(evolver);
      if (outcome) return outcome;
      if (this.progressReports.due()) this.progress();
      if (mode.anytimeCheckpoints && this.checkpointPending()) this.snapshot(0);
      yield STEPPED; // the thread's other islands take their turn
    }
  }

  /** The iteration is done, its migration included: the course log takes its counts. */
  private noteCourse(): void {
    const { evolver } = this;
    this.course.note(evolver.iterations, evolver.evaluations, evolver.solution ? 0 : evolver.bestFitness());
  }

  found(claimed: boolean): StopReason {
    this.budget?.found(this.evolver);
    this.foundAt = wallClock();
    this.foundAtIteration = this.evolver.iterations;
    this.claimed = claimed;
    return 'solved';
  }

  sendEmigrants(epoch: number): void {
    const { migration, evolver, transport } = this;
    if (transport.targets.length === 0) return;
    const genes = evolver.emigrants(migration.migrants, this.select);
    const count = genes.length / evolver.n;
    const origins = evolver.emigrantOrigins?.() ?? null;
    const message: MigrantsMessage = {
      type: 'migrants',
      from: this.id,
      epoch,
      iteration: evolver.iterations,
      count,
      genes,
      ...(origins ? { origins } : {}),
    };
    transport.send(message);
    // It may reach a target after the target's snapshot: this island's carries it (a copy: the genes and origins may be lent).
    if (this.request() !== this.served)
      this.sentWhilePending.push({ ...message, genes: genes.slice(), ...(origins ? { origins: origins.slice() } : {}) });
    this.migrantsSent += count * transport.targets.length;
  }

  immigrate(message: MigrantsMessage): void {
    const { evolver } = this;
    const mark = this.immigrants.mark(evolver.population);
    const origins = message.origins && knownOrigins(message.origins, this.task.run.islands);
    const accepted = evolver.immigrate(message.genes, message.count, this.replace, this.migration.rejectDuplicates, origins);
    this.immigrants.taken(evolver.population, mark, message.from, message.epoch, evolver.iterations, message.count, accepted);
    this.migrantsReceived += message.count;
    this.migrantsAccepted += accepted;
    this.log.add(message.from, this.id, message.epoch, message.iteration, message.count, accepted);
  }

  checkpointPending(): boolean {
    return this.request() !== this.served && this.evolver.iterations >= (this.task.checkpointFrom ?? 0);
  }

  /** The latest checkpoint request: a task with `checkpointFrom` has the first one out from its start (its coordinator makes it at launch). */
  private request(): number {
    return Math.max(this.shared.checkpointRequest(), this.task.checkpointFrom !== undefined ? 1 : 0);
  }

  snapshot(epoch: number): void {
    const generation = this.request();
    this.served = generation;
    this.transport.report({
      type: 'snapshot',
      generation,
      snapshot: {
        island: this.id,
        epoch,
        state: this.evolver.snapshot(),
        migrantsSent: this.migrantsSent,
        migrantsAccepted: this.migrantsAccepted,
        runner: this.runnerState(),
        sent: this.sentWhilePending,
        ...this.mode.save?.(),
      },
    });
    this.sentWhilePending = [];
  }

  /** What a snapshot holds of the loop's own counts and logs (RunnerState). */
  private runnerState(): RunnerState {
    const immigrants = this.immigrants.save();
    const course = this.course.save();
    const pop = this.evolver.population;
    return {
      migrantsReceived: this.migrantsReceived,
      immigrantsChecked: this.immigrants.checked,
      immigrantsSurvived: this.immigrants.survived,
      batches: immigrants.batches,
      hashes: immigrants.hashes,
      written: pop.written.slice(),
      writes: pop.writes,
      observed: this.progressReports.observed,
      observations: this.progressReports.recent,
      course: course.entries,
      courseState: course.state,
      ...(this.budget ? { budget: this.budget.point() } : {}),
    };
  }

  private progress(last = false): void {
    const { migrantsSent, migrantsAccepted } = this;
    this.progressReports.send({ migrantsSent, migrantsAccepted, migrations: this.log.take(), survivals: this.immigrants.take() }, last);
  }

  /** Sends the island's best before a failure propagates (runIsland). */
  reportBest(failing: boolean): void {
    this.progressReports.reportBest(failing);
  }

  /** The island's counters now. */
  private counters(): IslandCounters {
    const { evolver } = this;
    return {
      iterations: evolver.iterations,
      evaluations: evolver.evaluations,
      bestFitness: evolver.solution ? 0 : evolver.bestFitness(),
      ...measuresOf(this),
    };
  }

  private report(stopReason: StopReason, stoppedAt = wallClock()): IslandReport {
    const { evolver } = this;
    // An island that ran past the run's cut (lagged) reports its state there, and no later solution;
    // one the budget stopped, its state at the last iteration within it (it ran one more).
    const atCut = (this.overBudget ? this.budget?.counted() : this.mode.counted?.()) ?? null;
    const solution = atCut ? null : evolver.solution;
    const c = atCut ?? this.counters();
    const evaluationsAt = this.mode.evaluationsAt?.() ?? { from: 0, at: new Float64Array(0) };
    const report: IslandReport = {
      type: 'report',
      island: this.id,
      iterations: c.iterations,
      evaluations: c.evaluations,
      bestFitness: c.bestFitness,
      // A solved island's best is its solution, sent once (N genes: 400 MB at 10^8 sent twice before).
      best: solution ? null : ((this.overBudget ? this.budget?.bestAtCount() : null) ?? evolver.best()),
      solution,
      foundAtIteration: solution ? this.foundAtIteration : -1,
      foundAt: this.foundAt,
      claimed: this.claimed,
      ...measuresOf(c),
      startedAt: this.startedAt,
      stoppedAt,
      stopReason,
      migrations: this.log.take(),
      survivals: this.immigrants.take(),
      ...evolver.modeFields?.(),
      evaluationsFrom: evaluationsAt.from,
      evaluationsAt: evaluationsAt.at,
      course: this.course.entries(),
      // Where a solved run that cost more than the budget is censored (run-result.ts).
      ...(this.budget && !this.overBudget ? { budgetAt: this.budget.point() } : {}),
    };
    // Its boards are given back before the report (and its solution) is encoded: at large N that copy fits in them (docs/large-n.md).
    if (solution) evolver.release?.();
    return report;
  }
}

/** Origins as they arrived (from another host, untrusted): one that is no island of the run is UNKNOWN_ORIGIN. */
function knownOrigins(origins: Uint16Array, islands: number): Uint16Array {
  for (let i = 0; i < origins.length; i++) if (origins[i] >= islands) origins[i] = UNKNOWN_ORIGIN;
  return origins;
}
