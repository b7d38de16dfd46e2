/**
 * The ratio of a cell to its baseline with a 95% interval, for every comparison. Where every
 * run solved: the median over seeds of cell / baseline. Where some did not (censored), a
 * median of ratios would drop the unsolved pairs, so the ratio is of ERTs on the comparison's
 * scale: each run counts min(time to solution, B), divided by the runs solved within B
 * (Auger & Hansen's ERT at budget B). Either way the interval is a percentile bootstrap over
 * seeds: the pairs are resampled together, so the pairing is kept, from a fixed seed, so the
 * same runs always give the same interval.
 */
import { Rng } from '../ga/rng.ts';
import { interpolated, median, quantile } from './stats.ts';

/** The bootstrap of the paired ratio: how many resamples of the seeds, from which seed, at which level. */
export const RATIO_BOOTSTRAP = { resamples: 2000, seed: 1, level: 0.95 } as const;

export interface RatioEstimate {
  /** 'median': median over seeds of cell / baseline; 'ert': ERT(cell) / ERT(baseline) within the budget. */
  kind: 'median' | 'ert';
  value: number;
  lower: number;
  upper: number;
}

/**
 * ERT within `budget`: the sum of min(value, budget) over runs / runs solved within it (a value
 * of Infinity = not within). +Infinity without a success. With `pick`, over the runs it names
 * (a resample, in its order), read in place.
 */
export function ertWithin(values: ArrayLike<number>, budget: number, pick?: ArrayLike<number>): number {
  let total = 0;
  let successes = 0;
  const count = pick ? pick.length : values.length;
  for (let k = 0; k < count; k++) {
    const v = values[pick ? pick[k] : k];
    if (v <= budget) {
      total += v;
      successes++;
    } else total += budget;
  }
  return successes === 0 ? Infinity : total / successes;
}

function medianRatio(x: readonly number[], y: readonly number[]): number {
  const ratios = x.flatMap((xi, i) => (y[i] > 0 ? [xi / y[i]] : []));
  return ratios.length === 0 ? Number.NaN : median(ratios);
}

/**
 * medianRatio of resamples, each in O(n) with nothing allocated: the pairs' ratios are sorted
 * once, and a resample's median is read off its counts in that order (the same order
 * statistics, so the same value, as sorting the resample's ratios would give).
 */
class ResampledMedianRatio {
  /** The ratios of the pairs with a positive baseline, ascending. */
  private readonly sorted: Float64Array;
  /** Each pair's place in `sorted`; -1 for a pair left out. */
  private readonly place: Int32Array;
  private readonly counts: Uint32Array;

  constructor(x: readonly number[], y: readonly number[]) {
    const ratio = x.map((xi, i) => xi / y[i]);
    const kept = x.flatMap((_, i) => (y[i] > 0 ? [i] : [])).sort((i, j) => (ratio[i] < ratio[j] ? -1 : ratio[i] > ratio[j] ? 1 : 0));
    this.sorted = Float64Array.from(kept, (i) => ratio[i]);
    this.place = new Int32Array(x.length).fill(-1);
    kept.forEach((i, k) => (this.place[i] = k));
    this.counts = new Uint32Array(kept.length);
  }

  of(pick: ArrayLike<number>): number {
    const { counts, place } = this;
    counts.fill(0);
    let m = 0;
    for (let k = 0; k < pick.length; k++) {
      const at = place[pick[k]];
      if (at >= 0) {
        counts[at]++;
        m++;
      }
    }
    if (m === 0) return Number.NaN;
    const h = (m - 1) * 0.5;
    const lo = Math.floor(h);
    return interpolated(this.orderStatistic(lo), this.orderStatistic(Math.ceil(h)), h - lo);
  }

  /** The resample's k-th smallest ratio (0-based). */
  private orderStatistic(k: number): number {
    let seen = 0;
    for (let at = 0; ; at++) {
      seen += this.counts[at];
      if (seen > k) return this.sorted[at];
    }
  }
}

/**
 * The percentile interval of `statistic` over `resamples` resamples of the n pairs (drawn
 * with replacement, xoshiro128** from `seed`), each given as the pairs' indices (read during
 * the call, never kept). A resample whose statistic is undefined (NaN:
 * no pair with a positive baseline, or neither cell solved within the budget) is left out.
 */
function pairedBootstrap(
  n: number,
  statistic: (pick: Int32Array) => number,
  options: typeof RATIO_BOOTSTRAP,
): { lower: number; upper: number } {
  const rng = Rng.forStream(options.seed, 0);
  const estimates: number[] = [];
  const pick = new Int32Array(n);
  for (let b = 0; b < options.resamples; b++) {
    for (let k = 0; k < n; k++) pick[k] = rng.int(n);
    const value = statistic(pick);
    if (!Number.isNaN(value)) estimates.push(value);
  }
  if (estimates.length === 0) return { lower: Number.NaN, upper: Number.NaN };
  return { lower: quantile(estimates, (1 - options.level) / 2), upper: quantile(estimates, (1 + options.level) / 2) };
}

/**
 * The ratio of x (cell) to y (baseline) on the same seeds, with its bootstrap interval.
 * `budget` null: every run solved, x and y are the values; else values above the budget
 * (Infinity) were not solved within it, and the ratio is of ERTs within it.
 */
export function pairedRatio(
  x: readonly number[],
  y: readonly number[],
  budget: number | null,
  options: typeof RATIO_BOOTSTRAP = RATIO_BOOTSTRAP,
): RatioEstimate {
  const kind = budget === null ? 'median' : 'ert';
  if (x.length === 0) return { kind, value: Number.NaN, lower: Number.NaN, upper: Number.NaN };
  if (budget === null) {
    const resampled = new ResampledMedianRatio(x, y);
    return { kind, value: medianRatio(x, y), ...pairedBootstrap(x.length, (pick) => resampled.of(pick), options) };
  }
  const value = ertWithin(x, budget) / ertWithin(y, budget);
  return { kind, value, ...pairedBootstrap(x.length, (pick) => ertWithin(x, budget, pick) / ertWithin(y, budget, pick), options) };
}
