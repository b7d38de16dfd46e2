// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { averageRanks, comparePaired, holm, quantile, quartiles } from '../src/report/stats.ts';

describe('quartiles (type 7, linear interpolation)', () => {
  it('matches hand-computed values', () => {
    assert.deepEqual(quartiles([4, 1, 3, 2]), { q1: 1.75, median: 2.5, q3: 3.25 });
    assert.deepEqual(quartiles([5, 3, 1, 4, 2]), { q1: 2, median: 3, q3: 4 });
    assert.equal(quantile([7], 0.25), 7);
    assert.ok(Number.isNaN(quantile([], 0.5)));
  });

  it('treats unsolved runs (Infinity) as slower than every solved one', () => {
    assert.deepEqual(quartiles([1, 2, 3, Infinity]), { q1: 1.75, median: 2.5, q3: Infinity });
    assert.equal(quantile([1, Infinity], 0.5), Infinity);
    assert.equal(quantile([1, 2, 3, Infinity, Infinity], 0.5), 3);
  });
});

describe('averageRanks', () => {
  it('gives ties the mean of their ranks', () => {
    assert.deepEqual(averageRanks([10, 20, 10, 30]), [1.5, 3, 1.5, 4]);
  });
});

describe('comparePaired (Wilcoxon signed-rank: exact from the signed-rank distribution, else the normal approximation)', () => {
  // Hollander & Wolfe's depression scores (R's ?wilcox.test example). By hand: the
  // differences x - y ranked by size are 0.01 (1), -0.08 (2), -0.147 (3), 0.43 (4),
  // 0.49 (5), 0.59 (6), 0.62 (7), 0.952 (8), 1.022 (9): R- = 2 + 3 = 5, V = R+ = 40. Exact
  // two-sided p = 2 P(V <= 5) = 2 * 10/512 (ten subsets of 1..9 sum to 5 or less) = 0.0390625.
  const x = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
  const y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];

  it('reproduces the hand-checked example', () => {
    const c = comparePaired(x, y);
    assert.equal(c.statistic, 40);
    assert.equal(c.method, 'exact');
    assert.ok(Math.abs(c.pValue - 0.0390625) < 1e-12, `p = ${c.pValue}`);
    assert.ok(Math.abs(c.rankBiserial - 35 / 45) < 1e-12);
    assert.equal(c.pairs, 9);
    assert.equal(c.zeros, 0);
  });

  it('is symmetric: swapping cell and baseline flips r and keeps p', () => {
    const c = comparePaired(y, x);
    assert.equal(c.statistic, 5);
    assert.ok(Math.abs(c.pValue - 0.0390625) < 1e-12);
    assert.ok(Math.abs(c.rankBiserial + 35 / 45) < 1e-12);
  });

  it('caps the exact two-sided p-value at 1 (the library can exceed it at the centre)', () => {
    // Ranks 1..4, R+ = 1 + 4 = 5 = n(n+1)/4: the library returns 2 * 9/16 = 1.125.
    const c = comparePaired([1, -2, -3, 4], [0, 0, 0, 0]);
    assert.equal(c.method, 'exact');
    assert.equal(c.pValue, 1);
  });

  it('drops zero differences and then uses the normal approximation', () => {
    const c = comparePaired([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 1]);
    assert.equal(c.zeros, 1);
    assert.equal(c.method, 'normal');
    assert.equal(c.rankBiserial, 1);
    assert.ok(c.pValue > 0 && c.pValue < 0.1);
  });

  it('reports no test when every pair is equal (the library would throw)', () => {
    const c = comparePaired([3, 3, Infinity], [3, 3, Infinity]);
    assert.equal(c.method, 'none');
    assert.ok(Number.isNaN(c.pValue));
    assert.ok(Number.isNaN(c.rankBiserial));
    assert.equal(c.zeros, 3);
  });

  it('ranks an unsolved run (Infinity) above every finite difference', () => {
    const c = comparePaired([1, 2, Infinity], [2, 3, 4]);
    // |d| = 1, 1, Infinity: ranks 1.5, 1.5, 3; R+ = 3, R- = 3.
    assert.equal(c.rankBiserial, 0);
    assert.equal(c.method, 'normal');
    assert.ok(c.pValue >= 0 && c.pValue <= 1);
    assert.equal(c.medianRatio, 0.5833333333333333); // median of 1/2 and 2/3: the solved pairs only
  });
});

describe('holm', () => {
  it('adjusts step-down and keeps the order monotone', () => {
    const adjusted = holm([0.01, 0.04, 0.03, Number.NaN]);
    assert.deepEqual(
      adjusted.slice(0, 3).map((p) => Math.round(p * 1e9) / 1e9),
      [0.03, 0.06, 0.06],
    );
    assert.ok(Number.isNaN(adjusted[3]));
  });
});
