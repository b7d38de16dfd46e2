import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IslandProgress } from '../src/archipelago/island-progress.ts';
import type { Evolver } from '../src/ga/evolver.ts';
import type { IslandTransport } from '../src/archipelago/island-transport.ts';
import { HybridIsland } from '../src/ga/hybrid/hybrid-island.ts';
import { hybridParams } from '../src/ga/hybrid/params.ts';
import { release, releasable, RELEASABLE_N } from '../src/ga/hybrid/release.ts';
import { allocCounts } from '../src/ga/hybrid/diagonals.ts';
import { Rng } from '../src/ga/rng.ts';
import { backToGenes, RowArray, toRowsInPlace } from '../src/problem/genes.ts';
import { validateSolution } from '../src/problem/validate.ts';

describe('what a large run gives back (docs/large-n.md, 10^9 queens)', () => {
  it('gives a buffer back before release returns, past 2^32 bytes too, and every view of it reads as empty', () => {
    // 4.3 GB: more than Node 20's largest resizable buffer (2^32 bytes), which 0.12 shrank instead.
    const big = new Int32Array((2 ** 32 + 2 ** 22) / 4);
    big.fill(1, 0, 2 ** 20);
    const view = big.subarray(10, 20);
    const before = process.memoryUsage().arrayBuffers;
    release(view);
    const after = process.memoryUsage().arrayBuffers;
    assert.equal(big.length, 0);
    assert.equal(view.length, 0);
    assert.ok(before - after >= 2 ** 32, `given back at once: ${before} -> ${after} bytes of array buffers`);
    assert.equal(releasable(RELEASABLE_N), true);
    assert.equal(releasable(RELEASABLE_N - 1), false);
    assert.equal(allocCounts(1000).length, 1999);
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

  it('sends no best over 1 GB while the island searches, only when it fails', () => {
    const sent: unknown[] = [];
    const transport = { report: (m: unknown) => sent.push(m) } as unknown as IslandTransport;
    // N = 3·10^8: a best of 1.2 GB (a stand-in population: only its size and best slot are read).
    const genes = { BYTES_PER_ELEMENT: 4, subarray: () => new Int32Array(0) };
    const evolver = { n: 3e8, solution: null, bestFitness: () => 5, population: { genes, bestSlot: () => 0 } } as unknown as Evolver;
    // As if the 30 s between large bests had passed (a private field, set for the test).
    const due = (p: IslandProgress): IslandProgress => {
      (p as unknown as { nextLargeBest: number }).nextLargeBest = 0;
      return p;
    };
    const progress = new IslandProgress(0, evolver, transport, 1000);
    due(progress).reportBest();
    assert.equal(sent.length, 0);
    progress.reportBest(true);
    assert.equal(sent.length, 1);
    // Under 1 GB (N = 2·10^8, 800 MB) it is sent when due, as before.
    const smaller = new IslandProgress(0, { ...evolver, n: 2e8 }, transport, 1000);
    due(smaller).reportBest();
    assert.equal(sent.length, 2);
  });
});
