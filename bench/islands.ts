/**
 * Island-model benchmarks, imported by the main bench script (no CLI here). Each function
 * runs real archipelagos, short, and returns plain numbers. Run compiled for honest timing.
 */
import { availableParallelism } from 'node:os';
import { startArchipelago, type ArchipelagoOptions, type ArchipelagoResult } from '../src/archipelago/archipelago.ts';
import { LocalHost } from '../src/archipelago/local-host.ts';
import type { MigrationMode } from '../src/archipelago/modes/registry.ts';
import { TEST_FAULT_ENV, testFaultValue } from '../src/archipelago/test-fault.ts';
import { paperParams } from '../src/ga/params.ts';

function paperRun(o: {
  seed: number;
  islands: number;
  n: number;
  populationSize?: number;
  timeLimitMs?: number;
  maxIterations?: number;
  mode?: MigrationMode;
  lag?: number;
}): ArchipelagoOptions {
  const { n: _n, ...params } = paperParams(o.n, o.populationSize === undefined ? {} : { populationSize: o.populationSize });
  return {
    run: {
      n: o.n,
      seed: o.seed,
      islands: o.islands,
      ga: { mode: 'paper', ...params },
      topology: { kind: 'ring' },
      migration: {
        mode: o.mode ?? 'async',
        lag: o.lag ?? 0,
        interval: 10,
        migrants: 5,
        emigrantSelection: { kind: 'best' },
        replacement: 'worst-if-better',
        rejectDuplicates: false,
      },
      limits: {
        maxIterations: o.maxIterations ?? null,
        maxEvaluations: null,
        timeLimit: o.timeLimitMs === undefined ? null : o.timeLimitMs / 1000,
      },
      onIslandError: 'continue',
    },
  };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export interface ThroughputResult {
  islands: number;
  n: number;
  evaluations: number;
  /** The islands' own loop time (worker start-up excluded): the longest one. */
  seconds: number;
  evaluationsPerSecond: number;
  solved: boolean;
}

/**
 * Aggregate evaluations per second of `islands` paper-mode islands at board size n, for
 * about `seconds` (a time limit; if a solution comes first the rate is still evaluations
 * over the time actually run, and `solved` says so).
 */
export async function islandThroughput(o: { islands: number; n?: number; seconds?: number; seed?: number }): Promise<ThroughputResult> {
  const n = o.n ?? 200;
  const result = await startArchipelago(paperRun({ seed: o.seed ?? 1, islands: o.islands, n, timeLimitMs: (o.seconds ?? 3) * 1000 }))
    .result;
  const seconds = Math.max(...result.islands.map((i) => i.seconds));
  return {
    islands: o.islands,
    n,
    evaluations: result.evaluations,
    seconds,
    evaluationsPerSecond: result.evaluations / seconds,
    solved: result.solved,
  };
}

/**
 * Evaluations per second of search (after the start gate, so without the population builds,
 * which are start-up) of `islands` paper-mode islands on `threads` threads at board size n,
 * for `seconds` of search after a start-up of `startupSeconds` at most (one time limit).
 */
export async function searchThroughput(o: {
  islands: number;
  threads: number;
  n: number;
  seconds: number;
  startupSeconds: number;
  seed: number;
}): Promise<{ evaluationsPerSecond: number; startupSeconds: number; searchSeconds: number; solved: boolean }> {
  const run = paperRun({ seed: o.seed, islands: o.islands, n: o.n, timeLimitMs: (o.seconds + o.startupSeconds) * 1000 });
  const archipelago = startArchipelago({ ...run, threads: o.threads });
  // Each island's first progress event is at its start, after the gate: its evaluations then are its build's.
  const built = new Map<number, number>();
  archipelago.events$.subscribe((e) => {
    if (e.type === 'progress' && !built.has(e.island)) built.set(e.island, e.evaluations);
  });
  const result = await archipelago.result;
  const search = result.evaluations - [...built.values()].reduce((a, b) => a + b, 0);
  if (built.size !== o.islands || result.seconds < o.seconds / 2)
    throw new Error(`bench: ${o.islands} islands searched ${result.seconds} s of ${o.seconds}: raise the start-up allowance`);
  return {
    evaluationsPerSecond: search / result.seconds,
    startupSeconds: result.startupSeconds,
    searchSeconds: result.seconds,
    solved: result.solved,
  };
}

/** Throughput of 1 and of 2 islands at N = 200 and the speed-up (target: ≥ 1.85). */
export async function islandScaling(
  o: { n?: number; seconds?: number; seed?: number } = {},
): Promise<{ one: ThroughputResult; two: ThroughputResult; speedup: number; apart: number }> {
  const one = await islandThroughput({ ...o, islands: 1 });
  const two = await islandThroughput({ ...o, islands: 2 });
  // The machine's own ceiling for the same work: two lone islands (no barrier, no migrants,
  // no shared memory between them) at once, their evaluations/s added, against one alone.
  const pair = await Promise.all([
    islandThroughput({ ...o, islands: 1 }),
    islandThroughput({ ...o, seed: (o.seed ?? 1) + 100, islands: 1 }),
  ]);
  const apart = (pair[0].evaluationsPerSecond + pair[1].evaluationsPerSecond) / one.evaluationsPerSecond;
  return { one, two, speedup: two.evaluationsPerSecond / one.evaluationsPerSecond, apart };
}

/**
 * Stop latency (latest island stop − the winner's claim, in ms) over `runs` solved runs of a
 * small board, so each run is short. Target: p50 ≤ 1 ms. `defaultMigration`: solve's
 * migration (2% every iteration) instead of 5 migrants every 10 iterations.
 */
export async function stopLatency(
  o: {
    runs?: number;
    /** The seeds (default 1..runs). */
    seeds?: number[];
    islands?: number;
    n?: number;
    populationSize?: number;
    mode?: MigrationMode;
    lag?: number;
    defaultMigration?: boolean;
  } = {},
): Promise<{ p50: number; max: number; samples: number[]; unsolved: number }> {
  const samples: number[] = [];
  let unsolved = 0;
  const populationSize = o.populationSize ?? 300;
  for (const seed of o.seeds ?? Array.from({ length: o.runs ?? 7 }, (_, k) => k + 1)) {
    const options = paperRun({
      seed,
      islands: o.islands ?? 2,
      n: o.n ?? 48,
      populationSize,
      timeLimitMs: 20_000,
      mode: o.mode,
      lag: o.lag,
    });
    if (o.defaultMigration) options.run.migration = defaultMigration(o.mode ?? 'async', o.lag ?? 0, populationSize);
    const result = await startArchipelago(options).result;
    if (result.solved && result.stopLatencyMs !== null) samples.push(result.stopLatencyMs);
    else unsolved++;
  }
  return { p50: samples.length ? median(samples) : Number.NaN, max: samples.length ? Math.max(...samples) : Number.NaN, samples, unsolved };
}

/**
 * Median wall time to a solution at board size n over the given seeds, islands = cores
 * by default. Runs that hit `timeLimitMs` count as unsolved and are left out of the median.
 */
export async function timeToSolution(o: { n?: number; seeds?: number[]; islands?: number; timeLimitMs?: number } = {}): Promise<{
  n: number;
  islands: number;
  medianSeconds: number;
  runs: { seed: number; solved: boolean; seconds: number; foundAtIteration: number | null }[];
}> {
  const n = o.n ?? 200;
  const islands = o.islands ?? availableParallelism();
  const runs: { seed: number; solved: boolean; seconds: number; foundAtIteration: number | null }[] = [];
  for (const seed of o.seeds ?? [1, 2, 3, 4, 5]) {
    const result: ArchipelagoResult = await startArchipelago(paperRun({ seed, islands, n, timeLimitMs: o.timeLimitMs ?? 60_000 })).result;
    runs.push({ seed, solved: result.solved, seconds: result.seconds, foundAtIteration: result.foundAtIteration });
  }
  const solved = runs.filter((r) => r.solved).map((r) => r.seconds);
  return { n, islands, medianSeconds: solved.length ? median(solved) : Number.NaN, runs };
}

/** Solve's default migration (config/default.yaml): the best 2% every iteration, replacing the worst if better. */
function defaultMigration(mode: MigrationMode, lag: number, populationSize: number): ArchipelagoOptions['run']['migration'] {
  return {
    mode,
    lag,
    interval: 1,
    migrants: Math.max(1, Math.round(populationSize * 0.02)),
    emigrantSelection: { kind: 'best' },
    replacement: 'worst-if-better',
    rejectDuplicates: false,
  };
}

/**
 * Evaluations per second of loop time of 2 islands at N with solve's default migration: a
 * run of a fixed number of `iterations`, or of `seconds` (a time limit). With one island
 * slowed only a time limit measures what the other does meanwhile: with fixed iterations
 * both modes end when the slow island does, whatever the fast one did.
 */
export async function migrationThroughput(o: {
  mode: MigrationMode;
  lag: number;
  n: number;
  seed: number;
  iterations?: number;
  seconds?: number;
  slowIslandMs?: number;
}): Promise<number> {
  const base = paperRun({
    seed: o.seed,
    islands: 2,
    n: o.n,
    maxIterations: o.iterations,
    timeLimitMs: o.seconds === undefined ? undefined : o.seconds * 1000,
  });
  const options: ArchipelagoOptions = { run: { ...base.run, migration: defaultMigration(o.mode, o.lag, 1000) } };
  // A slow island is a test fault in its workers' environment (src/archipelago/test-fault.ts).
  const slow = o.slowIslandMs ? testFaultValue({ island: 1, atIteration: 0, kind: 'slow', delayMs: o.slowIslandMs }) : null;
  const host = slow === null ? undefined : new LocalHost(0, { env: { ...process.env, [TEST_FAULT_ENV]: slow } });
  const result = await startArchipelago({ ...options, ...(host ? { launcher: host } : {}) }).result.finally(() => host?.close());
  if (result.solved) throw new Error(`bench: N = ${o.n} solved within the run; the rate would not be of equal work`);
  return result.evaluations / Math.max(...result.islands.map((i) => i.seconds));
}

/**
 * Lagged against async migration on 2 islands, solve's default migration: `pairs` pairs of
 * runs of the same length, seeds 1, 2, ..., the order within a pair alternating (so that a
 * drift of the machine's load falls on both modes alike); the median of the pairs' ratios.
 */
export async function laggedVersusAsync(o: {
  n: number;
  lag: number;
  pairs: number;
  iterations?: number;
  seconds?: number;
  slowIslandMs?: number;
}): Promise<{ ratio: number; ratios: number[]; lagged: number[]; async: number[] }> {
  const lagged: number[] = [];
  const async: number[] = [];
  for (let p = 0; p < o.pairs; p++) {
    const run = (mode: MigrationMode) => migrationThroughput({ ...o, mode, lag: mode === 'lagged' ? o.lag : 0, seed: p + 1 });
    if (p % 2 === 0) {
      async.push(await run('async'));
      lagged.push(await run('lagged'));
    } else {
      lagged.push(await run('lagged'));
      async.push(await run('async'));
    }
  }
  const ratios = lagged.map((l, i) => l / async[i]);
  return { ratio: median(ratios), ratios, lagged, async };
}
