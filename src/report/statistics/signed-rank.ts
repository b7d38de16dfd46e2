/**
 * The one-sample Wilcoxon signed-rank test of paired differences d (a study uses the log
 * ratios of paired runs), its Hodges-Lehmann estimate and the confidence interval got by
 * inverting the test. Both follow R's wilcox.test(d, exact = n <= 50, correct = TRUE,
 * conf.int = TRUE) and scipy's wilcoxon(d, method = "exact" | "asymptotic", correction = True):
 * zeros dropped (Wilcoxon's method), the exact null distribution when at most 50 differences
 * remain and none is zero or tied in size, else the normal approximation with the tie and
 * continuity corrections. The interval is the set of shifts mu the same test does not reject
 * at 1 - level, so it excludes 0 exactly when p < 1 - level (`excludesZero`).
 */
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import { averageRanks } from './stats.ts';

/** The largest number of non-zero differences the exact null distribution is used for. */
export const EXACT_MAX = 50;

export interface SignedRankTest {
  /** Differences in all, and the zeros among them (dropped from the test). */
  pairs: number;
  zeros: number;
  /** V = R+, the sum of the ranks of |d| over the positive differences (R's V). NaN when no test. */
  statistic: number;
  /** Matched-pairs rank-biserial correlation (R+ - R-) / (R+ + R-), in [-1, 1]; NaN when every d is 0. */
  rankBiserial: number;
  /** Two-sided p; NaN when fewer than two pairs or no non-zero difference. */
  pValue: number;
  method: 'exact' | 'normal' | 'none';
}

/** counts[v] = the number of subsets of {1..n} summing to v: the exact null law of V is counts / 2^n. */
function signedRankCounts(n: number): Float64Array {
  const top = (n * (n + 1)) / 2;
  const counts = new Float64Array(top + 1);
  counts[0] = 1;
  // Each count is below 2^n <= 2^50, so the doubles hold them exactly.
  for (let k = 1; k <= n; k++) for (let v = (k * (k + 1)) / 2; v >= k; v--) counts[v] += counts[v - k];
  return counts;
}

const countsCache = new Map<number, Float64Array>();
function cachedCounts(n: number): Float64Array {
  let counts = countsCache.get(n);
  if (!counts) countsCache.set(n, (counts = signedRankCounts(n)));
  return counts;
}

/** Exact two-sided p of an integer V over n untied non-zero differences: twice the smaller tail, at most 1. */
function exactP(v: number, n: number): number {
  const counts = cachedCounts(n);
  const top = (n * (n + 1)) / 2;
  let below = 0;
  // P(V <= min(v, top - v)): the distribution is symmetric, so this is the smaller tail.
  for (let k = 0; k <= Math.min(v, top - v); k++) below += counts[k];
  return Math.min(1, (2 * below) / 2 ** n);
}

/** The null law of V under the normal approximation: n differences, sum(t^3 - t) over tie groups of |d|. */
interface NormalLaw {
  n: number;
  ties: number;
}

function normalP(v: number, law: NormalLaw): number {
  const { n, ties } = law;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - ties / 48);
  if (!(sd > 0)) return 1;
  const centred = v - (n * (n + 1)) / 4;
  const z = (centred - 0.5 * Math.sign(centred)) / sd;
  return Math.min(1, 2 * normalCdf(-Math.abs(z), 0, 1));
}

/** sum(t^3 - t) over the groups of equal values. */
function tieTerm(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let ties = 0;
  for (const t of counts.values()) ties += t * t * t - t;
  return ties;
}

function checkFinite(d: readonly number[]): void {
  if (d.some((v) => !Number.isFinite(v))) throw new Error('signed-rank: the differences must be finite numbers');
}

/** The two-sided signed-rank test of d (see the module comment for the method). */
export function signedRankTest(d: readonly number[]): SignedRankTest {
  checkFinite(d);
  const nonZero = d.filter((v) => v !== 0);
  const sizes = nonZero.map(Math.abs);
  const ranks = averageRanks(sizes);
  let plus = 0;
  let minus = 0;
  nonZero.forEach((v, i) => (v > 0 ? (plus += ranks[i]) : (minus += ranks[i])));
  const n = nonZero.length;
  const result: SignedRankTest = {
    pairs: d.length,
    zeros: d.length - n,
    statistic: Number.NaN,
    rankBiserial: n > 0 ? (plus - minus) / (plus + minus) : Number.NaN,
    pValue: Number.NaN,
    method: 'none',
  };
  // Two pairs and one non-zero difference at least; fewer is no evidence either way.
  if (d.length < 2 || n === 0) return result;
  result.statistic = plus;
  const ties = tieTerm(sizes);
  if (n <= EXACT_MAX && ties === 0 && result.zeros === 0) return { ...result, pValue: exactP(plus, n), method: 'exact' };
  return { ...result, pValue: normalP(plus, { n, ties }), method: 'normal' };
}

/**
 * The smallest two-sided p the test can give with n non-zero differences: 2 / 2^n exact
 * (every difference of one sign), or the normal approximation's at V = n(n+1)/2 above 50.
 */
export function smallestP(n: number): number {
  if (n < 2) return Number.NaN;
  return n <= EXACT_MAX ? Math.min(1, 2 / 2 ** n) : normalP((n * (n + 1)) / 2, { n, ties: 0 });
}

/** d ascending, with the count of Walsh averages (d_i + d_j) / 2, i <= j, at or below a value. */
class WalshAverages {
  readonly sorted: Float64Array;
  readonly total: number;

  constructor(d: readonly number[]) {
    this.sorted = Float64Array.from(d).sort();
    this.total = (d.length * (d.length + 1)) / 2;
  }

  /** Pairs i <= j with d_i + d_j <= sum (two pointers over the sorted values: O(n)). */
  countSumsAtMost(sum: number): number {
    const s = this.sorted;
    let count = 0;
    let j = s.length - 1;
    for (let i = 0; i < s.length; i++) {
      while (j >= i && s[i] + s[j] > sum) j--;
      if (j < i) break;
      count += j - i + 1;
    }
    return count;
  }

  /** The sums d_i + d_j (i <= j) in (low, high], ascending: for each i a binary search finds its run of j. */
  private sumsBetween(low: number, high: number): number[] {
    const s = this.sorted;
    const out: number[] = [];
    for (let i = 0; i < s.length; i++) {
      for (let j = firstTrue(i, s.length, (k) => k === s.length || s[i] + s[k] > low); j < s.length && s[i] + s[j] <= high; j++) {
        out.push(s[i] + s[j]);
      }
    }
    return out.sort((a, b) => a - b);
  }

  /**
   * The k-th smallest Walsh average (1-based): bisection on the sum keeps count(low) < k <=
   * count(high) until few sums lie between (then they are listed) or low and high are
   * neighbouring doubles (then the k-th sum is high), O(n) a step and nothing of size n^2.
   */
  kth(k: number): number {
    const s = this.sorted;
    let low = 2 * s[0] - 1 - Math.abs(2 * s[0]);
    let high = 2 * s[s.length - 1];
    let below = 0;
    let upTo = this.total;
    while (upTo - below > s.length) {
      const mid = low + (high - low) / 2;
      if (mid <= low || mid >= high) return high / 2;
      const count = this.countSumsAtMost(mid);
      if (count < k) [low, below] = [mid, count];
      else [high, upTo] = [mid, count];
    }
    return this.sumsBetween(low, high)[k - below - 1] / 2;
  }

  median(): number {
    const m = this.total;
    return m % 2 === 1 ? this.kth((m + 1) / 2) : (this.kth(m / 2) + this.kth(m / 2 + 1)) / 2;
  }
}

export interface HodgesLehmann {
  /** The median of the Walsh averages (d_i + d_j) / 2, i <= j (R's "(pseudo)median" of the exact case). */
  estimate: number;
  /** The interval's bounds (-Infinity / +Infinity: the level cannot be reached on that side with these pairs). */
  lower: number;
  upper: number;
  /** A bound equal to 0 that the set leaves out (the test rejects at 0 but not just beside it). */
  lowerOpen: boolean;
  upperOpen: boolean;
  /** 0 lies inside [lower, upper] but the test rejects it there alone (ties and zeros at 0 only): the set is the interval without 0. */
  withoutZero: boolean;
  level: number;
  method: 'exact' | 'normal' | 'none';
}

/** Whether the interval leaves 0 out; the same answer as `signedRankTest(d).pValue < 1 - level`. */
export function excludesZero(h: HodgesLehmann): boolean {
  if (h.withoutZero) return true;
  return h.lower > 0 || h.upper < 0 || (h.lower === 0 && h.lowerOpen) || (h.upper === 0 && h.upperOpen);
}

/** The smallest k in [from, to] with accepted(k), for a predicate false then true on that range. */
function firstTrue(from: number, to: number, accepted: (k: number) => boolean): number {
  let [lo, hi] = [from, to];
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (accepted(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The Hodges-Lehmann estimate of d's centre and its signed-rank interval at `level` (e.g. 0.95);
 * `alpha`, 1 - level by default, is given exactly where 1 - level would round (alpha / m of a family).
 * The test's method is decided from d as signedRankTest decides it, then the interval is every
 * shift mu whose V(mu) = #{Walsh averages > mu} the test accepts: between the Walsh averages
 * d - mu has no zero and no new tie, so the accepted shifts run from the k_L-th to the
 * (k_U + 1)-th Walsh average (R's qsignrank bounds when exact; the roots R's uniroot finds
 * when normal). At mu = 0 itself, where zeros or ties of d can make the test differ from its
 * neighbourhood, the interval follows the test's own p (`excludesZero`).
 */
export function hodgesLehmann(d: readonly number[], level: number, alpha = 1 - level): HodgesLehmann {
  if (!(level > 0 && level < 1)) throw new Error(`hodgesLehmann: level ${level} is not in (0, 1)`);
  const test = signedRankTest(d);
  const none = { estimate: Number.NaN, lower: Number.NaN, upper: Number.NaN, lowerOpen: false, upperOpen: false, withoutZero: false };
  if (test.method === 'none') return { ...none, level, method: 'none' };
  const walsh = new WalshAverages(d);
  const n = d.length;
  const m = walsh.total;
  const law: NormalLaw = { n, ties: tieTerm(d) };
  const p = (v: number) => (test.method === 'exact' ? exactP(v, n) : normalP(v, law));
  // Shifts between the (k)-th and (k+1)-th Walsh averages have V = m - k.
  const kLow = firstTrue(0, Math.floor(m / 2), (k) => p(m - k) >= alpha);
  const kHigh = firstTrue(Math.ceil(m / 2), m + 1, (k) => k > m || p(m - k) < alpha) - 1;
  const out: HodgesLehmann = {
    ...none,
    estimate: walsh.median(),
    lower: kLow === 0 ? -Infinity : walsh.kth(kLow),
    upper: kHigh >= m ? Infinity : walsh.kth(kHigh + 1),
    level,
    method: test.method,
  };
  return agreeAtZero(out, test.pValue < alpha);
}

/** The interval's answer at 0 made the test's own (module comment); a no-op in the exact case, where 0 is never a Walsh average. */
function agreeAtZero(h: HodgesLehmann, rejected: boolean): HodgesLehmann {
  const inside = h.lower <= 0 && h.upper >= 0;
  if (!rejected && !inside) return { ...h, lower: Math.min(h.lower, 0), upper: Math.max(h.upper, 0) };
  if (!rejected || !inside) return h;
  if (h.lower === 0) return { ...h, lowerOpen: true };
  if (h.upper === 0) return { ...h, upperOpen: true };
  return { ...h, withoutZero: true };
}
