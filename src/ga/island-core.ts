import { allocGenes, copyGenes, type Genes } from '../problem/genes.ts';
import type { Evolver } from './evolver.ts';
import type { EmigrantSelection, ReplacementPolicy } from './migration-policy.ts';
import type { Population } from './population.ts';
import type { Rng } from './rng.ts';
import { snapshotIsland, type IslandState } from './snapshot.ts';
import { UNKNOWN_ORIGIN } from './lineage.ts';
import type { SurvivalScratch } from './survival.ts';

/**
 * What every island algorithm does the same way around its own population: counters,
 * the first solution, the best member, and the migration surface (emigrants leave as
 * copies; immigrants are screened, then placed by a replacement policy). Subclasses
 * (the paper's `Island`, the `HybridIsland`) bring the generation step and how an
 * arriving chromosome is evaluated.
 */
export abstract class IslandCore<P extends Population = Population> implements Evolver {
  iterations = 0;
  evaluations = 0;
  evaluationBudget = Infinity;
  /** 0-based genes of the first chromosome found with fitness 0. */
  solution: Genes | null = null;
  /** Reused by every migration (once a step, at interval 1): emigrant slots and immigrant fitness, grown on demand. */
  protected emigrantSlots = new Int32Array(0);
  protected emigrantCount = 0;
  private lentOrigins = new Uint16Array(0);
  /** The last batch's immigrants' fitness, kept ones first (as their genes and origins). */
  protected immigrantFitness = new Int32Array(0);
  /** Immigrants' origins when a message carries none (UNKNOWN_ORIGIN each), grown on demand. */
  private unknownOrigins = new Uint16Array(0);

  constructor(
    readonly n: number,
    readonly population: P,
    readonly rng: Rng,
  ) {}

  abstract step(): boolean;

  /** The fitness of the immigrant at `offset` (which the algorithm may improve in place); counts one evaluation. */
  protected abstract evaluateImmigrant(genes: Genes, offset: number): number;

  /** Scratch for the replacement policy. */
  protected abstract survivalScratch(): SurvivalScratch;

  protected recordSolution(genes: Genes, offset: number): void {
    if (this.solution) return;
    this.solution = allocGenes(this.n);
    copyGenes(genes, offset, this.solution, 0, this.n);
  }

  /** After the population was built: its best member, if of fitness 0, is the solution. */
  protected recordIfBestSolves(): void {
    const best = this.population.bestSlot();
    if (this.population.fitness[best] === 0) this.recordSolution(this.population.genes, best * this.n);
  }

  /**
   * Starts lineage tracking (docs/live-view.md): every member's origin is `home`, or what a
   * checkpoint saved. A subclass points its population's `originSource` at its children's
   * origins in `lineageStarted`.
   */
  trackLineage(home: number, origins?: Uint16Array): void {
    this.population.trackOrigins(home, origins);
    this.lineageStarted(origins !== undefined);
  }

  /** Sets up where children's origins are kept (each child takes its first parent's); `restored`: the origins are a checkpoint's, not all `home`. */
  protected abstract lineageStarted(restored: boolean): void;

  /**
   * The origins of the emigrants `emigrants` chose last, in their order, or null without
   * lineage. Lent, as the emigrants' genes may be: the island's own array, valid until the
   * next call (a transport encodes a message at once), so migrating allocates nothing.
   */
  emigrantOrigins(): Uint16Array | null {
    const origin = this.population.origin;
    if (origin === null) return null;
    const out = this.originsOut();
    for (let i = 0; i < out.length; i++) out[i] = origin[this.emigrantSlots[i]];
    return out;
  }

  /** The lent array `emigrantOrigins` fills: one origin an emigrant chosen last. */
  protected originsOut(): Uint16Array {
    if (this.lentOrigins.length !== this.emigrantCount) this.lentOrigins = new Uint16Array(this.emigrantCount);
    return this.lentOrigins;
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

  snapshot(): IslandState {
    return snapshotIsland(this);
  }

  /** `k` emigrants chosen by `select`, flat (k * N genes; see `emigrantsOf` for whose array it is). */
  emigrants(k: number, select: EmigrantSelection): Genes {
    const count = Math.min(k, this.population.size);
    if (this.emigrantSlots.length < count) this.emigrantSlots = new Int32Array(count);
    const slots = this.emigrantSlots;
    select(this.population, this.rng, count, slots);
    this.emigrantCount = count;
    return this.emigrantsOf(slots, count);
  }

  /** Copies of the members in `slots[0..count)` in a new array, which the caller may keep (the hybrid lends its own, see HybridIsland). */
  protected emigrantsOf(slots: Int32Array, count: number): Genes {
    const out = allocGenes(this.n, count);
    for (let i = 0; i < count; i++) this.population.copyOut(slots[i], out, i * this.n);
    return out;
  }

  /**
   * Evaluates `count` immigrants (flat, 0-based; the array is reused in place) and lets
   * `replace` place them. An immigrant of fitness 0 is recorded as a solution. With
   * `rejectDuplicates`, an immigrant equal to a current member, or to an immigrant kept
   * earlier in the same batch, is dropped. `origins` (lineage; reused in place too) are the
   * immigrants' islands of origin: without them a tracked population counts them UNKNOWN_ORIGIN.
   * Returns how many were accepted.
   */
  immigrate(genes: Genes, count: number, replace: ReplacementPolicy, rejectDuplicates = false, origins?: Uint16Array): number {
    const n = this.n;
    if (this.immigrantFitness.length < count) this.immigrantFitness = new Int32Array(count);
    const fit = this.immigrantFitness;
    // Past the evaluation budget an immigrant cannot be priced: it is dropped.
    count = Math.min(count, Math.max(0, this.evaluationBudget - this.evaluations));
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const f = this.evaluateImmigrant(genes, i * n);
      if (f === 0) this.recordSolution(genes, i * n);
      if (rejectDuplicates && (this.population.contains(genes, i * n, f) || this.keptEarlier(genes, i * n, f, kept))) continue;
      if (kept !== i) {
        copyGenes(genes, i * n, genes, kept * n, n);
        if (origins) origins[kept] = origins[i];
      }
      fit[kept++] = f;
    }
    if (kept === 0) return 0;
    const pop = this.population;
    const own = pop.originSource;
    if (pop.origin !== null) pop.originSource = origins ?? this.unknown(kept);
    try {
      return replace(pop, this.rng, genes, fit, kept, this.survivalScratch());
    } finally {
      pop.originSource = own;
    }
  }

  /** At least `count` origins UNKNOWN_ORIGIN. */
  private unknown(count: number): Uint16Array {
    if (this.unknownOrigins.length < count) this.unknownOrigins = new Uint16Array(count).fill(UNKNOWN_ORIGIN);
    return this.unknownOrigins;
  }

  /** Whether the immigrant at `offset` equals one of the first `kept` (already screened) immigrants of its batch. */
  private keptEarlier(genes: Genes, offset: number, f: number, kept: number): boolean {
    const n = this.n;
    for (let k = 0; k < kept; k++) {
      if (this.immigrantFitness[k] !== f) continue;
      let i = 0;
      while (i < n && genes[k * n + i] === genes[offset + i]) i++;
      if (i === n) return true;
    }
    return false;
  }
}
