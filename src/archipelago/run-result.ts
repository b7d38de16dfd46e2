import { toOneBased, type Genes } from '../problem/genes.ts';
import type { ArchipelagoResult, IslandResult } from './events.ts';
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

/** Sync: the finder with the smallest (iteration found, island id), fixed by the seed alone. */
export function syncFinder(reports: readonly (IslandReport | null)[]): IslandReport | null {
  let best: IslandReport | null = null;
  for (const r of reports) {
    if (r?.solution && (!best || r.foundAtIteration < best.foundAtIteration)) best = r;
  }
  return best;
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
}

/** The run's result from its islands' reports and failures. */
export function buildResult(o: RunRecordings): ArchipelagoResult {
  const { winner } = o;
  const islandResults: IslandResult[] = [];
  let evaluations = 0;
  let bestReport: IslandReport | null = null;
  let latestStop = -Infinity;
  /** The last island loop's end, whatever stopped it. */
  let lastEnd = -Infinity;
  o.reports.forEach((r, i) => {
    const failure = o.failures[i];
    // An island without a report counts what it last said it had done.
    const islandEvaluations = r ? r.evaluations : (o.lastEvaluations?.[i] ?? 0);
    evaluations += islandEvaluations;
    if (r) {
      if (r.best && (!bestReport || r.bestFitness < bestReport.bestFitness)) bestReport = r;
      if (r.stopReason !== 'max-iterations' && r.stoppedAt > latestStop) latestStop = r.stoppedAt;
      lastEnd = Math.max(lastEnd, r.stoppedAt);
    }
    islandResults.push({
      id: i,
      iterations: r ? r.iterations : o.iterations(i),
      evaluations: islandEvaluations,
      bestFitness: r ? r.bestFitness : (o.lastBest?.[i]?.bestFitness ?? -1),
      migrantsSent: r ? r.migrantsSent : 0,
      migrantsAccepted: r ? r.migrantsAccepted : 0,
      seconds: r ? (r.stoppedAt - r.startedAt) / 1000 : 0,
      // One winner: another island's solution is recorded as such and changes nothing.
      stopReason: r ? (r.stopReason === 'solved' && winner && winner.island !== i ? 'also-solved' : r.stopReason) : null,
      ...(failure ? { error: failure } : {}),
    });
  });
  const reported = bestReport as IslandReport | null;
  // The best any island reached: what an island without a report (failed, or its host or the
  // broker lost) last sent counts too, so such a run keeps the best so far.
  let best: { bestFitness: number; best: Genes } | null = reported?.best ? { bestFitness: reported.bestFitness, best: reported.best } : null;
  o.lastBest?.forEach((b, i) => {
    if (b && !o.reports[i] && (!best || b.bestFitness < best.bestFitness)) best = b;
  });
  const end = lastEnd > -Infinity ? lastEnd : o.now;
  const searchFrom = o.searchFrom ?? end;
  const stopClaimedAt = winner ? winner.foundAt : o.haltedAt;
  const stopLatencyMs = stopClaimedAt !== null && latestStop > -Infinity ? Math.max(0, latestStop - stopClaimedAt) : null;
  return {
    solved: winner !== null,
    solution: winner ? winner.solution : null,
    fitness: winner ? 0 : best ? best.bestFitness : -1,
    best: winner ? winner.solution : best ? toOneBased(best.best) : null,
    foundBy: winner ? winner.island : null,
    foundAtIteration: winner ? winner.iteration : null,
    foundAtSeconds: winner ? Math.max(0, winner.foundAt - searchFrom) / 1000 : null,
    seconds: Math.max(0, end - searchFrom) / 1000,
    startupSeconds: Math.max(0, searchFrom - o.launchedAt) / 1000,
    stopLatencyMs,
    evaluations,
    islands: islandResults,
    edges: o.edges,
  };
}
