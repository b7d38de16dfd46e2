import { allocGenes, copyGenes, type Genes } from '../../problem/genes.ts';
import { AlleleMarks, order1Crossover } from '../crossover.ts';
import { IslandCore } from '../island-core.ts';
import { restoreIsland, type IslandState } from '../snapshot.ts';
import { randomPermutation } from '../permutation.ts';
import type { Rng } from '../rng.ts';
import { rankSelect, rankSelectOther } from '../selection.ts';
import { SurvivalScratch } from '../survival.ts';
import type { Board } from './board.ts';
import { conflictMutation } from './conflict-mutation.ts';
import { allocCounts, collectConflicts, ConflictList, countDiagonals } from './diagonals.ts';
import { localSearch, type LocalSearchLimits } from './local-search.ts';
import { checkHybridParams, type HybridParams } from './params.ts';
import { HybridPopulation } from './population.ts';
import { OccupancyBits, smartStart } from './smart-start.ts';
import { plusSelectionDistinct } from './survival.ts';

export interface HybridIslandOptions {
  params: HybridParams;
  rng: Rng;
  /** Asked between children and every 4096 candidate swaps of a local search; true abandons the generation. */
  shouldStop?: () => boolean;
  /** Continue from a checkpoint instead of building new members (`rng` must be restored from it too). */
  snapshot?: IslandState;
}

/**
 * One island of the hybrid (memetic) GA, beyond the paper. A small population of
 * permutations, each with its diagonal counts; one generation breeds λ children (parent
 * by linear rank as in the paper, then crossover or a copy, conflict-directed mutation
 * and a bounded local search), and (μ+λ) survival keeps the best μ. Migrants leave and
 * enter through the same `Evolver` surface as the paper's `Island`, optionally improved
 * by the local search on arrival. Pure and synchronous; fitness is always exactly the
 * paper's fitness.
 *
 * `evaluations` counts whole chromosomes priced (initial members, children, immigrants),
 * `swapEvaluations` the O(1) candidate swaps priced by the operators.
 */
export class HybridIsland extends IslandCore<HybridPopulation> {
  readonly params: HybridParams;
  swapEvaluations = 0;

  private readonly children: Board[];
  /** 1 for a child that ended up an unchanged copy of its parent (it cannot enter). */
  private readonly unchanged: Uint8Array;
  private readonly conflicts: ConflictList;
  private readonly alleles: AlleleMarks | null;
  private readonly limits: LocalSearchLimits;
  private readonly shouldStop: (() => boolean) | undefined;
  /** The board an arriving chromosome is evaluated on: built once, pointed at each immigrant in turn. */
  private migrantBoard: { -readonly [K in keyof Board]: Board[K] } | null = null;
  private survival: SurvivalScratch | null = null;

  constructor(options: HybridIslandOptions) {
    const p = options.params;
    checkHybridParams(p);
    super(p.n, new HybridPopulation(p.n, p.populationSize), options.rng);
    this.params = p;
    this.shouldStop = options.shouldStop;
    const n = p.n;
    const childGenes = allocGenes(n, p.childrenPerGeneration);
    this.children = [];
    for (let c = 0; c < p.childrenPerGeneration; c++) {
      this.children.push({ n, genes: childGenes, offset: c * n, up: allocCounts(n), down: allocCounts(n), fitness: 0 });
    }
    this.unchanged = new Uint8Array(p.childrenPerGeneration);
    this.conflicts = new ConflictList(n);
    this.alleles = p.operators.crossover.probability > 0 ? new AlleleMarks(n) : null;
    const ls = p.operators.localSearch;
    this.limits = {
      maxSteps: ls ? ls.maxSteps : 0,
      triesPerQueen: ls ? ls.triesPerQueen : 0,
      useSwapDelta: p.operators.swapDelta,
    };
    if (options.snapshot) this.restore(options.snapshot);
    else this.initialise();
  }

  /** Loads a checkpointed population; the diagonal counts are not saved but recounted from the genes. */
  private restore(state: IslandState): void {
    restoreIsland(this, state);
    const pop = this.population;
    for (let s = 0; s < pop.size; s++) {
      const b = pop.boards[s];
      b.fitness = countDiagonals(pop.genes, b.offset, this.n, b.up, b.down);
      if (b.fitness !== pop.fitness[s]) throw new RangeError(`snapshot member ${s}: fitness ${pop.fitness[s]} does not match its genes (${b.fitness})`);
    }
  }

  /** μ smart starts (or random permutations), ranked; a member of fitness 0 is a solution. */
  private initialise(): void {
    const pop = this.population;
    const n = this.n;
    const start = this.params.operators.smartStart;
    const bits = start ? new OccupancyBits(n) : null;
    for (let s = 0; s < pop.size; s++) {
      const b = pop.boards[s];
      if (start && bits) {
        b.fitness = smartStart(pop.genes, b.offset, n, b.up, b.down, this.rng, start.maxTries, bits);
      } else {
        randomPermutation(pop.genes, b.offset, n, this.rng);
        b.fitness = countDiagonals(pop.genes, b.offset, n, b.up, b.down);
      }
      pop.syncFitness(s);
      this.evaluations++;
    }
    pop.rerank();
    this.recordIfBestSolves();
  }

  private get searchChildren(): boolean {
    const ls = this.params.operators.localSearch;
    return ls !== null && ls.applyTo !== 'migrants';
  }

  private get searchMigrants(): boolean {
    const ls = this.params.operators.localSearch;
    return ls !== null && ls.applyTo !== 'children';
  }

  /**
   * Breeds child c: a rank-selected parent, crossed with a second one (probability
   * `crossover.probability`) or copied; then conflict-directed mutation and local search.
   * Returns false if `shouldStop` interrupted the local search, or the evaluation budget is spent (nothing bred).
   */
  private breed(c: number): boolean {
    const pop = this.population;
    const rng = this.rng;
    const n = this.n;
    const ops = this.params.operators;
    const child = this.children[c];
    const list = this.conflicts;
    const size = pop.size;
    if (this.evaluations >= this.evaluationBudget) return false; // the generation is abandoned, as for a stop
    const ra = rankSelect(rng, size);
    const pa = pop.boards[pop.order[ra]];
    let changed = false;
    if (this.alleles && rng.float() < ops.crossover.probability) {
      const pb = pop.boards[pop.order[rankSelectOther(rng, size, ra)]];
      const x = rng.int(n);
      const y = rng.int(n);
      order1Crossover(pa.genes, pa.offset, pb.genes, pb.offset, child.genes, child.offset, n, x < y ? x : y, x < y ? y : x, this.alleles);
      child.fitness = countDiagonals(child.genes, child.offset, n, child.up, child.down);
      changed = true;
    } else {
      copyGenes(pa.genes, pa.offset, child.genes, child.offset, n);
      child.up.set(pa.up);
      child.down.set(pa.down);
      child.fitness = pa.fitness;
    }
    this.evaluations++;
    if (child.fitness > 0) collectConflicts(child.genes, child.offset, n, child.up, child.down, list);
    const mut = ops.conflictMutation;
    if (mut && child.fitness > 0 && rng.float() < mut.probability) {
      for (let m = 0; m < mut.moves && child.fitness > 0; m++) {
        conflictMutation(child, rng, list, mut.partners, this.limits.useSwapDelta);
        this.swapEvaluations += mut.partners;
        changed = true;
      }
    }
    if (this.searchChildren && child.fitness > 0) {
      const before = child.fitness;
      this.swapEvaluations += localSearch(child, rng, list, this.limits, this.shouldStop);
      if (child.fitness !== before) changed = true;
      if (child.fitness > 0 && this.shouldStop?.()) return false;
    }
    this.unchanged[c] = changed ? 0 : 1;
    return true;
  }

  /**
   * One generation: λ children bred and searched, then (μ+λ) survival. Returns true once
   * a solution is known; the generation that finds it counts, as in the paper's Island.
   * Returns false early, the generation uncounted, when `shouldStop` says so.
   */
  step(): boolean {
    if (this.solution) return true;
    const lambda = this.params.childrenPerGeneration;
    for (let c = 0; c < lambda; c++) {
      if (c > 0 && this.shouldStop?.()) return false;
      if (!this.breed(c)) return false;
      const child = this.children[c];
      if (child.fitness === 0) {
        this.recordSolution(child.genes, child.offset);
        plusSelectionDistinct(this.population, this.children, c + 1, this.unchanged);
        this.iterations++;
        return true;
      }
    }
    plusSelectionDistinct(this.population, this.children, lambda, this.unchanged);
    this.iterations++;
    return false;
  }

  /** Counts an arriving chromosome's diagonals and, when the local search applies to migrants, improves it in place. */
  protected evaluateImmigrant(genes: Genes, offset: number): number {
    const n = this.n;
    const board = (this.migrantBoard ??= { n, genes, offset, up: allocCounts(n), down: allocCounts(n), fitness: 0 });
    board.genes = genes;
    board.offset = offset;
    board.fitness = countDiagonals(genes, offset, n, board.up, board.down);
    this.evaluations++;
    if (this.searchMigrants && board.fitness > 0) {
      collectConflicts(genes, offset, n, board.up, board.down, this.conflicts);
      this.swapEvaluations += localSearch(board, this.rng, this.conflicts, this.limits, this.shouldStop);
    }
    return board.fitness;
  }

  protected survivalScratch(): SurvivalScratch {
    return (this.survival ??= new SurvivalScratch(this.n));
  }
}
