import type { Genes } from '../problem/genes.ts';
import { BUILD_STOP_GRANULE, buildStopped } from './build-stopped.ts';
import { IslandCore } from './island-core.ts';
import { DiagonalMarks, fitness } from '../problem/fitness.ts';
import { createPaperKernel, type ChildFn } from './kernel.ts';
import { childrenPerIteration, type GaParams } from './params.ts';
import { drawMutation } from './mutation.ts';
import { randomPermutation } from './permutation.ts';
import { Population } from './population.ts';
import type { Rng } from './rng.ts';
import { restoreIsland, type IslandState } from './snapshot.ts';
import { rankSelect, rankSelectOther, uniformOther } from './selection.ts';
import { plusSelection, SurvivalScratch } from './survival.ts';

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
export class Island extends IslandCore {
  readonly params: GaParams;
  /** The bad-population repository B: fixed for the run. */
  readonly bad: Population;

  /** A view into the kernel's memory, as are the genes of `population` and `bad`. */
  private readonly children: Genes;
  private readonly childFitness: Int32Array;
  /** Lineage: each child's origin, its first parent's (null: not tracked). */
  private childOrigin: Uint16Array | null = null;
  private readonly diagonals: DiagonalMarks;
  /** The WebAssembly kernel's crossover + mutation swaps + fitness of one child (src/ga/kernel.ts). */
  private readonly child: ChildFn;
  /** Gene indices in the kernel's memory of the bad repository and the children (the population is at 0). */
  private readonly badBase: number;
  private readonly childBase: number;
  private readonly survival: SurvivalScratch;
  /** One child's mutation swaps (i1, j1, i2, j2), reused. */
  private readonly swaps = new Int32Array(4);
  private readonly shouldStop: (() => boolean) | undefined;

  constructor(options: IslandOptions) {
    const p = options.params;
    const childCapacity = Math.max(childrenPerIteration(p), 1);
    const m = p.populationSize;
    const b = p.badRepositorySize;
    // Population, bad repository and children back to back in the kernel's memory.
    const kernel = createPaperKernel(p.n, m + b + childCapacity);
    super(p.n, new Population(p.n, m, kernel.genes.subarray(0, m * p.n)), options.rng);
    this.params = p;
    this.shouldStop = options.shouldStop;
    this.badBase = m * p.n;
    this.childBase = (m + b) * p.n;
    this.bad = new Population(p.n, b, kernel.genes.subarray(this.badBase, this.childBase));
    this.children = kernel.genes.subarray(this.childBase, this.childBase + childCapacity * p.n);
    this.child = kernel.child;
    this.childFitness = new Int32Array(childCapacity);
    this.diagonals = new DiagonalMarks(p.n);
    this.survival = new SurvivalScratch(p.n);
    if (options.snapshot) restoreIsland(this, options.snapshot);
    else this.initialise();
  }

  /**
   * Draws M + b random permutations; the best M are the main population, the worst b are B.
   * A stop asked for meanwhile (a time limit or signal during start-up; asked every
   * BUILD_STOP_GRANULE genes) ends the build:
   * @throws BuildStopped with the best permutation drawn so far.
   */
  private initialise(): void {
    const { n, populationSize: m, badRepositorySize: b } = this.params;
    const all = new Population(n, m + b);
    let checked = 0;
    for (let s = 0; s < m + b; s++) {
      if (s * n >= checked + BUILD_STOP_GRANULE) {
        checked = s * n;
        if (this.shouldStop?.()) throw buildStopped(all.genes, all.fitness, s, n, this.evaluations);
      }
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
    this.recordIfBestSolves();
  }

  private evaluate(genes: Genes, offset: number): number {
    this.evaluations++;
    return fitness(genes, offset, this.n, this.diagonals);
  }

  protected evaluateImmigrant(genes: Genes, offset: number): number {
    return this.evaluate(genes, offset);
  }

  protected survivalScratch(): SurvivalScratch {
    return this.survival;
  }

  protected lineageStarted(): void {
    this.childOrigin = new Uint16Array(this.childFitness.length);
    this.population.originSource = this.childOrigin;
  }

  /**
   * Crosses the parents at gene indices a and b (of the kernel's memory) into children c
   * and c + 1 (same cut points, child 1 = OX1(A, B), child 2 = OX1(B, A)), mutates and
   * evaluates both. Returns true if one is a solution.
   */
  private breed(a: number, b: number, c: number): boolean {
    const { n, crossoverProbability } = this.params;
    const rng = this.rng;
    // Without crossover each child is a copy of its first parent: OX1 with the whole chromosome as segment.
    let lo = 0;
    let hi = n - 1;
    if (crossoverProbability >= 1 || rng.float() < crossoverProbability) {
      const x = rng.int(n);
      const y = rng.int(n);
      lo = x < y ? x : y;
      hi = x < y ? y : x;
    }
    return this.breedChild(a, b, c, lo, hi) || this.breedChild(b, a, c + 1, lo, hi);
  }

  /**
   * Child k = OX1(p1, p2) on segment lo..hi, mutated and evaluated by one kernel call.
   * The mutation is drawn by `drawMutation` (src/ga/mutation.ts), as `mutate` draws it.
   * The parents are never children, so crossing child 2 after child 1 was mutated gives
   * what crossing both first gave. Returns true for a solution.
   */
  private breedChild(p1: number, p2: number, k: number, lo: number, hi: number): boolean {
    const { n, mutationProbability, doubleMutationProbability } = this.params;
    const s = this.swaps;
    if (this.evaluations >= this.evaluationBudget) return false; // breedGeneration sees it and abandons the generation
    const count = drawMutation(this.rng, n, mutationProbability, doubleMutationProbability, s);
    this.evaluations++;
    const f = this.child(p1, p2, this.childBase + k * n, n, lo, hi, count, s[0], s[1], s[2], s[3]);
    this.childFitness[k] = f;
    // A parent in the bad repository (after the population in the kernel's memory) is native.
    if (this.childOrigin !== null) this.childOrigin[k] = p1 < this.badBase ? this.population.origin![p1 / n] : this.population.home;
    if (f === 0) {
      this.recordSolution(this.children, k * n);
      return true;
    }
    return false;
  }

  /**
   * One iteration (a generation, in the paper's outline): rank-selected pairs, the bad
   * pair, bad × main, then (μ+λ) survival. Returns true once a solution is found. The
   * generation that finds it counts, as the paper counts (a solution made in generation 1
   * reports 1; one in the initial population, 0); it ends at that child, without survival.
   * Stops early, leaving the iteration uncounted, when `shouldStop` says so or the
   * evaluation budget is spent.
   */
  step(): boolean {
    if (this.solution) return true;
    const children = this.breedGeneration();
    if (children < 0) return false;
    this.iterations++;
    if (this.solution) return true;
    plusSelection(this.population, this.children, this.childFitness, children, this.survival);
    return false;
  }

  /** Breeds one generation's children; returns how many, or -1 if abandoned for a stop or the evaluation budget. Ends early at a solution. */
  private breedGeneration(): number {
    const pop = this.population;
    const rng = this.rng;
    const { n, populationSize: m, pairsPerIteration, badRepositorySize: b } = this.params;
    let c = 0;
    for (let pair = 0; pair < pairsPerIteration; pair++) {
      if (pair % STOP_CHECK_EVERY === STOP_CHECK_EVERY - 1 && this.shouldStop?.()) return -1;
      const ra = rankSelect(rng, m);
      const rb = rankSelectOther(rng, m, ra);
      if (this.breed(pop.order[ra] * n, pop.order[rb] * n, c)) return c + 2;
      if (this.evaluations >= this.evaluationBudget) return -1;
      c += 2;
    }
    if (b >= 2) {
      const x = rng.int(b);
      const y = uniformOther(rng, b, x);
      if (this.breed(this.badBase + x * n, this.badBase + y * n, c)) return c + 2;
      if (this.evaluations >= this.evaluationBudget) return -1;
      c += 2;
    }
    if (b >= 1) {
      const x = rng.int(b);
      const y = rng.int(m);
      if (this.breed(this.badBase + x * n, y * n, c)) return c + 2;
      if (this.evaluations >= this.evaluationBudget) return -1;
      c += 2;
    }
    return c;
  }
}
