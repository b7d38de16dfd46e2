import { allocGenes, copyGenes, type Genes } from '../../problem/genes.ts';
import { BUILD_STOP_GRANULE, buildStopped } from '../build-stopped.ts';
import { AlleleMarks, order1Crossover } from '../crossover.ts';
import { IslandCore } from '../island-core.ts';
import type { ReplacementPolicy } from '../migration-policy.ts';
import { restoreIsland, type IslandState } from '../snapshot.ts';
import { randomPermutation } from '../permutation.ts';
import type { Rng } from '../rng.ts';
import { rankSelect, rankSelectOther } from '../selection.ts';
import { SurvivalScratch } from '../survival.ts';
import type { Board } from './board.ts';
import { conflictMutation } from './conflict-mutation.ts';
import { collectConflicts, copyBoardState, countDiagonals, listCovers, newBoard } from './diagonals.ts';
import { localSearch, type LocalSearchLimits } from './local-search.ts';
import { checkHybridParams, type HybridParams } from './params.ts';
import { HybridPopulation } from './population.ts';
import { countBoard } from './occupancy.ts';
import { releasable, release } from './release.ts';
import { regreedBlock, smartStart } from './smart-start.ts';
import { enterIfFitter } from './survival.ts';

/**
 * The block a derived member's build places again (see `initialise`): every column up to
 * N = 65,536. Placing a block again costs more per column than a whole smart start (the
 * rest of the board already holds most diagonals, so each column needs many more draws,
 * each a cache miss into the counts at large N): N/μ columns a member, the rule before,
 * took about 11 CPU seconds an island at N = 10^7 (seven blocks of 1.25 million columns),
 * where the whole smart start of the first member takes under 3.
 */
const DERIVED_BLOCK = 65_536;

export interface HybridIslandOptions {
  params: HybridParams;
  rng: Rng;
  /** Asked during the population's build, between children and every 4096 candidate swaps of a local search; true stops. */
  shouldStop?: () => boolean;
  /** Continue from a checkpoint instead of building new members (`rng` must be restored from it too). */
  snapshot?: IslandState;
}

/**
 * One island of the hybrid (memetic) GA, beyond the paper. A small population of
 * permutations, each with its diagonal counts and conflict list; one generation breeds λ
 * children one after another (parent by linear rank as in the paper, then crossover or a
 * copy, conflict-directed mutation and a bounded local search), each of which replaces the
 * worst member if strictly fitter. Migrants leave and enter through the same `Evolver`
 * surface as the paper's `Island`, optionally improved by the local search on arrival.
 * Pure and synchronous; fitness is always exactly the paper's fitness.
 *
 * What a child costs does not grow with N beyond copying its parent (8 bytes a column):
 * no operator scans the board, since the conflicts are found in the member's list.
 *
 * `evaluations` counts whole chromosomes priced (initial members, children, immigrants),
 * `swapEvaluations` the O(1) candidate swaps priced by the operators.
 */
export class HybridIsland extends IslandCore<HybridPopulation> {
  readonly params: HybridParams;
  swapEvaluations = 0;

  /**
   * The one scratch board: each child is bred here and trades state with the member it
   * replaces; between generations an arriving chromosome is counted here too (pointed at
   * the message's genes), so an island holds μ + 1 sets of counts.
   */
  private readonly child: Board;
  private readonly childGenes: Genes;
  /** Lineage: the child's origin, its first parent's (null: not tracked). */
  private childOrigin: Uint16Array | null = null;
  private readonly alleles: AlleleMarks | null;
  private readonly limits: LocalSearchLimits;
  private readonly shouldStop: (() => boolean) | undefined;
  private survival: SurvivalScratch | null = null;
  private emigrantOut: Genes = new Uint16Array(0);

  constructor(options: HybridIslandOptions) {
    const p = options.params;
    checkHybridParams(p);
    super(p.n, new HybridPopulation(p.n, p.populationSize), options.rng);
    this.params = p;
    this.shouldStop = options.shouldStop;
    const n = p.n;
    this.childGenes = allocGenes(n);
    this.child = newBoard(n, this.childGenes, 0);
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

  /** Loads a checkpointed population: the counts are recounted from the genes, the conflict lists taken from the snapshot (scanned if it has none). */
  private restore(state: IslandState): void {
    restoreIsland(this, state);
    const pop = this.population;
    const lists = state.lists;
    if (lists && lists.length !== pop.size) throw new RangeError(`snapshot: ${lists.length} conflict lists for ${pop.size} members`);
    for (let s = 0; s < pop.size; s++) {
      const b = pop.boards[s];
      b.fitness = countDiagonals(b);
      if (b.fitness !== pop.fitness[s])
        throw new RangeError(`snapshot member ${s}: fitness ${pop.fitness[s]} does not match its genes (${b.fitness})`);
      if (!lists) collectConflicts(b);
      else if (!listCovers(b, lists[s])) throw new RangeError(`snapshot member ${s}: its conflict list misses queens in conflict`);
      else {
        b.list.count = 0;
        for (const i of lists[s]) b.list.push(i);
      }
    }
  }

  override snapshot(): IslandState {
    const lists = this.population.boards.map((b) => b.list.cols.slice(0, b.list.count));
    return { ...super.snapshot(), lists };
  }

  /**
   * μ smart starts (or random permutations), ranked; a member of fitness 0 is a solution.
   * The first member is a whole smart start; each further one is the first with a random
   * block of min(N, 65,536) columns (all of them up to N = 65,536) placed again by the
   * same greedy rule (`regreedBlock`): above N = 65,536 the build costs one smart start and
   * μ - 1 copies whatever N, where μ whole smart starts at N = 10^7 take seconds each.
   * @throws BuildStopped when `shouldStop` says yes meanwhile (a limit or signal during
   * start-up), asked every BUILD_STOP_GRANULE genes and inside each large smart start.
   */
  private initialise(): void {
    const pop = this.population;
    const n = this.n;
    const start = this.params.operators.smartStart;
    const block = Math.min(n, DERIVED_BLOCK);
    const first = pop.boards[0];
    let checked = 0;
    for (let s = 0; s < pop.size; s++) {
      if (s * n >= checked + BUILD_STOP_GRANULE) {
        checked = s * n;
        if (this.shouldStop?.()) throw buildStopped(pop.genes, pop.fitness, s, n, this.evaluations);
      }
      const b = pop.boards[s];
      if (start) {
        let f: number;
        if (s === 0) {
          f = smartStart(b, this.rng, start.maxTries, pop.bits, this.shouldStop);
        } else {
          copyGenes(first.genes, first.offset, b.genes, b.offset, n);
          copyBoardState(first, b);
          f = regreedBlock(b, this.rng.int(n - block + 1), block, this.rng, start.maxTries, this.shouldStop);
        }
        if (f < 0) throw buildStopped(pop.genes, pop.fitness, s, n, this.evaluations);
      } else {
        randomPermutation(pop.genes, b.offset, n, this.rng);
        countBoard(b, pop.bits);
      }
      pop.syncFitness(s);
      this.evaluations++;
    }
    pop.rerank();
    this.recordIfBestSolves();
  }

  /**
   * A child that solves is kept as the solution itself, not copied (N genes: 400 MB at 10^8,
   * the island's peak when it sends them): once the island holds a solution, `step` breeds
   * no more, and nothing else writes the scratch board's own genes (an immigrant is counted
   * on it through the message's genes).
   */
  protected override recordSolution(genes: Genes, offset: number): void {
    if (!this.solution && genes === this.childGenes && offset === 0) this.solution = genes;
    else super.recordSolution(genes, offset);
  }

  /**
   * Once solved, before its report: the members' genes and every board's counts are given
   * back at once (release.ts; from N = 2^20, where they are 14 bytes a queen at population
   * 2; below, the collector has them), so the report's copy of the solution (4) fits in what
   * the search held. The solution (the scratch board's genes) stays; nothing may read the
   * population after.
   */
  release(): void {
    if (!this.solution || !releasable(this.n)) return;
    this.population.release();
    release(this.child.counts);
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
   * Breeds the child: a rank-selected parent, crossed with a second one (probability
   * `crossover.probability`: a full recount) or copied with its counts and list; then
   * conflict-directed mutation and local search. Returns whether the child differs from
   * its parent's copy, or null if `shouldStop` interrupted the local search or the
   * evaluation budget is spent (nothing bred).
   */
  private breed(): boolean | null {
    const pop = this.population;
    const rng = this.rng;
    const n = this.n;
    const ops = this.params.operators;
    const child = this.child;
    const size = pop.size;
    if (this.evaluations >= this.evaluationBudget) return null; // the generation is abandoned, as for a stop
    const ra = rankSelect(rng, size);
    const pa = pop.boards[pop.order[ra]];
    if (this.childOrigin !== null) this.childOrigin[0] = pop.origin![pop.order[ra]]; // lineage: the first parent's
    let changed = false;
    if (this.alleles && rng.float() < ops.crossover.probability) {
      const pb = pop.boards[pop.order[rankSelectOther(rng, size, ra)]];
      const x = rng.int(n);
      const y = rng.int(n);
      order1Crossover(pa.genes, pa.offset, pb.genes, pb.offset, child.genes, child.offset, n, x < y ? x : y, x < y ? y : x, this.alleles);
      countBoard(child, pop.bits);
      changed = true;
    } else {
      copyGenes(pa.genes, pa.offset, child.genes, child.offset, n);
      copyBoardState(pa, child);
    }
    this.evaluations++;
    const mut = ops.conflictMutation;
    if (mut && child.fitness > 0 && rng.float() < mut.probability) {
      for (let m = 0; m < mut.moves && child.fitness > 0; m++) {
        conflictMutation(child, rng, mut.partners, this.limits.useSwapDelta);
        this.swapEvaluations += mut.partners;
        changed = true;
      }
    }
    if (this.searchChildren && child.fitness > 0) {
      const before = child.fitness;
      this.swapEvaluations += localSearch(child, rng, this.limits, this.shouldStop);
      if (child.fitness !== before) changed = true;
      if (child.fitness > 0 && this.shouldStop?.()) return null;
    }
    return changed;
  }

  /**
   * One generation: λ children, each bred and then placed by `enterIfFitter`. Returns true
   * once a solution is known; the generation that finds it counts, as in the paper's
   * Island. Returns false early, the generation uncounted, when `shouldStop` says so.
   */
  step(): boolean {
    if (this.solution) return true;
    const lambda = this.params.childrenPerGeneration;
    const child = this.child;
    for (let c = 0; c < lambda; c++) {
      if (c > 0 && this.shouldStop?.()) return false;
      const changed = this.breed();
      if (changed === null) return false;
      if (child.fitness === 0) this.recordSolution(child.genes, child.offset);
      enterIfFitter(this.population, child, changed);
      if (this.solution) {
        this.iterations++;
        return true;
      }
    }
    this.iterations++;
    return false;
  }

  /**
   * Counts an arriving chromosome's diagonals on the scratch board and lists its conflicts
   * and, when the local search applies to migrants, improves it in place. The board is staged, so a
   * replacement policy that lets it in hands its counts over instead of counting again.
   */
  protected evaluateImmigrant(genes: Genes, offset: number): number {
    const board = this.child;
    board.genes = genes;
    board.offset = offset;
    countBoard(board, this.population.bits);
    this.evaluations++;
    if (this.searchMigrants && board.fitness > 0) this.swapEvaluations += localSearch(board, this.rng, this.limits, this.shouldStop);
    this.population.stage(board);
    return board.fitness;
  }

  override immigrate(genes: Genes, count: number, replace: ReplacementPolicy, rejectDuplicates = false, origins?: Uint16Array): number {
    try {
      return super.immigrate(genes, count, replace, rejectDuplicates, origins);
    } finally {
      this.population.stage(null);
      this.child.genes = this.childGenes;
      this.child.offset = 0;
    }
  }

  /**
   * One emigrant: a view of the member itself; several: copies in one array kept for every
   * migration. Either is valid until the island's next step or migration, which is enough
   * for the island runner (its transport encodes them at once). At N = 10^7 a new array each
   * generation was 40 MB of garbage an island a generation, and a kept one 40 MB for good.
   */
  protected override emigrantsOf(slots: Int32Array, count: number): Genes {
    const n = this.n;
    const pop = this.population;
    if (count === 1) return pop.genes.subarray(slots[0] * n, slots[0] * n + n);
    if (this.emigrantOut.length !== count * n) this.emigrantOut = allocGenes(n, count);
    for (let i = 0; i < count; i++) pop.copyOut(slots[i], this.emigrantOut, i * n);
    return this.emigrantOut;
  }

  /** The child's origin (one child at a time; `adopt` reads index 0 of the child's own genes). */
  protected lineageStarted(): void {
    this.childOrigin = new Uint16Array(1);
    this.population.originSource = this.childOrigin;
  }

  protected survivalScratch(): SurvivalScratch {
    // Sized by the fitness values it meets, not by N (see SurvivalScratch).
    return (this.survival ??= new SurvivalScratch(0));
  }
}
