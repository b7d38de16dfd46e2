import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DiagonalMarks, fitness } from '../src/problem/fitness.ts';
import { allocGenes, fromOneBased, toOneBased } from '../src/problem/genes.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { AlleleMarks, order1Crossover } from '../src/ga/crossover.ts';
import { Island } from '../src/ga/island.ts';
import { mutate, swapGenes } from '../src/ga/mutation.ts';
import { childrenPerIteration, paperParams } from '../src/ga/params.ts';
import { Population } from '../src/ga/population.ts';
import { Rng } from '../src/ga/rng.ts';
import { rankSelect } from '../src/ga/selection.ts';
import { plusSelection, SurvivalScratch } from '../src/ga/survival.ts';
import { assertPaperIterationCounting, bestK, isPermutation, paper, replaceWorstIfBetter } from './helpers.ts';

function cross(p1: number[], p2: number[], lo: number, hi: number): number[] {
  const child = allocGenes(p1.length);
  order1Crossover(fromOneBased(p1), 0, fromOneBased(p2), 0, child, 0, p1.length, lo, hi, new AlleleMarks(p1.length));
  return toOneBased(child);
}

function solve(n: number, seed: number, overrides = {}, maxIterations = 20_000): Island {
  const island = new Island({ params: paperParams(n, overrides), rng: Rng.forStream(seed, 0) });
  while (!island.step() && island.iterations < maxIterations);
  return island;
}

describe("order-1 crossover (the paper's variant)", () => {
  const { parent1, parent2, segment, child } = paper.examples.order1Crossover;

  it("gives exactly the paper's child", () => {
    assert.deepEqual(cross(parent1, parent2, segment.from - 1, segment.to - 1), child);
  });

  it('gives the second child from the same cut points with the parents swapped', () => {
    assert.deepEqual(cross(parent2, parent1, segment.from - 1, segment.to - 1), [2, 3, 6, 4, 7, 5, 1, 8]);
  });

  it("fills from the left, unlike Davis's OX1 which starts after the second cut", () => {
    // Davis's OX1 fills after the second cut and wraps: 7 5 3 1 6 4 2 8 for the paper's parents.
    assert.notDeepEqual(cross(parent1, parent2, 2, 5), [7, 5, 3, 1, 6, 4, 2, 8]);
  });

  it("always makes a permutation that keeps parent 1's segment and parent 2's order", () => {
    const arbitrary = fc.integer({ min: 2, max: 60 }).chain((n) => {
      const range = Array.from({ length: n }, (_, i) => i + 1);
      const perm = fc.shuffledSubarray(range, { minLength: n, maxLength: n });
      return fc.tuple(perm, perm, fc.nat(n - 1), fc.nat(n - 1));
    });
    fc.assert(
      fc.property(arbitrary, ([p1, p2, x, y]) => {
        const lo = Math.min(x, y);
        const hi = Math.max(x, y);
        const c = cross(p1, p2, lo, hi);
        const rest = p2.filter((a) => !p1.slice(lo, hi + 1).includes(a));
        return (
          isPermutation(
            c.map((v) => v - 1),
            0,
            c.length,
          ) &&
          c.slice(lo, hi + 1).join() === p1.slice(lo, hi + 1).join() &&
          [...c.slice(0, lo), ...c.slice(hi + 1)].join() === rest.join()
        );
      }),
      { numRuns: 2000, seed: 11 },
    );
  });
});

describe('mutation', () => {
  it("gives the paper's example swap", () => {
    const { before, positions, after } = paper.examples.swapMutation;
    const genes = fromOneBased(before);
    swapGenes(genes, 0, positions[0] - 1, positions[1] - 1);
    assert.deepEqual(toOneBased(genes), after);
  });

  it('swaps twice below 0.4, once below 0.8, never above', () => {
    const swapsFor = (u: number) => {
      let ints = 0;
      const fake = { float: () => u, int: (bound: number) => (ints++, ints % 2 === 1 ? 0 : bound - 1) } as unknown as Rng;
      mutate(allocGenes(8), 0, 8, fake, 0.8, 0.4);
      return ints / 2;
    };
    assert.equal(swapsFor(0.0), 2);
    assert.equal(swapsFor(0.39), 2);
    assert.equal(swapsFor(0.4), 1);
    assert.equal(swapsFor(0.79), 1);
    assert.equal(swapsFor(0.8), 0);
    assert.equal(swapsFor(0.99), 0);
  });

  it('keeps a permutation and changes 2 genes on a single swap', () => {
    const rng = Rng.forStream(5, 0);
    for (let t = 0; t < 1000; t++) {
      const genes = allocGenes(12);
      for (let i = 0; i < 12; i++) genes[i] = i;
      mutate(genes, 0, 12, rng, 1, 0);
      assert.ok(isPermutation(genes, 0, 12));
      assert.equal([...genes].filter((g, i) => g !== i).length, 2);
    }
  });
});

describe('rank selection', () => {
  it('matches linear ranking with pressure 2 (chi-square, fixed seed) and rejects uniform and weaker pressure', () => {
    const size = 10;
    const draws = 200_000;
    const counts = new Array<number>(size).fill(0);
    const rng = Rng.forStream(2024, 0);
    for (let i = 0; i < draws; i++) counts[rankSelect(rng, size)]++;
    const linear = (pressure: number) => (r: number) => (2 - pressure + (2 * (pressure - 1) * (size - 1 - r)) / (size - 1)) / size;
    const chiSquare = (p: (r: number) => number, ranks: number) => {
      let x = 0;
      for (let r = 0; r < ranks; r++) x += (counts[r] - draws * p(r)) ** 2 / (draws * p(r));
      return x;
    };
    assert.equal(counts[size - 1], 0, 'the worst is never chosen');
    // 9 cells with non-zero expectation: 8 degrees of freedom; 26.12 is the 0.999 quantile.
    assert.ok(chiSquare(linear(2), size - 1) < 26.12, `chi-square ${chiSquare(linear(2), size - 1)}`);
    assert.ok(chiSquare(() => 1 / size, size - 1) > 1000, 'a uniform draw would be told apart');
    assert.ok(chiSquare(linear(1.9), size - 1) > 100, 'pressure 1.9 would be told apart');
    const ratio = counts[0] / ((counts[4] + counts[5]) / 2);
    assert.ok(Math.abs(ratio - 2) < 0.05, `best / median = ${ratio}`);
  });
});

describe('(μ+λ) survival', () => {
  const reference = (parents: number[], children: number[]) =>
    [...parents.map((f) => ({ f, parent: 0 })), ...children.map((f) => ({ f, parent: 1 }))]
      .sort((a, b) => a.f - b.f || a.parent - b.parent)
      .slice(0, parents.length)
      .map((x) => x.f)
      .sort((a, b) => a - b);

  it('keeps the best M of parents and children, ties keeping the parent', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 14 }), { minLength: 2, maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 14 }), { minLength: 0, maxLength: 30 }),
        (parentFit, childFit) => {
          const n = 8;
          const pop = new Population(n, parentFit.length);
          parentFit.forEach((f, s) => {
            pop.fitness[s] = f;
            pop.genes.fill(0, s * n, s * n + n);
          });
          pop.rerank();
          const children = allocGenes(n, Math.max(childFit.length, 1));
          childFit.forEach((_, c) => children.fill(1, c * n, c * n + n));
          const accepted = plusSelection(pop, children, Int32Array.from(childFit), childFit.length, new SurvivalScratch(n));
          const survivors = [...pop.fitness].sort((a, b) => a - b);
          const expected = reference(parentFit, childFit);
          let childrenIn = 0;
          for (let s = 0; s < pop.size; s++) if (pop.genes[s * n] === 1) childrenIn++;
          const ranked = [...pop.order].map((s) => pop.fitness[s]);
          return survivors.join() === expected.join() && accepted === childrenIn && ranked.every((f, i) => i === 0 || ranked[i - 1] <= f);
        },
      ),
      { numRuns: 2000, seed: 9 },
    );
  });

  it('does not let a child replace a parent of equal fitness', () => {
    const pop = new Population(4, 2);
    pop.fitness.set([3, 5]);
    pop.rerank();
    const accepted = plusSelection(pop, allocGenes(4, 1), Int32Array.of(5), 1, new SurvivalScratch(4));
    assert.equal(accepted, 0);
  });
});

describe('Island', () => {
  it('starts with the best M of M + b random permutations and keeps the worst b as the bad repository', () => {
    const island = new Island({ params: paperParams(25, { populationSize: 60 }), rng: Rng.forStream(1, 0) });
    assert.equal(island.bad.size, 5);
    const worstMain = Math.max(...island.population.fitness);
    assert.ok([...island.bad.fitness].every((f) => f >= worstMain));
    assert.equal(island.evaluations, 65);
    for (let s = 0; s < 60; s++) assert.ok(isPermutation(island.population.genes, s * 25, 25));
  });

  it('breeds M/2 pairs, the bad pair and bad × main per iteration, and keeps the bad repository fixed', () => {
    const params = paperParams(30, { populationSize: 50 });
    const island = new Island({ params, rng: Rng.forStream(3, 0) });
    const bad = island.bad.genes.slice();
    const before = island.evaluations;
    island.step();
    assert.equal(childrenPerIteration(params), 54);
    assert.equal(island.evaluations - before, 54);
    assert.deepEqual(island.bad.genes, bad);
  });

  it('never lets the best fitness get worse', () => {
    const island = new Island({ params: paperParams(40, { populationSize: 100 }), rng: Rng.forStream(4, 0) });
    let best = island.bestFitness();
    for (let i = 0; i < 50 && !island.step(); i++) {
      assert.ok(island.bestFitness() <= best);
      best = island.bestFitness();
    }
  });

  it('repeats a run exactly for the same seed, to the last iteration, and differs for another seed', () => {
    const a = solve(20, 77);
    const b = solve(20, 77);
    const c = solve(20, 78);
    assert.ok(a.solution && b.solution && c.solution);
    assert.deepEqual([a.iterations, a.evaluations, toOneBased(a.solution)], [b.iterations, b.evaluations, toOneBased(b.solution)]);
    assert.notDeepEqual([a.iterations, toOneBased(a.solution)], [c.iterations, toOneBased(c.solution)]);
  });

  it('solves every N from 4 to 30, and N = 64 and 100, with valid solutions', () => {
    for (const n of [...Array.from({ length: 27 }, (_, i) => i + 4), 64, 100]) {
      const island = solve(n, n);
      assert.ok(island.solution, `N = ${n} not solved in ${island.iterations} iterations`);
      assert.deepEqual(validateSolution(toOneBased(island.solution)), { valid: true }, `N = ${n}`);
      assert.equal(fitness(island.solution, 0, n, new DiagonalMarks(n)), 0);
    }
  });

  it('runs the steady-state reading with pairsPerIteration 1: six children per iteration', () => {
    const island = new Island({ params: paperParams(10, { pairsPerIteration: 1 }), rng: Rng.forStream(8, 0) });
    const before = island.evaluations;
    if (!island.step()) assert.equal(island.evaluations - before, 6);
    const solved = solve(10, 8, { pairsPerIteration: 1 }, 1_000_000);
    assert.ok(solved.solution && validateSolution(toOneBased(solved.solution)).valid);
  });

  it('gives up its best k as emigrants', () => {
    const island = new Island({ params: paperParams(16, { populationSize: 40 }), rng: Rng.forStream(6, 0) });
    const emigrants = island.emigrants(3, bestK);
    assert.equal(emigrants.length, 48);
    const expected = [0, 1, 2].map((r) => island.population.fitness[island.population.order[r]]);
    const marks = new DiagonalMarks(16);
    assert.deepEqual(
      [0, 1, 2].map((i) => fitness(emigrants, i * 16, 16, marks)),
      expected,
    );
  });

  it('takes in a fitter immigrant in place of its worst member, refuses a worse one, and records an immigrant solution', () => {
    const n = 8;
    const island = new Island({ params: paperParams(n, { populationSize: 20 }), rng: Rng.forStream(2, 0) });
    const worst = () => island.population.fitness[island.population.worstSlot()];
    const identity = fromOneBased([1, 2, 3, 4, 5, 6, 7, 8]); // fitness 7: worse than anything random here
    assert.equal(island.immigrate(identity, 1, replaceWorstIfBetter), 0);
    const solution = fromOneBased([2, 4, 6, 8, 3, 1, 7, 5]);
    const worstBefore = worst();
    assert.equal(island.immigrate(solution.slice(), 1, replaceWorstIfBetter), 1);
    assert.equal(island.bestFitness(), 0);
    assert.ok(worst() <= worstBefore);
    assert.deepEqual(toOneBased(island.solution!), [2, 4, 6, 8, 3, 1, 7, 5]);
    assert.equal(island.immigrate(solution.slice(), 1, replaceWorstIfBetter, true), 0, 'a duplicate is rejected');
  });

  it('counts iterations as the paper does: 0 for a solution in the initial population, 1 for one made in generation 1', () => {
    // N = 6 has 4 solutions among 720 permutations: with M = 20 some seeds start solved, some solve in generation 1.
    const params = paperParams(6, { populationSize: 20 });
    assertPaperIterationCounting((seed) => new Island({ params, rng: Rng.forStream(seed, 0) }), 500, assert.equal);
  });

  it('with rejectDuplicates, takes in one of two equal immigrants of one batch (each is new to the population)', () => {
    const n = 8;
    const solution = [2, 4, 6, 8, 3, 1, 7, 5];
    const other = [3, 6, 8, 1, 4, 7, 5, 2];
    const batch = fromOneBased([...solution, ...solution, ...other]);
    for (const reject of [false, true]) {
      const island = new Island({ params: paperParams(n, { populationSize: 20 }), rng: Rng.forStream(2, 0) });
      const accepted = island.immigrate(batch.slice(), 3, replaceWorstIfBetter, reject);
      const copies = [...Array(20).keys()].filter((s) => toOneBased(island.population.genes, s * n, n).join() === solution.join()).length;
      assert.equal(accepted, reject ? 2 : 3);
      assert.equal(copies, reject ? 1 : 2);
    }
  });

  it('abandons an iteration when told to stop, without counting it', () => {
    let calls = 0;
    let stop = false; // from the first iteration on (a stop during the build is test/startup-stop.test.ts)
    const island = new Island({
      params: paperParams(50, { populationSize: 200 }),
      rng: Rng.forStream(1, 0),
      shouldStop: () => (calls++, stop),
    });
    stop = true;
    calls = 0;
    assert.equal(island.step(), false);
    assert.equal(island.iterations, 0);
    assert.ok(calls >= 1);
  });
});
