// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleDiversity } from '../src/archipelago/diversity.ts';
import { Population } from '../src/ga/population.ts';

function population(rows: number[][]): Population {
  const n = rows[0].length;
  const pop = new Population(n, rows.length);
  rows.forEach((row, s) => pop.genes.set(row, s * n));
  pop.rerank();
  return pop;
}

describe('diversity', () => {
  it('is 0 for identical members and 1 when no two members share a gene position', () => {
    assert.equal(
      sampleDiversity(
        population([
          [0, 1, 2, 3],
          [0, 1, 2, 3],
          [0, 1, 2, 3],
        ]),
      ),
      0,
    );
    assert.equal(
      sampleDiversity(
        population([
          [0, 1, 2, 3],
          [1, 2, 3, 0],
          [2, 3, 0, 1],
        ]),
      ),
      1,
    );
  });

  it('is the mean pairwise Hamming distance as a fraction of N', () => {
    // Pairs: (a, b) differ in 2 of 4, (a, c) in 4, (b, c) in 4: mean 10 / 3 of 4.
    assert.equal(
      sampleDiversity(
        population([
          [0, 1, 2, 3],
          [1, 0, 2, 3],
          [3, 2, 1, 0],
        ]),
      ),
      10 / 12,
    );
  });

  it('samples scattered positions on long chromosomes, without aliasing a periodic difference', () => {
    const n = 10_000;
    const a = Array.from({ length: n }, (_, i) => i);
    const b = a.map((v, i) => (i % 2 === 0 ? (v + 1) % n : v)); // every even position differs
    const d = sampleDiversity(population([a, b]));
    assert.ok(d > 0.4 && d < 0.6, `${d}`);
  });
});
