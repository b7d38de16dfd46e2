/**
 * The statistics of a study, on plain number arrays: quantiles, the paired Wilcoxon test
 * with its effect size, Holm's adjustment, Wilson intervals, Fisher's exact test, ERT with
 * its bootstrap interval and the run-length ECDF. An unsolved run enters a rank statistic as
 * +Infinity ("not solved within the limits" ranks after every solved run), which is what a
 * median, quartile or signed rank needs and a mean could not give; censoring.ts decides where
 * that is valid and where a comparison must be made at a common budget instead.
 */
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import signrankCdf from '@stdlib/stats-base-dists-signrank-cdf';
import { Rng } from '../ga/rng.ts';

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

/** A paired comparison of a cell (x) with the baseline (y) on the same seeds. */
export interface PairedComparison {
  /** Pairs compared (seeds present in both). */
  pairs: number;
  /** Pairs with x = y (both unsolved, or equal values): Wilcoxon's method drops them. */
  zeros: number;
  /** Pairs with x != y: the ones the test and r rest on (`pairs - zeros`, "6 of 20"). */
  informative: number;
  /** Pairs where the cell was lower (x < y) and higher (x > y). */
  lower: number;
  higher: number;
  /** Median over pairs of x - y (Infinity when unsolved runs dominate). */
  medianDifference: number;
  /**
   * Median over pairs where both solved of x / y: 0.5 means the cell needed half the
   * baseline's time on the typical seed. NaN when no pair has both solved.
   */
  medianRatio: number;
  /**
   * Matched-pairs rank-biserial correlation (Kerby 2014): (R+ - R-) / (R+ + R-) over the
   * non-zero differences x - y, in [-1, 1]. -1: the cell was lower on every pair; 0: no
   * tendency. NaN when every difference is zero.
   */
  rankBiserial: number;
  /** Wilcoxon signed-rank statistic V = R+ (as R's wilcox.test reports it). NaN when no test. */
  statistic: number;
  /** Two-sided p-value of the Wilcoxon signed-rank test; NaN when there is nothing to test. */
  pValue: number;
  /** How the p-value was computed (R's rule): 'exact' (no ties, no zeros, under 50 pairs), 'normal' otherwise, or 'none'. */
  method: 'exact' | 'normal' | 'none';
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

/** Differences x - y where Infinity - Infinity (both unsolved) counts as a tie, not NaN. */
function pairedDifferences(x: readonly number[], y: readonly number[]): number[] {
  return x.map((xi, i) => (xi === y[i] ? 0 : xi - y[i]));
}

/**
 * The two-sided normal approximation of the signed-rank test, as R's wilcox.test and scipy's
 * wilcoxon(method='approx') make it: V = R+ over the non-zero differences, mean n(n+1)/4,
 * variance n(n+1)(2n+1)/24 - sum(t^3 - t)/48 over groups of t tied |d|, and V moved 0.5
 * towards the mean (continuity correction).
 */
function normalPValue(plus: number, ranks: readonly number[]): number {
  const n = ranks.length;
  const mean = (n * (n + 1)) / 4;
  const counts = new Map<number, number>();
  for (const r of ranks) counts.set(r, (counts.get(r) ?? 0) + 1);
  let ties = 0;
  for (const t of counts.values()) ties += t * t * t - t;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - ties / 48);
  const z = (plus - mean - 0.5 * Math.sign(plus - mean)) / sd;
  return Math.min(1, 2 * normalCdf(-Math.abs(z), 0, 1));
}

/**
 * The exact two-sided p of V = R+ over n non-zero differences without ties, from the
 * signed-rank distribution, as R's psignrank gives it and as @stdlib/stats-wilcoxon computed
 * it (its two-sided branch, the same lines): twice the tail that V lies in. At the centre of
 * the distribution that exceeds 1: capped.
 */
function exactPValue(v: number, n: number): number {
  const p = v > (n * (n + 1)) / 4 ? 2 * (1 - signrankCdf(v - 1, n)) : 2 * signrankCdf(v, n);
  return Math.min(1, p);
}

/**
 * Compares paired samples x (a cell) and y (the baseline): effect sizes and a two-sided
 * Wilcoxon signed-rank test on the differences x - y, zero differences dropped (Wilcoxon's
 * method). The p-value follows R's wilcox.test(x, y, paired = TRUE) exactly: exact (the
 * signed-rank distribution, exactPValue) when there are no ties, no zeros
 * and fewer than 50 pairs, else the normal approximation with tie and continuity
 * corrections. docs/experiments.md names the scipy call that gives the same p.
 */
export function comparePaired(x: readonly number[], y: readonly number[]): PairedComparison {
  if (x.length !== y.length) throw new Error(`comparePaired: ${x.length} vs ${y.length} values`);
  const d = pairedDifferences(x, y);
  const nonZero = d.filter((v) => v !== 0);
  const ranks = averageRanks(nonZero.map(Math.abs));
  let plus = 0;
  let minus = 0;
  nonZero.forEach((v, i) => {
    if (v > 0) plus += ranks[i];
    else minus += ranks[i];
  });
  const ratios = x.flatMap((xi, i) => (Number.isFinite(xi) && Number.isFinite(y[i]) && y[i] > 0 ? [xi / y[i]] : []));
  const result: PairedComparison = {
    pairs: x.length,
    zeros: d.length - nonZero.length,
    informative: nonZero.length,
    lower: nonZero.filter((v) => v < 0).length,
    higher: nonZero.filter((v) => v > 0).length,
    medianDifference: d.length > 0 ? median(d) : Number.NaN,
    medianRatio: ratios.length > 0 ? median(ratios) : Number.NaN,
    rankBiserial: nonZero.length > 0 ? (plus - minus) / (plus + minus) : Number.NaN,
    statistic: Number.NaN,
    pValue: Number.NaN,
    method: 'none',
  };
  // Two pairs and one non-zero difference at least; fewer is no evidence either way.
  if (x.length < 2 || nonZero.length === 0) return result;
  result.statistic = plus;
  const ties = new Set(ranks).size !== ranks.length;
  if (nonZero.length < 50 && !ties && result.zeros === 0) {
    result.pValue = exactPValue(plus, nonZero.length);
    result.method = 'exact';
  } else {
    result.pValue = normalPValue(plus, ranks);
    result.method = 'normal';
  }
  return result;
}

/**
 * Holm's step-down adjustment of p-values for comparing several cells with one baseline:
 * controls the family-wise error rate without assuming independence. NaN stays NaN.
 */
export function holm(pValues: readonly number[]): number[] {
  const tested = pValues.map((p, i) => ({ p, i })).filter(({ p }) => !Number.isNaN(p));
  tested.sort((a, b) => a.p - b.p);
  const out = pValues.map(() => Number.NaN);
  let running = 0;
  tested.forEach(({ p, i }, k) => {
    running = Math.max(running, Math.min(1, (tested.length - k) * p));
    out[i] = running;
  });
  return out;
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
