// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DiagonalMarks, fitness } from '../src/problem/fitness.ts';
import { allocGenes, toOneBased, type Genes } from '../src/problem/genes.ts';
import { referenceFitness } from '../src/problem/reference-fitness.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { createEvolver } from '../src/ga/create-evolver.ts';
import { randomPermutation } from '../src/ga/permutation.ts';
import { Rng } from '../src/ga/rng.ts';
import type { Board } from '../src/ga/hybrid/board.ts';
import { conflictMutation } from '../src/ga/hybrid/conflict-mutation.ts';
import {
  collectConflicts,
  compactConflicts,
  countDiagonals,
  downAt,
  isConflicted,
  newBoard,
  SATURATED,
  upAt,
} from '../src/ga/hybrid/diagonals.ts';
import { HybridIsland } from '../src/ga/hybrid/hybrid-island.ts';
import { localSearch } from '../src/ga/hybrid/local-search.ts';
import { HYBRID_ERRORS, hybridParams, type HybridOperators, type HybridParams } from '../src/ga/hybrid/params.ts';
import { regreedBlock, smartStart } from '../src/ga/hybrid/smart-start.ts';
import { countBoard, OccupancyBits } from '../src/ga/hybrid/occupancy.ts';
import { assertPaperIterationCounting, bestK, isPermutation, replaceWorstIfBetter } from './helpers.ts';
import { applySwap, swapDelta, swapDeltaByRecount } from '../src/ga/hybrid/swap-delta.ts';

const paperFitness = (genes: Genes, offset: number, n: number): number => fitness(genes, offset, n, new DiagonalMarks(n));

/** The true number of queens on each diagonal, counted plainly. */
function trueCounts(genes: Genes, offset: number, n: number): { up: number[]; down: number[] } {
  const up = new Array<number>(2 * n - 1).fill(0);
  const down = new Array<number>(2 * n - 1).fill(0);
  for (let i = 0; i < n; i++) {
    up[genes[offset + i] - i + n - 1]++;
    down[genes[offset + i] + i]++;
  }
  return { up, down };
}

/**
 * The board's counts (four bits each, with the wide map for 15 or more), fitness and conflict list
 * agree with its genes: of the k queens on any diagonal at least k - 1 are listed.
 */
function assertConsistent(b: Board, what = 'board'): void {
  const { n } = b;
  const counts = trueCounts(b.genes, b.offset, n);
  assert.equal(b.fitness, paperFitness(b.genes, b.offset, n), `${what}: paper fitness`);
  const listed = new Set(b.list.cols.subarray(0, b.list.count));
  const listedOn = { up: new Array<number>(2 * n - 1).fill(0), down: new Array<number>(2 * n - 1).fill(0) };
  for (const i of listed) {
    listedOn.up[b.genes[b.offset + i] - i + n - 1]++;
    listedOn.down[b.genes[b.offset + i] + i]++;
  }
  for (const [dir, at, key] of [
    ['up', upAt, 0],
    ['down', downAt, 2 * n],
  ] as const) {
    for (let d = 0; d < 2 * n - 1; d++) {
      const k = counts[dir][d];
      const stored = at(b.counts, d) === SATURATED ? b.wide.get(key + d) : at(b.counts, d);
      assert.equal(stored, k, `${what}: ${dir} count ${d}`);
      assert.ok(listedOn[dir][d] >= k - 1, `${what}: ${dir} diagonal ${d} holds ${k} queens, ${listedOn[dir][d]} listed`);
    }
  }
  let wide = 0;
  for (const d of [...counts.up, ...counts.down]) if (d >= SATURATED) wide++;
  assert.equal(b.wide.size, wide, `${what}: wide entries`);
}

function boardOf(genes: Genes, n: number): Board {
  const b = newBoard(n, genes, 0);
  b.fitness = countDiagonals(b);
  collectConflicts(b);
  return b;
}

/** Swaps two random queens as the operators do: counts updated, both columns listed, fitness moved by swapDelta. */
function randomSwap(b: Board, rng: Rng): void {
  const i = rng.int(b.n);
  const j = (i + 1 + rng.int(b.n - 1)) % b.n;
  b.fitness += swapDelta(b.genes, 0, b.n, b.counts, i, j);
  applySwap(b, i, j);
  b.list.push(i);
  b.list.push(j);
}

function randomBoard(n: number, rng: Rng): Board {
  const genes = allocGenes(n);
  randomPermutation(genes, 0, n, rng);
  return boardOf(genes, n);
}

function solve(params: HybridParams, seed: number, maxIterations = 50_000): HybridIsland {
  const island = new HybridIsland({ params, rng: Rng.forStream(seed, 0) });
  while (!island.step() && island.iterations < maxIterations);
  return island;
}

function assertSolved(island: HybridIsland, n: number): void {
  assert.ok(island.solution, `N = ${n}: no solution after ${island.iterations} generations`);
  assert.deepEqual(validateSolution(toOneBased(island.solution), n), { valid: true });
  assert.equal(island.bestFitness(), 0);
}

describe('diagonal counts', () => {
  it('countDiagonals gives the paper fitness (fast and reference) on random permutations', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer(), (n, seed) => {
        const b = randomBoard(n, Rng.forStream(seed, 1));
        assert.equal(b.fitness, paperFitness(b.genes, 0, n));
        assert.equal(b.fitness, referenceFitness(toOneBased(b.genes)));
      }),
      { numRuns: 300 },
    );
  });

  it('collectConflicts lists exactly the queens that share a diagonal', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 80 }), fc.integer(), (n, seed) => {
        const b = randomBoard(n, Rng.forStream(seed, 2));
        const expected: number[] = [];
        for (let i = 0; i < n; i++) if (isConflicted(b.genes, 0, n, b.counts, i)) expected.push(i);
        assert.deepEqual([...b.list.cols.subarray(0, b.list.count)], expected);
        assert.equal(b.list.count === 0, b.fitness === 0);
        // Stale entries and repeats are dropped by a compaction, conflicted ones kept.
        for (let i = 0; i < n; i++) b.list.push(i % 3 === 0 ? i : (i * 7) % n);
        compactConflicts(b);
        assert.deepEqual(
          [...b.list.cols.subarray(0, b.list.count)].sort((x, y) => x - y),
          expected,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('countBoard (through occupancy bits) gives exact counts, the paper fitness and a list that keeps its promise', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer(), fc.boolean(), (n, seed, identity) => {
        const genes = allocGenes(n);
        randomPermutation(genes, 0, n, Rng.forStream(seed, 6));
        // The identity puts every queen on one diagonal: past 15 the counts saturate into the wide map.
        if (identity) for (let i = 0; i < n; i++) genes[i] = i;
        const b = newBoard(n, genes, 0);
        b.list.push(0); // whatever the list held is replaced
        assert.equal(countBoard(b, new OccupancyBits(n)), b.fitness);
        assertConsistent(b, `N = ${n}${identity ? ', identity' : ''}`);
        // Exactly k - 1 of the k queens on a diagonal are listed: no more than the fitness.
        assert.equal(new Set(b.list.cols.subarray(0, b.list.count)).size, b.list.count);
        assert.ok(b.list.count <= b.fitness);
      }),
      { numRuns: 300 },
    );
  });
});

describe('swapDelta', () => {
  it('equals a full recount on thousands of random swaps, and applySwap keeps the counts exact', () => {
    let swaps = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 40 }),
        fc.integer(),
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 40 }),
        (n, seed, identity, pairs) => {
          const b = randomBoard(n, Rng.forStream(seed, 3));
          // The identity puts every queen on one diagonal: the coinciding-diagonal cases.
          if (identity) for (let i = 0; i < n; i++) b.genes[i] = i;
          b.fitness = countDiagonals(b);
          collectConflicts(b);
          for (const [x, y] of pairs) {
            const i = x % n;
            const j = (i + 1 + (y % (n - 1))) % n;
            const before = paperFitness(b.genes, 0, n);
            const d = swapDelta(b.genes, 0, n, b.counts, i, j);
            assert.equal(swapDeltaByRecount(b, i, j), d);
            applySwap(b, i, j);
            b.list.push(i);
            b.list.push(j);
            b.fitness += d;
            assert.equal(paperFitness(b.genes, 0, n), before + d);
            swaps++;
          }
          assertConsistent(b);
        },
      ),
      { numRuns: 400 },
    );
    assert.ok(swaps > 2000, `only ${swaps} swaps checked`);
  });

  it('agrees with the recount at large N too (Int32Array genes)', () => {
    const n = 70_000;
    const b = randomBoard(n, Rng.forStream(5, 0));
    assert.ok(b.genes instanceof Int32Array);
    const rng = Rng.forStream(5, 1);
    for (let k = 0; k < 200; k++) randomSwap(b, rng);
    assertConsistent(b);
  });

  it('stays exact past 15 queens on a diagonal (four-bit counts saturate into the wide map)', () => {
    // The identity: n queens on one ↗ diagonal. Swaps take queens off it, and back on.
    const n = 600;
    const genes = allocGenes(n);
    for (let i = 0; i < n; i++) genes[i] = i;
    const b = boardOf(genes, n);
    assert.equal(upAt(b.counts, n - 1), SATURATED);
    assert.equal(b.wide.get(n - 1), n);
    assertConsistent(b, 'identity');
    const rng = Rng.forStream(8, 0);
    for (let k = 0; k < 1500; k++) {
      randomSwap(b, rng);
      if (k % 100 === 99) assertConsistent(b, `after ${k + 1} swaps`);
    }
    assert.ok(b.wide.size === 0 && upAt(b.counts, n - 1) < SATURATED, 'the swaps brought the diagonal below 15 again');
  });
});

describe('hybrid operators', () => {
  it('smartStart writes a permutation with its exact counts, far fitter than a random one', () => {
    for (const n of [1, 4, 8, 57, 1000, 20_000]) {
      for (const maxTries of [1, 128]) {
        const genes = allocGenes(n, 2);
        const b = newBoard(n, genes, n);
        assert.equal(smartStart(b, Rng.forStream(n, 0), maxTries, new OccupancyBits(n)), b.fitness);
        assert.ok(isPermutation(genes, n, n), `N = ${n}`);
        assertConsistent(b, `N = ${n}, maxTries ${maxTries}`);
        if (n >= 1000 && maxTries === 128) assert.ok(b.fitness < n / 100, `N = ${n}: fitness ${b.fitness}`);
      }
    }
  });

  it('regreedBlock places a block of a built board again: a permutation, exact counts and list, the rest unchanged', () => {
    for (const n of [2, 9, 300, 5000]) {
      const genes = allocGenes(n);
      const b = newBoard(n, genes, 0);
      const rng = Rng.forStream(n, 1);
      smartStart(b, rng, 128, new OccupancyBits(n));
      for (const [start, length] of [
        [0, n],
        [Math.floor(n / 3), Math.ceil(n / 2) - Math.floor(n / 6)],
        [n - 1, 1],
      ]) {
        const before = genes.slice();
        const f = regreedBlock(b, start, length, rng, 128);
        assert.equal(f, b.fitness);
        assert.ok(isPermutation(genes, 0, n), `N = ${n}`);
        assertConsistent(b, `N = ${n}, block ${start}+${length}`);
        for (let i = 0; i < n; i++) if (i < start || i >= start + length) assert.equal(genes[i], before[i]);
      }
    }
  });

  it('conflictMutation moves a conflicted queen and keeps a permutation with exact counts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 60 }), fc.integer(), fc.boolean(), (n, seed, useDelta) => {
        const rng = Rng.forStream(seed, 4);
        const b = randomBoard(n, rng);
        const before = b.genes.slice();
        const d = conflictMutation(b, rng, 8, useDelta);
        assert.ok(isPermutation(b.genes, 0, n));
        assertConsistent(b);
        const moved = [...b.genes].filter((g, i) => g !== before[i]).length;
        if (b.fitness - d > 0) assert.equal(moved, 2);
        else assert.equal(moved, 0);
      }),
      { numRuns: 200 },
    );
  });

  it('localSearch keeps a permutation, never raises the fitness, and respects maxSteps', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 300 }), fc.integer(), fc.integer({ min: 0, max: 5000 }), (n, seed, maxSteps) => {
        const rng = Rng.forStream(seed, 5);
        const b = randomBoard(n, rng);
        const start = b.fitness;
        const steps = localSearch(b, rng, { maxSteps, triesPerQueen: 32, useSwapDelta: true });
        assert.ok(steps <= maxSteps);
        assert.ok(isPermutation(b.genes, 0, n));
        assert.ok(b.fitness <= start);
        assertConsistent(b);
      }),
      { numRuns: 150 },
    );
  });

  it('localSearch stops when shouldStop says so', () => {
    const n = 5000;
    const rng = Rng.forStream(9, 0);
    const b = randomBoard(n, rng);
    let asked = 0;
    const steps = localSearch(b, rng, { maxSteps: 1e9, triesPerQueen: 32, useSwapDelta: true }, () => ++asked >= 2);
    assert.equal(asked, 2);
    assert.equal(steps, 2 * 4096);
    assertConsistent(b);
  });
});

describe('HybridIsland', () => {
  it('finds valid solutions from N = 8 to N = 100,000 (fixed seeds)', () => {
    for (const n of [4, 8, 9, 10, 12, 16, 25, 50, 100, 1000, 10_000, 100_000]) {
      for (const seed of n <= 1000 ? [1, 2, 3] : [1]) assertSolved(solve(hybridParams(n), seed), n);
    }
  });

  it('still solves small boards with each helper turned off: random start, no local search on children, no crossover', () => {
    for (const n of [8, 10, 20, 30, 100]) {
      const noStart = hybridParams(n, { operators: { smartStart: null } });
      assertSolved(solve(noStart, 7), n);
      // Selection, crossover, conflict-directed mutation and survival alone (100 needs ~130 generations).
      const gaOnly = hybridParams(n, {
        operators: { smartStart: null, localSearch: { applyTo: 'migrants', maxSteps: 100, triesPerQueen: 8 } },
      });
      const island = solve(gaOnly, 7);
      assertSolved(island, n);
      if (n >= 30) assert.ok(island.iterations > 10, `N = ${n}: ${island.iterations} generations`);
      const noCrossover = hybridParams(n, { operators: { crossover: { probability: 0 } } });
      assertSolved(solve(noCrossover, 7), n);
    }
  });

  it('keeps every member consistent: genes a permutation, counts and fitness exact', () => {
    const n = 200;
    const params = hybridParams(n, {
      operators: { smartStart: null, localSearch: { applyTo: 'children', maxSteps: 5, triesPerQueen: 2 } },
    });
    const island = new HybridIsland({ params, rng: Rng.forStream(3, 0) });
    for (let it = 0; it < 40 && !island.step(); it++) {
      for (let s = 0; s < island.population.size; s++) {
        const b = island.population.boards[s];
        assert.ok(isPermutation(b.genes, b.offset, n));
        assert.equal(island.population.fitness[s], b.fitness);
        assertConsistent(b, `generation ${island.iterations}, slot ${s}`);
      }
    }
    assert.equal(island.iterations, 40);
  });

  it("counts generations as the paper's island does: 0 for a solution at the start, 1 for one made in generation 1", () => {
    // N = 6, random start, no local search: some seeds start solved, some solve in generation 1 or 2.
    const params = hybridParams(6, { populationSize: 4, operators: { smartStart: null, localSearch: null } });
    assertPaperIterationCounting((seed) => new HybridIsland({ params, rng: Rng.forStream(seed, 0) }), 2000, assert.equal);
  });

  it('replays the same run from the same seed, and swapDelta off changes the cost, not the run', () => {
    const n = 100;
    // A short local search, so that the run takes many generations of every operator.
    const params = hybridParams(n, { operators: { smartStart: null, localSearch: { applyTo: 'both', maxSteps: 40, triesPerQueen: 8 } } });
    const a = solve(params, 11);
    assert.ok(a.iterations > 5 && a.swapEvaluations > 1000, `${a.iterations} generations, ${a.swapEvaluations} swaps`);
    const b = solve(params, 11);
    const slow = solve({ ...params, operators: { ...params.operators, swapDelta: false } }, 11);
    for (const other of [b, slow]) {
      assert.deepEqual(other.solution, a.solution);
      assert.equal(other.iterations, a.iterations);
      assert.equal(other.evaluations, a.evaluations);
      assert.equal(other.swapEvaluations, a.swapEvaluations);
    }
    assert.notDeepEqual(solve(params, 12).solution, a.solution);
  });

  it('sends emigrants and takes immigrants, recounting the members they replace', () => {
    const n = 300;
    const params = hybridParams(n, { operators: { smartStart: null, localSearch: null } });
    const from = new HybridIsland({ params, rng: Rng.forStream(1, 0) });
    const to = new HybridIsland({ params, rng: Rng.forStream(1, 1) });
    const migrants = from.emigrants(3, bestK);
    assert.equal(migrants.length, 3 * n);
    assert.deepEqual(migrants.subarray(0, n), from.best());
    // One emigrant is lent as the member itself (valid until the next step): equal to the best, no copy.
    const one = from.emigrants(1, bestK);
    assert.deepEqual(one, from.best());
    assert.equal(one.buffer, from.population.genes.buffer);
    const worstBefore = Math.max(...to.population.fitness);
    const accepted = to.immigrate(migrants.slice(), 3, replaceWorstIfBetter);
    assert.ok(accepted > 0 && accepted <= 3, `accepted ${accepted}`);
    assert.ok(Math.max(...to.population.fitness) <= worstBefore);
    for (let s = 0; s < to.population.size; s++) assertConsistent(to.population.boards[s], `slot ${s}`);
    // The same migrants again are duplicates of members now; with rejectDuplicates they stay out.
    assert.equal(to.immigrate(migrants.slice(), 3, replaceWorstIfBetter, true), 0);
  });

  it('keeps a solved child as the solution, which neither migrants (searched on arrival) nor further steps change', () => {
    const n = 300;
    const params = hybridParams(n, { operators: { localSearch: { applyTo: 'both', maxSteps: 1000, triesPerQueen: 8 } } });
    const island = new HybridIsland({ params, rng: Rng.forStream(5, 0) });
    assert.equal(island.solution, null, 'not solved by the build (the test is of a child that solves)');
    while (!island.step() && island.iterations < 50_000);
    const kept = toOneBased(island.solution!);
    assert.deepEqual(validateSolution(kept, n), { valid: true });
    for (let k = 0; k < 5; k++) {
      const random = allocGenes(n, 2);
      randomPermutation(random, 0, n, Rng.forStream(5, 10 + k));
      randomPermutation(random, n, n, Rng.forStream(5, 20 + k));
      island.immigrate(random, 2, replaceWorstIfBetter);
      assert.equal(island.step(), true);
    }
    assert.deepEqual(toOneBased(island.solution!), kept);
  });

  it('improves migrants by local search on arrival, and records a solution that arrives', () => {
    const n = 200;
    const solved = solve(hybridParams(n), 4);
    assertSolved(solved, n);
    const toMigrants = hybridParams(n, {
      operators: { smartStart: null, localSearch: { applyTo: 'migrants', maxSteps: 100_000, triesPerQueen: 32 } },
    });
    const island = new HybridIsland({ params: toMigrants, rng: Rng.forStream(4, 1) });
    const before = island.bestFitness();
    const random = allocGenes(n);
    randomPermutation(random, 0, n, Rng.forStream(4, 2));
    island.immigrate(random, 1, replaceWorstIfBetter);
    assert.ok(island.bestFitness() < before, 'the searched migrant should beat random members');
    for (let s = 0; s < island.population.size; s++) assertConsistent(island.population.boards[s], `slot ${s}`);

    const receiver = new HybridIsland({ params: hybridParams(n, { operators: { localSearch: null } }), rng: Rng.forStream(4, 3) });
    receiver.immigrate(solved.solution!.slice(), 1, replaceWorstIfBetter);
    assert.deepEqual(receiver.solution, solved.solution);
    assert.equal(receiver.step(), true);
  });

  it('checks its parameters and is what createEvolver builds for mode "hybrid"', () => {
    assert.throws(() => new HybridIsland({ params: hybridParams(8, { populationSize: 1 }), rng: Rng.forStream(1, 0) }), {
      message: HYBRID_ERRORS.population,
    });
    assert.throws(() => new HybridIsland({ params: hybridParams(8, { childrenPerGeneration: 0 }), rng: Rng.forStream(1, 0) }), {
      message: HYBRID_ERRORS.children,
    });
    const bad = (operators: Partial<HybridOperators>) => () =>
      new HybridIsland({ params: hybridParams(8, { operators }), rng: Rng.forStream(1, 0) });
    assert.throws(bad({ smartStart: { maxTries: 0 } }), { message: HYBRID_ERRORS.maxTries });
    assert.throws(bad({ crossover: { probability: 1.5 } }), { message: HYBRID_ERRORS.probability });
    assert.throws(bad({ conflictMutation: { probability: 0.5, moves: 1, partners: 0 } }), { message: HYBRID_ERRORS.mutation });
    assert.throws(bad({ localSearch: { applyTo: 'everyone' as 'both', maxSteps: 10, triesPerQueen: 1 } }), {
      message: HYBRID_ERRORS.localSearch,
    });
    const evolver = createEvolver({ mode: 'hybrid', params: hybridParams(50) }, Rng.forStream(1, 0));
    assert.ok(evolver instanceof HybridIsland);
    while (!evolver.step());
    assert.deepEqual(validateSolution(toOneBased(evolver.solution!), 50), { valid: true });
  });

  it('abandons a generation when shouldStop says so', () => {
    const params = hybridParams(2000, { operators: { smartStart: null } });
    let stop = false; // from the first generation on (a stop during the build is test/startup-stop.test.ts)
    const island = new HybridIsland({ params, rng: Rng.forStream(1, 0), shouldStop: () => stop });
    stop = true;
    assert.equal(island.step(), false);
    assert.equal(island.iterations, 0);
    assert.equal(island.solution, null);
  });
});
