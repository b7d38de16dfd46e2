/**
 * The statistics of a study, on plain number arrays: quantiles, ranks,
 * Wilson intervals, Fisher's exact test, ERT with its bootstrap interval and the run-length
 * ECDF (the signed-rank test and its interval: signed-rank.ts). An unsolved run enters a
 * quantile as +Infinity ("not solved within the limits"), which a median or quartile needs
 * and a mean could not give.
 */
import { Rng } from '../../ga/rng.ts';

/**
 * Quantile by linear interpolation between order statistics (Hyndman & Fan type 7, the
 * default of R, NumPy and Excel's QUARTILE.INC): q(p) = x[h] with h = (n - 1) p, 0-based.
 * An interpolation that touches +Infinity gives +Infinity. Empty input: NaN.
 */
export function quantile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  // A typed array sorts numbers by value natively, several times faster than a comparator.
  const sorted = Float64Array.from(values).sort();
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return interpolated(sorted[lo], sorted[Math.ceil(h)], h - lo);
}

/** Type 7's step between neighbouring order statistics a <= b, `fraction` of the way from a: +Infinity if it touches it. */
export function interpolated(a: number, b: number, fraction: number): number {
  if (fraction === 0) return a;
  if (b === Infinity) return Infinity;
  return a + fraction * (b - a);
}

export interface Quartiles {
  q1: number;
  median: number;
  q3: number;
}

export function quartiles(values: readonly number[]): Quartiles {
  return { q1: quantile(values, 0.25), median: quantile(values, 0.5), q3: quantile(values, 0.75) };
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Average ranks (1-based) of `values`; ties share the mean of their ranks. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[a] - values[b] || a - b);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && values[order[end + 1]] === values[order[start]]) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]] = rank;
    start = end + 1;
  }
  return ranks;
}

/**
 * Vargha and Delaney's A12 of x against y (unpaired): P(X > Y) + P(X = Y) / 2 for a value
 * drawn from each, from the rank sum of x in both samples (ties at average ranks), so O(n log n).
 * 0.5: no tendency; below 0.5, x tends lower. NaN when either is empty.
 */
export function varghaDelaneyA12(x: readonly number[], y: readonly number[]): number {
  if (x.length === 0 || y.length === 0) return Number.NaN;
  const ranks = averageRanks([...x, ...y]);
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += ranks[i];
  return (sum / x.length - (x.length + 1) / 2) / y.length;
}

/** z for a two-sided 95% interval: the 0.975 quantile of the standard normal. */
export const Z95 = 1.959963984540054;

export interface Interval {
  lower: number;
  upper: number;
}

/**
 * Wilson's score interval for a success rate (Wilson 1927), 95% by default: the interval
 * R's prop.test gives without continuity correction. Chosen over the plain Wald interval,
 * which collapses to [1, 1] at 20/20 and undercovers near 0 and 1; narrower than
 * Clopper-Pearson's, whose coverage is above the nominal level. No runs: [NaN, NaN].
 */
export function wilson(successes: number, runs: number, z = Z95): Interval {
  if (runs === 0) return { lower: Number.NaN, upper: Number.NaN };
  const p = successes / runs;
  const z2 = z * z;
  const centre = (p + z2 / (2 * runs)) / (1 + z2 / runs);
  const half = (z / (1 + z2 / runs)) * Math.sqrt((p * (1 - p)) / runs + z2 / (4 * runs * runs));
  // At 0/n and n/n the bound is 0 or 1 exactly; rounding must not put it a hair inside.
  return { lower: successes === 0 ? 0 : Math.max(0, centre - half), upper: successes === runs ? 1 : Math.min(1, centre + half) };
}

function logFactorials(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  for (let k = 2; k <= n; k++) out[k] = out[k - 1] + Math.log(k);
  return out;
}

/**
 * Two-sided p-value of Fisher's exact test for two success rates, a/n1 against b/n2: the
 * probability, under the hypergeometric law with the margins fixed, of every table no more
 * likely than the one seen (R's fisher.test, with its relative tolerance 1e-7). NaN when a
 * cell has no runs.
 */
export function fisherExact(a: number, n1: number, b: number, n2: number): number {
  if (n1 === 0 || n2 === 0) return Number.NaN;
  const successes = a + b;
  const lf = logFactorials(n1 + n2);
  const logChoose = (n: number, k: number) => lf[n] - lf[k] - lf[n - k];
  const total = logChoose(n1 + n2, successes);
  const prob = (k: number) => Math.exp(logChoose(n1, k) + logChoose(n2, successes - k) - total);
  const seen = prob(a);
  let p = 0;
  for (let k = Math.max(0, successes - n2); k <= Math.min(n1, successes); k++) {
    const pk = prob(k);
    if (pk <= seen * (1 + 1e-7)) p += pk;
  }
  return Math.min(1, p);
}

/** What ERT and its bootstrap need of a run. */
export interface RunLength {
  solved: boolean;
  /** Evaluations the run used: to its solution, or to its end when unsolved. */
  evaluations: number;
}

/**
 * Expected running time (COCO, IOHprofiler; Auger & Hansen 2005): the evaluations of all
 * runs, solved or not, divided by the number of successes, i.e. the evaluations a restarted
 * algorithm would spend on average until its first success. +Infinity with no success,
 * NaN with no runs.
 */
export function expectedRunningTime(runs: readonly RunLength[]): number {
  if (runs.length === 0) return Number.NaN;
  let total = 0;
  let successes = 0;
  for (const r of runs) {
    total += r.evaluations;
    if (r.solved) successes++;
  }
  return successes === 0 ? Infinity : total / successes;
}

/** The bootstrap of ERT: how many resamples, from which seed, and the interval's level. */
export const ERT_BOOTSTRAP = { resamples: 2000, seed: 1, level: 0.95 } as const;

/**
 * A percentile bootstrap interval of ERT: `resamples` times, draw as many runs as there are
 * with replacement (xoshiro128** from `seed`, so the interval is the same on every report of
 * the same runs), take the ERT of each resample (+Infinity when it holds no success), and
 * return the (1 - level) / 2 and (1 + level) / 2 quantiles (type 7) of those ERTs. An upper
 * bound of +Infinity says a resample without success is among the top 2.5%.
 */
export function ertInterval(
  runs: readonly RunLength[],
  options: { resamples: number; seed: number; level: number } = ERT_BOOTSTRAP,
): Interval {
  const n = runs.length;
  if (n === 0) return { lower: Number.NaN, upper: Number.NaN };
  // The loop reads two packed arrays, not n records scattered over the heap (at 30,000 runs a
  // cell, cache misses made it most of a report's time); the draws and sums are as before.
  const evaluations = Float64Array.from(runs, (r) => r.evaluations);
  const solved = Uint8Array.from(runs, (r) => (r.solved ? 1 : 0));
  const rng = Rng.forStream(options.seed, 0);
  const estimates = new Float64Array(options.resamples);
  for (let b = 0; b < options.resamples; b++) {
    let total = 0;
    let successes = 0;
    for (let k = 0; k < n; k++) {
      const i = rng.int(n);
      total += evaluations[i];
      successes += solved[i];
    }
    estimates[b] = successes === 0 ? Infinity : total / successes;
  }
  const sorted = [...estimates];
  return { lower: quantile(sorted, (1 - options.level) / 2), upper: quantile(sorted, (1 + options.level) / 2) };
}

/**
 * The fixed-target empirical run-length distribution: the share of all runs (unsolved ones
 * included, never reaching 1 when some failed) solved within each budget of `budgets`.
 */
export function runLengthEcdf(runs: readonly RunLength[], budgets: readonly number[]): number[] {
  const solved = runs
    .filter((r) => r.solved)
    .map((r) => r.evaluations)
    .sort((a, b) => a - b);
  return budgets.map((budget) => {
    let k = 0;
    while (k < solved.length && solved[k] <= budget) k++;
    return runs.length === 0 ? Number.NaN : k / runs.length;
  });
}
