import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HybridIsland } from '../src/ga/hybrid/hybrid-island.ts';
import { hybridParams } from '../src/ga/hybrid/params.ts';
import { release, releasableCounts, releasableGenes, RELEASABLE_N } from '../src/ga/hybrid/release.ts';
import { Rng } from '../src/ga/rng.ts';
import { backToGenes, RowArray, toRowsInPlace } from '../src/problem/genes.ts';
import { validateSolution } from '../src/problem/validate.ts';

describe('what a large run gives back (docs/large-n.md, 10^9 queens)', () => {
  it('releases the buffers of large boards at once, and leaves small ones as they are', () => {
    const big = releasableCounts(RELEASABLE_N);
    assert.equal(big.length, 2 * RELEASABLE_N - 1);
    release(big);
    assert.equal(big.length, 0);
    assert.equal(big.buffer.byteLength, 0);
    const small = releasableCounts(1000);
    release(small);
    assert.equal(small.length, 1999);
    assert.equal(releasableGenes(1000, 2), undefined);
    assert.equal(releasableGenes(RELEASABLE_N, 2)!.length, 2 * RELEASABLE_N);
  });

  it('a solved hybrid island at N = 2^20 gives back its members and counts, and keeps its solution', () => {
    const n = RELEASABLE_N;
    const island = new HybridIsland({ params: hybridParams(n, { populationSize: 2 }), rng: Rng.forStream(7, 0) });
    while (!island.step());
    const solution = island.solution!;
    island.release();
    assert.equal(island.population.genes.length, 0);
    assert.ok(island.population.boards.every((b) => b.counts.length === 0));
    assert.equal(solution.length, n);
    assert.deepEqual(
      validateSolution(
        Array.from(solution, (g) => g + 1),
        n,
      ),
      { valid: true },
    );
  });

  it('makes rows in place of decoded genes from N = 2^20, and can undo it', () => {
    const n = RELEASABLE_N;
    const genes = new Int32Array(n);
    for (let i = 0; i < n; i++) genes[i] = n - 1 - i;
    const rows = toRowsInPlace(genes);
    assert.ok(rows instanceof RowArray && rows.buffer === genes.buffer);
    assert.equal(rows[0], n);
    assert.equal(rows[n - 1], 1);
    backToGenes(genes, rows);
    assert.equal(genes[0], n - 1);
    // Below 2^20 the rows are a copy (numbers) and the genes stay as they came.
    const small = Int32Array.of(2, 0, 1);
    assert.deepEqual(toRowsInPlace(small), [3, 1, 2]);
    assert.deepEqual(Array.from(small), [2, 0, 1]);
  });
});
