import { toRows, type Genes, type Rows } from '../problem/genes.ts';
import type { GaCoordinatorHook, GaModeIslandFields } from '../ga/modes/coordinator-hook.ts';
import type { ArchipelagoResult, IslandResult } from './events.ts';
import { measuresOf, zeroMeasures } from './island-counters.ts';
import type { BetweenPoint } from './observables/between.ts';
import { betweenBefore, observablesCut } from './record-cut.ts';
import { combineCourses } from './trajectory.ts';
import type { BestMessage, IslandReport } from './messages.ts';
import { countersOf } from './budget-gate.ts';

/** An island whose worker failed: why, and its last completed iteration. */
export interface Failure {
  message: string;
  iteration: number;
}

/** The run's solution: who found it, after how many iterations, the validated 1-based tuple, when (wall ms). */
export interface Winner {
  island: number;
  iteration: number;
  solution: Rows;
  foundAt: number;
}

/**
 * The iteration at which a report's island held its solution: where it found it, or, for an
 * island stopped before it looked (its initial population held one, and the run was halted
 * first), its iterations then.
 */
export function heldAt(r: IslandReport): number {
  return r.foundAtIteration >= 0 ? r.foundAtIteration : r.iterations;
}

/**
 * Sync (and any run nobody claimed): the island holding a solution with the smallest
 * (iteration, island id), fixed by the seed alone.
 */
export function earliestFinder(reports: readonly (IslandReport | null)[]): IslandReport | null {
  let best: IslandReport | null = null;
  for (const r of reports) {
    if (r?.solution && (!best || heldAt(r) < heldAt(best))) best = r;
  }
  return best;
}

/**
 * Sync: island `r`'s evaluations once it had done the winning iteration `k` (and the
 * migration after it): what it did after that, running on to the barrier, is not the search's
 * cost of the solution. The winner, and an island that stopped by then, count all they did.
 */
export function evaluationsThrough(r: IslandReport, k: number, winner: number): number {
  if (r.island === winner || k >= r.iterations) return r.evaluations;
  const at = k - r.evaluationsFrom;
  // A report from another host is input: a missing or odd entry counts everything.
  const value = at >= 0 && r.evaluationsAt instanceof Float64Array && at < r.evaluationsAt.length ? r.evaluationsAt[at] : r.evaluations;
  return Number.isSafeInteger(value) && value >= 0 && value <= r.evaluations ? value : r.evaluations;
}

/** What the archipelago collected by the end of a run. */
export interface RunRecordings {
  reports: readonly (IslandReport | null)[];
  failures: readonly (Failure | null)[];
  /** The best each island last sent (with its progress, or as its last word before failing), if any. */
  lastBest?: readonly (BestMessage | null)[];
  /** Each island's evaluations at its last progress message. */
  lastEvaluations?: readonly number[];
  winner: Winner | null;
  /** The mode counts evaluations to the winning iteration (evaluationsThrough; sync). */
  countsThroughWinner: boolean;
  /** When the coordinator halted the run (wall ms), if it did. */
  haltedAt: number | null;
  /** Last published iterations of an island without a report. */
  iterations(island: number): number;
  /** Wall ms of the launch. */
  launchedAt: number;
  /** Wall ms every island iterates from (null if none ever did). */
  searchFrom: number | null;
  /** Wall ms now, for a run in which no island reported. */
  now: number;
  edges: number;
  /** The launched run's worker threads (LaunchedRun.threads). */
  threads: number | null;
  between?: BetweenPoint[];
  /** The run's GA mode's part of the coordinator (its `result` and `recordCut` are pure). */
  mode: GaCoordinatorHook;
  /** `limits.maxEvaluations` where the islands kept the evaluation ledger (budget-gate.ts); else null (none, or per-island shares). */
  budget?: number | null;
}

/** What each island counts, and what it did after the winning iteration (sync, solved; else 0). */
function islandEvaluations(o: RunRecordings): { evaluations: number[]; after: number[]; through: boolean } {
  const { winner } = o;
  // Sync: the solution's cost is every island's evaluations to the winning iteration.
  const through = o.countsThroughWinner && winner !== null;
  const counted = (r: IslandReport) => (through && winner ? evaluationsThrough(r, winner.iteration, winner.island) : r.evaluations);
  // An island without a report counts what it last said it had done.
  const evaluations = o.reports.map((r, i) => (r ? counted(r) : (o.lastEvaluations?.[i] ?? 0)));
  return { evaluations, after: o.reports.map((r, i) => (r ? r.evaluations - evaluations[i] : 0)), through };
}

/** Island `i`'s result: its report's counters (what it last said, without one), its stop reason as the run's winner decides it. */
function islandResult(o: RunRecordings, i: number, counts: ReturnType<typeof islandEvaluations>, mode: GaModeIslandFields): IslandResult {
  const r = o.reports[i];
  const failure = o.failures[i];
  return {
    id: i,
    iterations: r ? r.iterations : o.iterations(i),
    evaluations: counts.evaluations[i],
    evaluationsAfterSolution: counts.through ? counts.after[i] : null,
    bestFitness: r ? r.bestFitness : (o.lastBest?.[i]?.bestFitness ?? -1),
    ...(r ? measuresOf(r) : zeroMeasures()),
    ...mode,
    seconds: r ? (r.stoppedAt - r.startedAt) / 1000 : 0,
    // One winner, solved (even if the stop came before it looked at the solution its first
    // population held); another island holding a solution is also-solved and changes nothing.
    stopReason: r ? (r.solution && o.winner ? (o.winner.island === i ? 'solved' : 'also-solved') : r.stopReason) : null,
    ...(failure ? { error: failure } : {}),
  };
}

/**
 * The best any island reached: the best report's, and what an island without a report
 * (failed, or its host or the broker lost) last sent, so such a run keeps the best so far.
 */
function bestReached(o: RunRecordings): { bestFitness: number; best: Genes } | null {
  let best: { bestFitness: number; best: Genes } | null = null;
  const consider = (b: { bestFitness: number; best: Genes | null } | null | undefined) => {
    if (b?.best && (!best || b.bestFitness < best.bestFitness)) best = { bestFitness: b.bestFitness, best: b.best };
  };
  // A solved island's report carries its solution as its best (sent once: docs/large-n.md).
  for (const r of o.reports) consider(r && { bestFitness: r.bestFitness, best: r.best ?? r.solution });
  o.reports.forEach((r, i) => {
    if (!r) consider(o.lastBest?.[i]);
  });
  return best;
}

/** The run's clock: search and start-up seconds, and the stop's latency (the latest stop of an island told to stop − the claim). */
function runTiming(o: RunRecordings): Pick<ArchipelagoResult, 'seconds' | 'startupSeconds' | 'stopLatencyMs'> & { searchFrom: number } {
  const ends = o.reports.filter((r) => r !== null);
  const toldToStop = ends.filter((r) => r.stopReason !== 'max-iterations' && r.stopReason !== 'max-evaluations');
  // The last island loop's end, whatever stopped it.
  const end = ends.length > 0 ? Math.max(...ends.map((r) => r.stoppedAt)) : o.now;
  const searchFrom = o.searchFrom ?? end;
  const stopClaimedAt = o.winner ? o.winner.foundAt : o.haltedAt;
  const latestStop = Math.max(...toldToStop.map((r) => r.stoppedAt));
  return {
    seconds: Math.max(0, end - searchFrom) / 1000,
    startupSeconds: Math.max(0, searchFrom - o.launchedAt) / 1000,
    stopLatencyMs: stopClaimedAt !== null && toldToStop.length > 0 ? Math.max(0, latestStop - stopClaimedAt) : null,
    searchFrom,
  };
}

/**
 * The iteration a run the budget stopped counts to (t*: every island reports its state
 * there, and ran one iteration more, which the record leaves out); null if the budget did not stop it.
 */
function budgetCut(o: RunRecordings): number | null {
  if (o.budget == null || o.winner) return null;
  const stopped = o.reports.filter((r) => r?.stopReason === 'max-evaluations');
  return stopped.length > 0 ? Math.min(...stopped.map((r) => r!.iterations)) : null;
}

/**
 * A solved run whose solution cost more than the budget is the unlimited run past it: its
 * record is censored where each island last confirmed the budget held (the iteration before
 * the solution's), as if the budget had stopped it there (docs/experiments.md, "A budget is a prefix").
 */
function censoredAtBudget(o: RunRecordings): RunRecordings {
  const reports = o.reports.map((r): IslandReport | null => {
    const counters = r?.budgetAt ? countersOf(r.budgetAt.counters) : null;
    if (!r || !counters) return r;
    const best = r.budgetAt?.best ?? r.best ?? r.solution;
    return { ...r, ...counters, best, solution: null, foundAtIteration: -1, claimed: false, stopReason: 'max-evaluations' };
  });
  return { ...o, reports, winner: null };
}

/** The run's result from its islands' reports and failures. */
export function buildResult(o: RunRecordings): ArchipelagoResult {
  const { winner } = o;
  const counts = islandEvaluations(o);
  const evaluations = counts.evaluations.reduce((a, b) => a + b, 0);
  if (winner && o.budget != null && evaluations > o.budget) return buildResult(censoredAtBudget(o));
  const cut = budgetCut(o);
  const modeFields = o.mode.result(o.reports);
  const best = bestReached(o);
  const { searchFrom, ...timing } = runTiming(o);
  const fitness = winner ? 0 : best ? best.bestFitness : -1;
  return {
    solved: winner !== null,
    solution: winner ? winner.solution : null,
    fitness,
    best: winner ? winner.solution : best ? toRows(best.best) : null,
    foundBy: winner ? winner.island : null,
    foundAtIteration: winner ? winner.iteration : null,
    foundAtSeconds: winner ? Math.max(0, winner.foundAt - searchFrom) / 1000 : null,
    ...timing,
    evaluations,
    evaluationsAfterSolution: counts.through ? counts.after.reduce((a, b) => a + b, 0) : null,
    islands: o.reports.map((_, i) => islandResult(o, i, counts, modeFields.islands[i])),
    edges: o.edges,
    threads: o.threads,
    // What the islands sampled past the record's cut depends on when they stopped.
    between: betweenBefore(
      o.between ?? [],
      observablesCut(winner ? winner.iteration : null, Math.min(o.mode.recordCut(modeFields.run), cut === null ? Infinity : cut + 1)),
    ),
    trajectory: combineCourses(
      o.reports.map((r) => r?.course),
      winner ? winner.iteration : cut === null ? Infinity : cut + 1,
      { evaluations, fitness },
    ),
    ...modeFields.run,
  };
}
