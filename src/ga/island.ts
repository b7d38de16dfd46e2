import { allocGenes, copyGenes, type Genes } from '../problem/genes.ts';
import type { Evolver } from './evolver.ts';
import { DiagonalMarks, fitness } from '../problem/fitness.ts';
import { AlleleMarks, order1Crossover } from './crossover.ts';
import { mutate } from './mutation.ts';
import { childrenPerIteration, type GaParams } from './params.ts';
import { randomPermutation } from './permutation.ts';
import { Population } from './population.ts';
import type { Rng } from './rng.ts';
import { restoreIsland, type IslandState } from './snapshot.ts';
import { rankSelect, rankSelectOther, uniformOther } from './selection.ts';
import { plusSelection, SurvivalScratch } from './survival.ts';

/** How emigrants are chosen: writes `k` distinct slots of `pop` into `slots`. */
export type EmigrantSelection = (pop: Population, rng: Rng, k: number, slots: Int32Array) => void;

/**
 * How arriving chromosomes enter: `count` immigrants (already evaluated) replace
 * members of `pop` by some rule. Returns how many were accepted.
 */
export type ReplacementPolicy = (
  pop: Population, rng: Rng, genes: Genes, fitness: Int32Array, count: number, scratch: SurvivalScratch,
) => number;

export interface IslandOptions {
  params: GaParams;
  rng: Rng;
  /** Asked every few children; when it answers true the iteration is abandoned (the run is stopping). */
  shouldStop?: () => boolean;
  /** Continue from a checkpoint instead of drawing a new population (`rng` must be restored from it too). */
  snapshot?: IslandState;
}

/** How many children are bred between two `shouldStop` checks. */
const STOP_CHECK_EVERY = 32;

/**
 * One population evolving under the paper's GA: a main population, its fixed bad
 * repository and its own random stream. Pure and synchronous; the island model drives
 * it from a worker thread, tests drive it directly.
 */
export class Island implements Evolver {
  readonly n: number;
  readonly params: GaParams;
  readonly population: Population;
  /** The bad-population repository B: fixed for the run. */
  readonly bad: Population;
  readonly rng: Rng;
  iterations = 0;
  evaluations = 0;
  /** 0-based genes of the first chromosome found with fitness 0. */
  solution: Genes | null = null;

  private readonly children: Genes;
  private readonly childFitness: Int32Array;
  private readonly diagonals: DiagonalMarks;
  private readonly alleles: AlleleMarks;
  private readonly survival: SurvivalScratch;
  private readonly shouldStop: (() => boolean) | undefined;

  constructor(options: IslandOptions) {
    const p = options.params;
    this.params = p;
    this.n = p.n;
    this.rng = options.rng;
    this.shouldStop = options.shouldStop;
    this.population = new Population(p.n, p.populationSize);
    this.bad = new Population(p.n, p.badRepositorySize);
    const childCapacity = Math.max(childrenPerIteration(p), 1);
    this.children = allocGenes(p.n, childCapacity);
    this.childFitness = new Int32Array(childCapacity);
    this.diagonals = new DiagonalMarks(p.n);
    this.alleles = new AlleleMarks(p.n);
    this.survival = new SurvivalScratch(p.n);
    if (options.snapshot) restoreIsland(this, options.snapshot);
    else this.initialise();
  }

  /** Draws M + b random permutations; the best M are the main population, the worst b are B. */
  private initialise(): void {
    const { n, populationSize: m, badRepositorySize: b } = this.params;
    const all = new Population(n, m + b);
    for (let s = 0; s < m + b; s++) {
      randomPermutation(all.genes, s * n, n, this.rng);
      all.fitness[s] = this.evaluate(all.genes, s * n);
    }
    all.rerank();
    for (let r = 0; r < m + b; r++) {
      const slot = all.order[r];
      const target = r < m ? this.population : this.bad;
      const at = r < m ? r : r - m;
      target.copyIn(at, all.genes, slot * n, all.fitness[slot]);
    }
    this.population.rerank();
    this.bad.rerank();
    const best = this.population.bestSlot();
    if (this.population.fitness[best] === 0) this.recordSolution(this.population.genes, best * n);
  }

  private evaluate(genes: Genes, offset: number): number {
    this.evaluations++;
    return fitness(genes, offset, this.n, this.diagonals);
  }

  private recordSolution(genes: Genes, offset: number): void {
    if (this.solution) return;
    this.solution = allocGenes(this.n);
    copyGenes(genes, offset, this.solution, 0, this.n);
  }

  /**
   * Crosses two parents into children c and c + 1 (same cut points, child 1 = OX1(A, B),
   * child 2 = OX1(B, A)), mutates and evaluates both. Returns true if one is a solution.
   */
  private breed(a: Genes, aOffset: number, b: Genes, bOffset: number, c: number): boolean {
    const { n, crossoverProbability, mutationProbability, doubleMutationProbability } = this.params;
    const rng = this.rng;
    const kids = this.children;
    const first = c * n;
    const second = first + n;
    if (crossoverProbability >= 1 || rng.float() < crossoverProbability) {
      const x = rng.int(n);
      const y = rng.int(n);
      const lo = x < y ? x : y;
      const hi = x < y ? y : x;
      order1Crossover(a, aOffset, b, bOffset, kids, first, n, lo, hi, this.alleles);
      order1Crossover(b, bOffset, a, aOffset, kids, second, n, lo, hi, this.alleles);
    } else {
      copyGenes(a, aOffset, kids, first, n);
      copyGenes(b, bOffset, kids, second, n);
    }
    for (let k = c; k <= c + 1; k++) {
      const offset = k * n;
      mutate(kids, offset, n, rng, mutationProbability, doubleMutationProbability);
      const f = this.evaluate(kids, offset);
      this.childFitness[k] = f;
      if (f === 0) {
        this.recordSolution(kids, offset);
        return true;
      }
    }
    return false;
  }

  /**
   * One iteration (a generation, in the paper's outline): rank-selected pairs, the bad
   * pair, bad × main, then (μ+λ) survival. Returns true once a solution is found; stops
   * early, leaving the iteration uncounted, when `shouldStop` says so.
   */
  step(): boolean {
    if (this.solution) return true;
    const pop = this.population;
    const bad = this.bad;
    const rng = this.rng;
    const { n, populationSize: m, pairsPerIteration, badRepositorySize: b } = this.params;
    const genes = pop.genes;
    let c = 0;
    for (let pair = 0; pair < pairsPerIteration; pair++) {
      if (pair % STOP_CHECK_EVERY === STOP_CHECK_EVERY - 1 && this.shouldStop?.()) return false;
      const ra = rankSelect(rng, m);
      const rb = rankSelectOther(rng, m, ra);
      if (this.breed(genes, pop.order[ra] * n, genes, pop.order[rb] * n, c)) return true;
      c += 2;
    }
    if (b >= 2) {
      const x = rng.int(b);
      const y = uniformOther(rng, b, x);
      if (this.breed(bad.genes, x * n, bad.genes, y * n, c)) return true;
      c += 2;
    }
    if (b >= 1) {
      const x = rng.int(b);
      const y = rng.int(m);
      if (this.breed(bad.genes, x * n, genes, y * n, c)) return true;
      c += 2;
    }
    plusSelection(pop, this.children, this.childFitness, c, this.survival);
    this.iterations++;
    return false;
  }

  bestFitness(): number {
    return this.population.fitness[this.population.bestSlot()];
  }

  /** A copy of the best chromosome (0-based genes). */
  best(): Genes {
    const out = allocGenes(this.n);
    this.population.copyOut(this.population.bestSlot(), out, 0);
    return out;
  }

  /** Copies `k` emigrants chosen by `select` into a new flat array (k * N genes). */
  emigrants(k: number, select: EmigrantSelection): Genes {
    const count = Math.min(k, this.population.size);
    const slots = new Int32Array(count);
    select(this.population, this.rng, count, slots);
    const out = allocGenes(this.n, count);
    for (let i = 0; i < count; i++) this.population.copyOut(slots[i], out, i * this.n);
    return out;
  }

  /**
   * Evaluates `count` immigrants (flat, 0-based) and lets `replace` place them. An
   * immigrant of fitness 0 is recorded as a solution. With `rejectDuplicates`, an
   * immigrant equal to a current member is dropped. Returns how many were accepted.
   */
  immigrate(genes: Genes, count: number, replace: ReplacementPolicy, rejectDuplicates = false): number {
    const n = this.n;
    const fit = new Int32Array(count);
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const f = this.evaluate(genes, i * n);
      if (f === 0) this.recordSolution(genes, i * n);
      if (rejectDuplicates && this.population.contains(genes, i * n, f)) continue;
      if (kept !== i) copyGenes(genes, i * n, genes, kept * n, n);
      fit[kept++] = f;
    }
    return kept === 0 ? 0 : replace(this.population, this.rng, genes, fit, kept, this.survival);
  }
}
