import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DiagonalMarks, fitness } from '../src/problem/fitness.ts';
import { allocGenes, copyGenes, fromOneBased, type Genes } from '../src/problem/genes.ts';
import { AlleleMarks, order1Crossover } from '../src/ga/crossover.ts';
import { Island } from '../src/ga/island.ts';
import { createPaperKernel, loadKernelModule, type PaperKernel } from '../src/ga/kernel.ts';
import { mutate, swapGenes } from '../src/ga/mutation.ts';
import { childrenPerIteration, paperParams, type GaParams } from '../src/ga/params.ts';
import { randomPermutation } from '../src/ga/permutation.ts';
import { Population } from '../src/ga/population.ts';
import { Rng } from '../src/ga/rng.ts';
import { rankSelect, rankSelectOther, uniformOther } from '../src/ga/selection.ts';
import { plusSelection, SurvivalScratch } from '../src/ga/survival.ts';

/**
 * The WebAssembly kernel (kernel/paper.ts) against the TypeScript operators it replaces
 * in the island's hot loop: order-1 crossover, mutation swaps and fitness must agree on
 * every input, for both gene widths.
 */

const MAX_N = 300;
/** Chromosome slots: two parents, the kernel's child, and a copy for the TypeScript reference. */
const SLOTS = 4;

/** A board size, two permutations of it, two cut points and two swaps. */
const crossInput = fc.integer({ min: 1, max: MAX_N }).chain((n) => {
  const range = Array.from({ length: n }, (_, i) => i);
  const perm = fc.shuffledSubarray(range, { minLength: n, maxLength: n });
  const pos = fc.nat(n - 1);
  return fc.record({
    n: fc.constant(n),
    p1: perm,
    p2: perm,
    x: pos,
    y: pos,
    swaps: fc.integer({ min: 0, max: 2 }),
    i1: pos,
    j1: pos,
    i2: pos,
    j2: pos,
  });
});

for (const width of [2, 4] as const) {
  describe(`kernel, ${width * 8}-bit genes`, () => {
    const kernel: PaperKernel = createPaperKernel(MAX_N, SLOTS, width);
    const ref = new AlleleMarks(MAX_N);
    const marks = new DiagonalMarks(MAX_N);

    /** Writes p1 and p2 into slots 0 and 1 (gene indices 0 and n). */
    const load = (n: number, p1: number[], p2: number[]) => {
      kernel.genes.set(p1, 0);
      kernel.genes.set(p2, n);
    };

    it('has the requested gene width', () => {
      assert.equal(kernel.genes instanceof (width === 2 ? Uint16Array : Int32Array), true);
      assert.equal(kernel.genes.length, MAX_N * SLOTS);
    });

    it('crossover equals order1Crossover (both children, same cut points)', () => {
      fc.assert(
        fc.property(crossInput, ({ n, p1, p2, x, y }) => {
          const lo = Math.min(x, y);
          const hi = Math.max(x, y);
          load(n, p1, p2);
          const g = kernel.genes;
          for (const [a, b] of [
            [0, n],
            [n, 0],
          ]) {
            kernel.cross(a, b, 2 * n, n, lo, hi);
            order1Crossover(g, a, g, b, g, 3 * n, n, lo, hi, ref);
            assert.deepEqual(g.subarray(2 * n, 3 * n), g.subarray(3 * n, 4 * n));
          }
        }),
        { numRuns: 3000, seed: 11 },
      );
    });

    it('fitness equals fitness() on random permutations', () => {
      fc.assert(
        fc.property(crossInput, ({ n, p1 }) => {
          load(n, p1, p1);
          assert.equal(kernel.fitness(0, n), fitness(kernel.genes, 0, n, marks));
          assert.equal(kernel.fitness(n, n), fitness(kernel.genes, n, n, marks));
        }),
        { numRuns: 3000, seed: 12 },
      );
    });

    it('fitness of the paper examples and of a solution', () => {
      for (const [tuple, f] of [
        [[2, 6, 8, 3, 4, 1, 7, 5], 2],
        [[2, 6, 7, 3, 4, 1, 8, 5], 4],
        [[8, 6, 4, 1, 3, 5, 7, 2], 1],
        [[2, 4, 6, 8, 3, 1, 7, 5], 0],
      ] as const) {
        kernel.genes.set(fromOneBased(tuple), 2 * 8);
        assert.equal(kernel.fitness(2 * 8, 8), f, tuple.join(' '));
      }
    });

    it('one child = crossover, then the swaps in order, then fitness', () => {
      fc.assert(
        fc.property(crossInput, ({ n, p1, p2, x, y, swaps, i1, j1, i2, j2 }) => {
          const lo = Math.min(x, y);
          const hi = Math.max(x, y);
          load(n, p1, p2);
          const g = kernel.genes;
          const f = kernel.child(n, 0, 2 * n, n, lo, hi, swaps, i1, j1, i2, j2);
          order1Crossover(g, n, g, 0, g, 3 * n, n, lo, hi, ref);
          if (swaps > 0) swapGenes(g, 3 * n, i1, j1);
          if (swaps > 1) swapGenes(g, 3 * n, i2, j2);
          assert.deepEqual(g.subarray(2 * n, 3 * n), g.subarray(3 * n, 4 * n));
          assert.equal(f, fitness(g, 3 * n, n, marks));
        }),
        { numRuns: 3000, seed: 13 },
      );
    });

    it('lo = 0, hi = n - 1 copies the first parent (no crossover)', () => {
      const n = 50;
      const rng = Rng.forStream(5, 0);
      const p = Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [p[i], p[j]] = [p[j], p[i]];
      }
      load(n, p, [...p].reverse());
      kernel.child(0, n, 2 * n, n, 0, n - 1, 0, 0, 0, 0, 0);
      assert.deepEqual([...kernel.genes.subarray(2 * n, 3 * n)], p);
    });

    it('stays right across the wrap-around of its allele-mark epoch', () => {
      const k = createPaperKernel(20, SLOTS, width);
      k.setEpoch(0x7fffffff - 3);
      fc.assert(
        fc.property(
          crossInput.filter((v) => v.n <= 20),
          ({ n, p1, p2, x, y }) => {
            k.genes.set(p1, 0);
            k.genes.set(p2, n);
            const lo = Math.min(x, y);
            const hi = Math.max(x, y);
            const f = k.child(0, n, 2 * n, n, lo, hi, 0, 0, 0, 0, 0);
            order1Crossover(k.genes, 0, k.genes, n, k.genes, 3 * n, n, lo, hi, ref);
            assert.deepEqual(k.genes.subarray(2 * n, 3 * n), k.genes.subarray(3 * n, 4 * n));
            assert.equal(f, fitness(k.genes, 3 * n, n, marks));
          },
        ),
        { numRuns: 20, seed: 14 },
      );
    });
  });
}

describe('kernel instances and loading', () => {
  it('gives every instance its own memory', () => {
    const a = createPaperKernel(10, 2);
    const b = createPaperKernel(10, 2);
    a.genes.fill(7);
    assert.equal(
      b.genes.every((v) => v === 0),
      true,
    );
    assert.notEqual(a.genes.buffer, b.genes.buffer);
  });

  it('picks 16-bit genes up to N = 65535 and 32-bit beyond, as allocGenes does', () => {
    assert.equal(createPaperKernel(65_535, 1).width, 2);
    assert.equal(createPaperKernel(65_536, 1).width, 4);
    assert.equal(createPaperKernel(65_536, 1).genes instanceof Int32Array, true);
    assert.throws(() => createPaperKernel(65_536, 1, 2), RangeError);
  });

  it('says to run the build when the wasm file is missing', () => {
    assert.throws(() => loadKernelModule(['/nonexistent/paper.wasm']), /npm run build/);
  });

  it('island in paper mode: identical iterations and evaluations for seed 1 at N = 200', () => {
    const island = new Island({ params: paperParams(200), rng: Rng.forStream(1, 0) });
    while (!island.step());
    assert.deepEqual([island.iterations, island.evaluations], [789, 792920]);
    assert.equal(fitness(island.solution!, 0, 200, new DiagonalMarks(200)), 0);
  });

  for (const [label, overrides] of [
    ['paper parameters', {}],
    ['crossover probability 0.5', { crossoverProbability: 0.5 }],
    ['steady state, no double mutation', { pairsPerIteration: 1, doubleMutationProbability: 0 }],
    ['bad repository of 1', { badRepositorySize: 1, mutationProbability: 0.3 }],
    ['no bad repository, double mutation above single', { badRepositorySize: 0, mutationProbability: 0.2, doubleMutationProbability: 0.6 }],
  ] as const) {
    it(`island equals the TypeScript reference step for step: ${label}`, () => {
      for (const [n, seed] of [
        [12, 1],
        [30, 2],
        [45, 3],
      ]) {
        const params = paperParams(n, { populationSize: 40, ...overrides });
        const island = new Island({ params, rng: Rng.forStream(seed, 0) });
        const ref = new ReferenceIsland(params, Rng.forStream(seed, 0));
        for (let it = 0; it < 60; it++) {
          const done = island.step();
          assert.equal(done, ref.step(), `N = ${n}, seed ${seed}, iteration ${it}`);
          assert.deepEqual([island.iterations, island.evaluations], [ref.iterations, ref.evaluations]);
          assert.deepEqual(island.population.genes, ref.population.genes);
          assert.deepEqual(island.population.fitness, ref.population.fitness);
          assert.deepEqual(island.population.order, ref.population.order);
          assert.deepEqual(island.rng.saveState(), ref.rng.saveState());
          if (done) {
            assert.deepEqual(island.solution, ref.solution);
            break;
          }
        }
      }
    });
  }
});

/** The island's step as it was before the kernel, with the TypeScript operators only. */
class ReferenceIsland {
  readonly population: Population;
  readonly bad: Population;
  iterations = 0;
  evaluations = 0;
  solution: Genes | null = null;
  private readonly children: Genes;
  private readonly childFitness: Int32Array;
  private readonly diagonals: DiagonalMarks;
  private readonly alleles: AlleleMarks;
  private readonly survival: SurvivalScratch;

  constructor(
    readonly params: GaParams,
    readonly rng: Rng,
  ) {
    const { n, populationSize: m, badRepositorySize: b } = params;
    this.population = new Population(n, m);
    this.bad = new Population(n, b);
    const capacity = Math.max(childrenPerIteration(params), 1);
    this.children = allocGenes(n, capacity);
    this.childFitness = new Int32Array(capacity);
    this.diagonals = new DiagonalMarks(n);
    this.alleles = new AlleleMarks(n);
    this.survival = new SurvivalScratch(n);
    const all = new Population(n, m + b);
    for (let s = 0; s < m + b; s++) {
      randomPermutation(all.genes, s * n, n, rng);
      all.fitness[s] = this.evaluate(all.genes, s * n);
    }
    all.rerank();
    for (let r = 0; r < m + b; r++) {
      const slot = all.order[r];
      (r < m ? this.population : this.bad).copyIn(r < m ? r : r - m, all.genes, slot * n, all.fitness[slot]);
    }
    this.population.rerank();
    this.bad.rerank();
    const best = this.population.bestSlot();
    if (this.population.fitness[best] === 0) this.record(this.population.genes, best * n);
  }

  private evaluate(genes: Genes, offset: number): number {
    this.evaluations++;
    return fitness(genes, offset, this.params.n, this.diagonals);
  }

  private record(genes: Genes, offset: number): void {
    if (this.solution) return;
    this.solution = allocGenes(this.params.n);
    copyGenes(genes, offset, this.solution, 0, this.params.n);
  }

  private breed(a: Genes, aOffset: number, b: Genes, bOffset: number, c: number): boolean {
    const { n, crossoverProbability, mutationProbability, doubleMutationProbability } = this.params;
    const kids = this.children;
    if (crossoverProbability >= 1 || this.rng.float() < crossoverProbability) {
      const x = this.rng.int(n);
      const y = this.rng.int(n);
      order1Crossover(a, aOffset, b, bOffset, kids, c * n, n, Math.min(x, y), Math.max(x, y), this.alleles);
      order1Crossover(b, bOffset, a, aOffset, kids, (c + 1) * n, n, Math.min(x, y), Math.max(x, y), this.alleles);
    } else {
      copyGenes(a, aOffset, kids, c * n, n);
      copyGenes(b, bOffset, kids, (c + 1) * n, n);
    }
    for (let k = c; k <= c + 1; k++) {
      mutate(kids, k * n, n, this.rng, mutationProbability, doubleMutationProbability);
      const f = this.evaluate(kids, k * n);
      this.childFitness[k] = f;
      if (f === 0) {
        this.record(kids, k * n);
        return true;
      }
    }
    return false;
  }

  step(): boolean {
    if (this.solution) return true;
    const { n, populationSize: m, pairsPerIteration, badRepositorySize: b } = this.params;
    const pop = this.population;
    const rng = this.rng;
    let c = 0;
    for (let pair = 0; pair < pairsPerIteration; pair++) {
      const ra = rankSelect(rng, m);
      const rb = rankSelectOther(rng, m, ra);
      if (this.breed(pop.genes, pop.order[ra] * n, pop.genes, pop.order[rb] * n, c)) return this.solved();
      c += 2;
    }
    if (b >= 2) {
      const x = rng.int(b);
      const y = uniformOther(rng, b, x);
      if (this.breed(this.bad.genes, x * n, this.bad.genes, y * n, c)) return this.solved();
      c += 2;
    }
    if (b >= 1) {
      const x = rng.int(b);
      const y = rng.int(m);
      if (this.breed(this.bad.genes, x * n, pop.genes, y * n, c)) return this.solved();
      c += 2;
    }
    plusSelection(pop, this.children, this.childFitness, c, this.survival);
    this.iterations++;
    return false;
  }

  /** The generation that made the solution counts, as the paper counts it. */
  private solved(): true {
    this.iterations++;
    return true;
  }
}
