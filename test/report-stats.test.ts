// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { averageRanks, quantile, quartiles, varghaDelaneyA12 } from '../src/report/statistics/stats.ts';

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

describe('varghaDelaneyA12', () => {
  it('is P(X > Y) + P(X = Y) / 2, counted by hand', () => {
    // x = 1, 2, 3 against y = 2, 4: of the 6 pairs x > y once (3, 2), x = y once (2, 2): A12 = 1.5 / 6.
    assert.equal(varghaDelaneyA12([1, 2, 3], [2, 4]), 0.25);
    assert.equal(varghaDelaneyA12([5, 6], [1, 2]), 1);
    assert.equal(varghaDelaneyA12([1, 2], [1, 2]), 0.5);
    assert.ok(Number.isNaN(varghaDelaneyA12([], [1])));
  });
});
