/**
 * The ratio of a cell to its baseline, one estimand for every comparison: the paired ratio
 * exp(Hodges-Lehmann estimate of the log ratios log(x / y)) over seeds, each run counted as
 * min(time to solution, B), with the signed-rank interval inverted at the family's level
 * (signed-rank.ts), so the interval leaves 1 out exactly when the test rejects at that level.
 * No resampling: the same runs give the same interval on every machine. The ERT ratio (the
 * cost of restarts, the tail) is its own number beside it, never in its place.
 */
import { excludesZero, hodgesLehmann } from './signed-rank.ts';

export interface RatioEstimate {
  /** exp(Hodges-Lehmann estimate of the log ratios): the cell's typical multiple of the baseline on a seed. */
  value: number;
  /** The interval at `level`; 0 / Infinity where the pairs cannot reach the level on that side. */
  lower: number;
  upper: number;
  level: number;
  /** A bound at exactly 1 that the interval leaves out (the test rejects at 1 but not just beside it). */
  lowerOpen: boolean;
  upperOpen: boolean;
  /** 1 lies between the bounds but the test rejects it alone (zeros and ties at 1): the interval without 1. */
  withoutOne: boolean;
  /** Whether the interval leaves 1 out: the test's p < 1 - level. */
  excludesOne: boolean;
}

/** The paired ratio of `logRatios` (log(cell / baseline) per seed) with its interval at level 1 - alpha. */
export function pairedRatio(logRatios: readonly number[], alpha: number): RatioEstimate {
  const level = 1 - alpha;
  const h = hodgesLehmann(logRatios, level, alpha);
  return {
    value: Math.exp(h.estimate),
    lower: Math.exp(h.lower),
    upper: Math.exp(h.upper),
    level,
    lowerOpen: h.lowerOpen,
    upperOpen: h.upperOpen,
    withoutOne: h.withoutZero,
    excludesOne: h.method !== 'none' && excludesZero(h),
  };
}

/**
 * ERT within `budget`: the sum of min(value, budget) over runs / runs solved within it (a value
 * of Infinity = not within). +Infinity without a success.
 */
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
