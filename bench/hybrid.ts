import { HybridIsland } from '../src/ga/hybrid/hybrid-island.ts';
import { hybridParams, type HybridParams } from '../src/ga/hybrid/params.ts';
import { Rng } from '../src/ga/rng.ts';
import { toOneBased } from '../src/problem/genes.ts';
import { validateSolution } from '../src/problem/validate.ts';

/** One board size: times are wall-clock ms from construction (smart start included) to the solution. */
export interface HybridBenchRow {
  n: number;
  seeds: number[];
  /** Median over seeds of the whole solve. */
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Median over seeds of building the island (the μ smart starts). */
  medianInitMs: number;
  medianGenerations: number;
  medianEvaluations: number;
  medianSwapEvaluations: number;
  /** Every run found a solution that `validateSolution` accepts. */
  allValid: boolean;
}

export interface HybridBenchOptions {
  sizes?: number[];
  seeds?: number[];
  /** Parameters per board size (default: `hybridParams(n)`). */
  params?: (n: number) => HybridParams;
  /** Generations after which a run gives up (counted as invalid). */
  maxGenerations?: number;
  /** Called after each run, e.g. to print progress. */
  onRun?: (n: number, seed: number, ms: number) => void;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Times HybridIsland single-threaded (one island, no workers, no migration) on each size,
 * one run per seed, and reports medians. Imported by the main bench script; no CLI here.
 */
export async function benchHybrid(options: HybridBenchOptions = {}): Promise<HybridBenchRow[]> {
  const sizes = options.sizes ?? [10_000, 100_000, 1_000_000];
  const seeds = options.seeds ?? [1, 2, 3];
  const makeParams = options.params ?? ((n: number) => hybridParams(n));
  const maxGenerations = options.maxGenerations ?? 100_000;
  const rows: HybridBenchRow[] = [];
  for (const n of sizes) {
    const total: number[] = [];
    const init: number[] = [];
    const generations: number[] = [];
    const evaluations: number[] = [];
    const swaps: number[] = [];
    let allValid = true;
    for (const seed of seeds) {
      const t0 = performance.now();
      const island = new HybridIsland({ params: makeParams(n), rng: Rng.forStream(seed, 0) });
      const t1 = performance.now();
      while (!island.step() && island.iterations < maxGenerations);
      const t2 = performance.now();
      total.push(t2 - t0);
      init.push(t1 - t0);
      generations.push(island.iterations);
      evaluations.push(island.evaluations);
      swaps.push(island.swapEvaluations);
      if (!island.solution || !validateSolution(toOneBased(island.solution), n).valid) allValid = false;
      options.onRun?.(n, seed, t2 - t0);
      // Let a pending GC or timer run between boards of hundreds of MB.
      await new Promise((resolve) => setImmediate(resolve));
    }
    rows.push({
      n,
      seeds,
      medianMs: median(total),
      minMs: Math.min(...total),
      maxMs: Math.max(...total),
      medianInitMs: median(init),
      medianGenerations: median(generations),
      medianEvaluations: median(evaluations),
      medianSwapEvaluations: median(swaps),
      allValid,
    });
  }
  return rows;
}
