import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Island } from '../src/ga/island.ts';
import { paperParams } from '../src/ga/params.ts';
import { Rng } from '../src/ga/rng.ts';
import { toOneBased } from '../src/problem/genes.ts';
import { validateSolution } from '../src/problem/validate.ts';

/**
 * Paper mode, one island, single-threaded. Every measured island runs alone in a fresh
 * worker thread, as it does in a real run: V8 compiles the hot loops with the island's
 * scratch arrays as constants only while an isolate holds one island, so islands run
 * one after another in the same isolate would measure a slower path than runs see.
 * Times are wall clock; the machine should otherwise be idle. Nothing is printed.
 */

/** Evaluations per second over a fixed number of iterations after a warm-up. */
export interface PaperRateResult {
  n: number;
  warmupIterations: number;
  iterations: number;
  /** One value per repetition (each a fresh island, seeds 1, 2, ...). */
  evalsPerSecond: number[];
  medianEvalsPerSecond: number;
}

/** Time to the first solution, one run per seed. */
export interface PaperSolveRow {
  n: number;
  seeds: number[];
  /** Median over seeds of construction (initial population included) to solution. */
  medianSeconds: number;
  medianIterations: number;
  medianEvaluations: number;
  /** Total evaluations over total seconds, all seeds. */
  evalsPerSecond: number;
  /** Every run found a solution that `validateSolution` accepts within the iteration limit. */
  allValid: boolean;
}

export interface PaperSolveOptions {
  sizes?: number[];
  seeds?: number[];
  /** Seeds per size, overriding `seeds` for the sizes it names. */
  seedsFor?: Record<number, number[]>;
  /** Iterations after which a run gives up (counted as invalid). */
  maxIterations?: number;
  /** Called after each run, e.g. to print progress. */
  onRun?: (n: number, seed: number, run: IslandRun) => void;
}

/** What one worker reports. */
export interface IslandRun {
  seconds: number;
  iterations: number;
  evaluations: number;
  valid: boolean;
}

interface Job {
  paperBench: true;
  n: number;
  seed: number;
  /** Iterations to run untimed first; the island is then timed for `iterations` (0 = until solved). */
  warmup: number;
  iterations: number;
  maxIterations: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function runJob(job: Job): IslandRun {
  const t0 = performance.now();
  const island = new Island({ params: paperParams(job.n), rng: Rng.forStream(job.seed, 0) });
  let solved = island.solution !== null;
  for (let i = 0; i < job.warmup && !solved; i++) solved = island.step();
  const e0 = job.warmup > 0 ? island.evaluations : 0;
  const i0 = job.warmup > 0 ? island.iterations : 0;
  const t1 = job.warmup > 0 ? performance.now() : t0;
  const limit = job.iterations > 0 ? job.iterations : job.maxIterations;
  for (let i = 0; i < limit && !solved; i++) solved = island.step();
  const seconds = (performance.now() - t1) / 1000;
  const valid = island.solution !== null && validateSolution(toOneBased(island.solution)).valid;
  return { seconds, iterations: island.iterations - i0, evaluations: island.evaluations - e0, valid };
}

function inWorker(job: Job): Promise<IslandRun> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`paper bench worker exited with code ${code}`));
    });
  });
}

if (!isMainThread && (workerData as Job | null)?.paperBench === true) {
  parentPort!.postMessage(runJob(workerData as Job));
}

/**
 * (a) Evaluations per second of one island at board size n (default 200): `iterations`
 * timed iterations (default 300) after `warmup` (default 20), on `repetitions` fresh
 * islands (default 3, seeds 1..3), and their median. A run that solves early is timed
 * up to the solution.
 */
export async function benchPaperRate(
  options: { n?: number; warmup?: number; iterations?: number; repetitions?: number } = {},
): Promise<PaperRateResult> {
  const n = options.n ?? 200;
  const warmup = options.warmup ?? 20;
  const iterations = options.iterations ?? 300;
  const rates: number[] = [];
  for (let seed = 1; seed <= (options.repetitions ?? 3); seed++) {
    const run = await inWorker({ paperBench: true, n, seed, warmup, iterations, maxIterations: iterations });
    rates.push(run.evaluations / run.seconds);
  }
  return { n, warmupIterations: warmup, iterations, evalsPerSecond: rates, medianEvalsPerSecond: median(rates) };
}

/**
 * (b) Median time to solution over seeds (default 1..5) for each size (default
 * N = 50, 100, 200), one island per run.
 */
export async function benchPaperSolve(options: PaperSolveOptions = {}): Promise<PaperSolveRow[]> {
  const sizes = options.sizes ?? [50, 100, 200];
  const maxIterations = options.maxIterations ?? 1_000_000;
  const rows: PaperSolveRow[] = [];
  for (const n of sizes) {
    const seeds = options.seedsFor?.[n] ?? options.seeds ?? [1, 2, 3, 4, 5];
    const runs: IslandRun[] = [];
    for (const seed of seeds) {
      const run = await inWorker({ paperBench: true, n, seed, warmup: 0, iterations: 0, maxIterations });
      options.onRun?.(n, seed, run);
      runs.push(run);
    }
    const totalEvaluations = runs.reduce((s, r) => s + r.evaluations, 0);
    const totalSeconds = runs.reduce((s, r) => s + r.seconds, 0);
    rows.push({
      n,
      seeds,
      medianSeconds: median(runs.map((r) => r.seconds)),
      medianIterations: median(runs.map((r) => r.iterations)),
      medianEvaluations: median(runs.map((r) => r.evaluations)),
      evalsPerSecond: totalEvaluations / totalSeconds,
      allValid: runs.every((r) => r.valid),
    });
  }
  return rows;
}

/**
 * (c) Large boards: N = 500 and 1000 with seeds 1..5, N = 2000 with seeds 1..3 (a run
 * there takes minutes). Same rows as `benchPaperSolve`.
 */
export function benchPaperLarge(options: PaperSolveOptions = {}): Promise<PaperSolveRow[]> {
  return benchPaperSolve({
    sizes: [500, 1000, 2000],
    seeds: [1, 2, 3, 4, 5],
    seedsFor: { 2000: [1, 2, 3] },
    ...options,
  });
}
