// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
/**
 * `report` on huge studies (issue 39's last items): the bootstrap intervals read packed arrays,
 * the paired ratio's Walsh averages are counted, never listed, and the record check looks
 * seeds up. The numbers must not move: each fast form is checked against the plain form it
 * replaced (kept here as the oracle) on seeded data with ties, zeros, unsolved runs and
 * baselines of 0. (bench/big-study.ts writes a study of 120,000 runs to time it: docs/performance.md.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '../src/ga/rng.ts';
import { pairedRatio } from '../src/report/statistics/ratio.ts';
import { fitnessesWithin } from '../src/report/statistics/run-length.ts';
import { ertInterval, quantile, type RunLength } from '../src/report/statistics/stats.ts';

/** The type 7 quantile as it was: a copy sorted by a comparator. */
function oldQuantile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  if (lo === hi) return sorted[lo];
  if (sorted[hi] === Infinity) return Infinity;
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** ERT's bootstrap as it was: records read in place. */
function oldErtInterval(runs: readonly RunLength[]): { lower: number; upper: number } {
  const n = runs.length;
  const rng = Rng.forStream(1, 0);
  const estimates: number[] = [];
  for (let b = 0; b < 2000; b++) {
    let total = 0;
    let successes = 0;
    for (let k = 0; k < n; k++) {
      const r = runs[rng.int(n)];
      total += r.evaluations;
      if (r.solved) successes++;
    }
    estimates.push(successes === 0 ? Infinity : total / successes);
  }
  return { lower: oldQuantile(estimates, (1 - 0.95) / 2), upper: oldQuantile(estimates, (1 + 0.95) / 2) };
}

/** Seeded values: integers with many ties (and zeros where `zeros`), some Infinity (unsolved) where `unsolved`. */
function values(rng: Rng, n: number, { unsolved = 0, zeros = 0 } = {}): number[] {
  return Array.from({ length: n }, () => {
    const u = rng.float();
    if (u < unsolved) return Infinity;
    if (u < unsolved + zeros) return 0;
    return 1 + rng.int(40) * 250;
  });
}

describe('the report on huge studies gives the numbers it gave', () => {
  const rng = Rng.forStream(5, 0);
  const sizes = [1, 2, 3, 7, 40, 301];

  it('quantile: the typed sort picks the same order statistics', () => {
    for (const n of [0, ...sizes]) {
      const v = values(rng, n, { unsolved: 0.2 });
      for (const p of [0, 0.025, 0.25, 0.5, 0.75, 0.975, 1]) assert.equal(quantile(v, p), oldQuantile(v, p), `n ${n}, p ${p}`);
    }
  });

  it("ERT's bootstrap interval", () => {
    for (const n of sizes)
      for (const unsolved of [0, 0.3, 1]) {
        const runs = values(rng, n, { unsolved }).map((v) =>
          v === Infinity ? { solved: false, evaluations: 10_000 } : { solved: true, evaluations: v },
        );
        assert.deepEqual(ertInterval(runs), oldErtInterval(runs), `n ${n}, unsolved ${unsolved}`);
      }
  });

  it('the paired ratio: the Hodges-Lehmann estimate and interval of 2000 tied log ratios, without listing their 2 million Walsh averages', () => {
    const d = values(rng, 2000).map((v, i) => Math.log(v / (1 + ((i * 7919) % 40) * 250)));
    const walsh = new Float64Array((2000 * 2001) / 2);
    let k = 0;
    for (let i = 0; i < d.length; i++) for (let j = i; j < d.length; j++) walsh[k++] = (d[i] + d[j]) / 2;
    walsh.sort();
    const m = walsh.length;
    const r = pairedRatio(d, 0.05);
    assert.equal(r.value, Math.exp((walsh[m / 2 - 1] + walsh[m / 2]) / 2));
    // Both bounds are Walsh averages (the normal case: the ties rule out the exact one).
    assert.ok(walsh.includes(Math.log(r.lower)) || walsh.some((w) => Math.exp(w) === r.lower));
    assert.ok(walsh.some((w) => Math.exp(w) === r.upper));
  });

  it('the fixed-budget curves: one pass per trajectory reads what one scan per budget read', () => {
    /** fitnessWithin as it was: a scan from the start for each budget. */
    const oldWithin = (t: [number, number][], solved: boolean, budget: number): number | undefined => {
      if (t.length === 0 || budget < t[0][0]) return undefined;
      if (budget > t[t.length - 1][0]) return solved ? 0 : undefined;
      let value = t[0][1];
      for (const [x, f] of t) {
        if (x > budget) break;
        value = f;
      }
      return value;
    };
    for (let k = 0; k < 200; k++) {
      // Ascending evaluations, and now and then a point out of order (a damaged record).
      const t = Array.from({ length: rng.int(6) }, (_, i): [number, number] => [(i + 1) * 100 - (rng.float() < 0.1 ? 150 : 0), 9 - i]);
      const ascending = Array.from({ length: 12 }, (_, i) => i * 60);
      const shuffled = ascending.map((b) => b + rng.int(200)).sort(() => rng.float() - 0.5);
      for (const budgets of [ascending, shuffled])
        for (const solved of [true, false])
          assert.deepEqual(
            fitnessesWithin(t, solved, budgets),
            budgets.map((b) => oldWithin(t, solved, b)),
            JSON.stringify([t, budgets]),
          );
    }
  });
});
