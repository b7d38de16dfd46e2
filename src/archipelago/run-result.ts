import { toOneBased, type Genes } from '../problem/genes.ts';
import type { ArchipelagoResult, IslandResult, TakeoverResult } from './events.ts';
import type { BetweenPoint } from './observables/between.ts';
import { betweenBefore, observablesCut } from './record-cut.ts';
import { combineCourses } from './trajectory.ts';
import type { BestMessage, IslandReport } from './messages.ts';

/** An island whose worker failed: why, and its last completed iteration. */
export interface Failure {
  message: string;
  iteration: number;
}

/** The run's solution: who found it, after how many iterations, the validated 1-based tuple, when (wall ms). */
export interface Winner {
  island: number;
  iteration: number;
  solution: number[];
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
}

/** Takeover mode: each island's takeover iteration from its report (null: never, or no report) and the archipelago's (the last island's); null for other modes. */
function takeoverOf(reports: readonly (IslandReport | null)[]): TakeoverResult | null {
  if (!reports.some((r) => r?.takenOverAt !== undefined)) return null;
  const islands = reports.map((r) => (r?.takenOverAt !== undefined && r.takenOverAt >= 0 ? r.takenOverAt : null));
  return { iteration: islands.every((t) => t !== null) ? Math.max(...islands) : null, islands };
}

/** The run's result from its islands' reports and failures. */
export function buildResult(o: RunRecordings): ArchipelagoResult {
  const { winner } = o;
  const islandResults: IslandResult[] = [];
  let evaluations = 0;
  let after = 0;
  // Sync: the solution's cost is every island's evaluations to the winning iteration.
  const through = o.countsThroughWinner && winner !== null;
  const counted =
    through && winner ? (r: IslandReport) => evaluationsThrough(r, winner.iteration, winner.island) : (r: IslandReport) => r.evaluations;
  let bestReport: IslandReport | null = null;
  let latestStop = -Infinity;
  /** The last island loop's end, whatever stopped it. */
  let lastEnd = -Infinity;
  o.reports.forEach((r, i) => {
    const failure = o.failures[i];
    // An island without a report counts what it last said it had done.
    const islandEvaluations = r ? counted(r) : (o.lastEvaluations?.[i] ?? 0);
    const islandAfter = r ? r.evaluations - islandEvaluations : 0;
    evaluations += islandEvaluations;
    after += islandAfter;
    if (r) {
      if ((r.best ?? r.solution) && (!bestReport || r.bestFitness < bestReport.bestFitness)) bestReport = r;
      if (r.stopReason !== 'max-iterations' && r.stopReason !== 'max-evaluations' && r.stoppedAt > latestStop) latestStop = r.stoppedAt;
      lastEnd = Math.max(lastEnd, r.stoppedAt);
    }
    islandResults.push({
      id: i,
      iterations: r ? r.iterations : o.iterations(i),
      evaluations: islandEvaluations,
      evaluationsAfterSolution: through ? islandAfter : null,
      bestFitness: r ? r.bestFitness : (o.lastBest?.[i]?.bestFitness ?? -1),
      migrantsSent: r ? r.migrantsSent : 0,
      migrantsAccepted: r ? r.migrantsAccepted : 0,
      migrantsReceived: r ? r.migrantsReceived : 0,
      immigrantsChecked: r ? r.immigrantsChecked : 0,
      immigrantsSurvived: r ? r.immigrantsSurvived : 0,
      ...(r?.takenOverAt !== undefined ? { takenOverAt: r.takenOverAt >= 0 ? r.takenOverAt : null } : {}),
      seconds: r ? (r.stoppedAt - r.startedAt) / 1000 : 0,
      // One winner, solved (even if the stop came before it looked at the solution its first
      // population held); another island holding a solution is also-solved and changes nothing.
      stopReason: r ? (r.solution && winner ? (winner.island === i ? 'solved' : 'also-solved') : r.stopReason) : null,
      ...(failure ? { error: failure } : {}),
    });
  });
  const reported = bestReport as IslandReport | null;
  // The best any island reached: what an island without a report (failed, or its host or the
  // broker lost) last sent counts too, so such a run keeps the best so far.
  const reportedBest = reported ? (reported.best ?? reported.solution) : null;
  let best: { bestFitness: number; best: Genes } | null = reportedBest ? { bestFitness: reported!.bestFitness, best: reportedBest } : null;
  o.lastBest?.forEach((b, i) => {
    if (b && !o.reports[i] && (!best || b.bestFitness < best.bestFitness)) best = b;
  });
  const end = lastEnd > -Infinity ? lastEnd : o.now;
  const searchFrom = o.searchFrom ?? end;
  const stopClaimedAt = winner ? winner.foundAt : o.haltedAt;
  const takeover = takeoverOf(o.reports);
  const fitness = winner ? 0 : best ? best.bestFitness : -1;
  const courses = o.reports.map((r) => r?.course);
  const stopLatencyMs = stopClaimedAt !== null && latestStop > -Infinity ? Math.max(0, latestStop - stopClaimedAt) : null;
  return {
    solved: winner !== null,
    solution: winner ? winner.solution : null,
    fitness,
    best: winner ? winner.solution : best ? toOneBased(best.best) : null,
    foundBy: winner ? winner.island : null,
    foundAtIteration: winner ? winner.iteration : null,
    foundAtSeconds: winner ? Math.max(0, winner.foundAt - searchFrom) / 1000 : null,
    seconds: Math.max(0, end - searchFrom) / 1000,
    startupSeconds: Math.max(0, searchFrom - o.launchedAt) / 1000,
    stopLatencyMs,
    evaluations,
    evaluationsAfterSolution: through ? after : null,
    islands: islandResults,
    edges: o.edges,
    threads: o.threads,
    // What the islands sampled past the record's cut depends on when they stopped.
    between: betweenBefore(o.between ?? [], observablesCut(winner ? winner.iteration : null, takeover)),
    trajectory: combineCourses(courses, winner ? winner.iteration : Infinity, { evaluations, fitness }),
    ...(takeover ? { takeover } : {}),
  };
}
