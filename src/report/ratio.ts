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
import { median, quantile } from './stats.ts';

/** The bootstrap of the paired ratio: how many resamples of the seeds, from which seed, at which level. */
export const RATIO_BOOTSTRAP = { resamples: 2000, seed: 1, level: 0.95 } as const;

export interface RatioEstimate {
  /** 'median': median over seeds of cell / baseline; 'ert': ERT(cell) / ERT(baseline) within the budget. */
  kind: 'median' | 'ert';
  value: number;
  lower: number;
  upper: number;
}

/** ERT within `budget`: the sum of min(value, budget) over runs / runs solved within it (a value of Infinity = not within). +Infinity without a success. */
export function ertWithin(values: readonly number[], budget: number): number {
  let total = 0;
  let successes = 0;
  for (const v of values) {
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
 * The percentile interval of `statistic` over `resamples` resamples of the n pairs (drawn
 * with replacement, xoshiro128** from `seed`). A resample whose statistic is undefined (NaN:
 * no pair with a positive baseline, or neither cell solved within the budget) is left out.
 */
function pairedBootstrap(
  n: number,
  statistic: (pick: readonly number[]) => number,
  options: typeof RATIO_BOOTSTRAP,
): { lower: number; upper: number } {
  const rng = Rng.forStream(options.seed, 0);
  const estimates: number[] = [];
  const pick = new Array<number>(n);
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
  const ratioOf =
    budget === null
      ? (a: readonly number[], b: readonly number[]) => medianRatio(a, b)
      : (a: readonly number[], b: readonly number[]) => ertWithin(a, budget) / ertWithin(b, budget);
  const value = x.length === 0 ? Number.NaN : ratioOf(x, y);
  const interval =
    x.length === 0
      ? { lower: Number.NaN, upper: Number.NaN }
      : pairedBootstrap(
          x.length,
          (pick) =>
            ratioOf(
              pick.map((i) => x[i]),
              pick.map((i) => y[i]),
            ),
          options,
        );
  return { kind: budget === null ? 'median' : 'ert', value, ...interval };
}
