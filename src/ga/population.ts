import { allocGenes, copyGenes, type Genes } from '../problem/genes.ts';

/**
 * A fixed-size set of chromosomes in one flat gene array (slot s at s * n), their
 * fitness, and their ranking: `order[r]` is the slot of rank r (0 = best), kept sorted
 * by fitness with ties broken by slot, by counting sort.
 */
export class Population {
  readonly genes: Genes;
  readonly fitness: Int32Array;
  readonly order: Int32Array;
  /**
   * `writes` at the last `copyIn` of each slot (0: never written since the population was
   * built): who watches a member (an immigrant's survival, src/archipelago/observables)
   * knows it was overwritten without comparing genes.
   */
  readonly written: Int32Array;
  /** How many `copyIn` calls so far. */
  writes = 0;
  /**
   * Lineage (docs/live-view.md, "Lineage"): each member's island of origin, or null when not
   * tracked (`trackOrigins`). Bookkeeping only: nothing in the GA reads it, so tracking never
   * changes the search.
   */
  origin: Uint16Array | null = null;
  /**
   * The origins of the chromosomes in the array the next `copyIn` calls read, by chromosome
   * (srcOffset / n): an island points it at its children's or its immigrants' origins before
   * they enter, so any replacement policy that writes through `copyIn` carries lineage. Null: `home`.
   */
  originSource: Uint16Array | null = null;
  /** The island this population belongs to (its members' origin when `originSource` is null). */
  home = 0;
  /**
   * Brings `origin` up to date, for an island that keeps its members' origins implicitly
   * between reads (TakeoverIsland: by fitness); null when `origin` always is.
   */
  syncOrigins: (() => void) | null = null;
  /** rerank's histogram (2N + 1 counters), made on first use: a subclass that ranks otherwise never needs it. */
  private counts: Int32Array | null = null;

  /** `genes`, if given, is storage for size * n genes to use instead of a new array (e.g. a view into the WebAssembly kernel's memory). */
  constructor(
    readonly n: number,
    readonly size: number,
    genes?: Genes,
  ) {
    if (genes && genes.length !== n * size) throw new RangeError(`population: ${genes.length} genes given for ${size} chromosomes of ${n}`);
    this.genes = genes ?? allocGenes(n, size);
    this.fitness = new Int32Array(size);
    this.order = new Int32Array(size);
    this.written = new Int32Array(size);
  }

  /** Starts lineage: every member's origin is `home`, or `origins` (a checkpoint's, copied). */
  trackOrigins(home: number, origins?: Uint16Array): void {
    if (origins && origins.length !== this.size)
      throw new RangeError(`population: ${origins.length} origins given for ${this.size} chromosomes`);
    this.home = home;
    this.origin = origins ? origins.slice() : new Uint16Array(this.size).fill(home);
  }

  /** Each member's origin (up to date: what readers outside the island use), or null when not tracked. */
  currentOrigins(): Uint16Array | null {
    this.syncOrigins?.();
    return this.origin;
  }

  /** Re-sorts `order` after fitness values changed: O(size + N), no allocation. */
  rerank(): void {
    const counts = (this.counts ??= new Int32Array(2 * this.n + 1));
    const fitness = this.fitness;
    counts.fill(0);
    for (let s = 0; s < this.size; s++) counts[fitness[s] + 1]++;
    for (let f = 1; f < counts.length; f++) counts[f] += counts[f - 1];
    for (let s = 0; s < this.size; s++) this.order[counts[fitness[s]]++] = s;
  }

  bestSlot(): number {
    return this.order[0];
  }

  worstSlot(): number {
    return this.order[this.size - 1];
  }

  meanFitness(): number {
    let sum = 0;
    for (let s = 0; s < this.size; s++) sum += this.fitness[s];
    return sum / this.size;
  }

  /** Copies chromosome `slot` into `out` at `outOffset`. */
  copyOut(slot: number, out: Genes, outOffset: number): void {
    copyGenes(this.genes, slot * this.n, out, outOffset, this.n);
  }

  /** Overwrites chromosome `slot` with n genes from `src` at `srcOffset`, with its fitness (and origin, see `originSource`). */
  copyIn(slot: number, src: Genes, srcOffset: number, fitness: number): void {
    copyGenes(src, srcOffset, this.genes, slot * this.n, this.n);
    this.fitness[slot] = fitness;
    this.written[slot] = ++this.writes;
    const origin = this.origin;
    if (origin !== null) origin[slot] = this.originSource === null ? this.home : this.originSource[(srcOffset / this.n) | 0];
  }

  /**
   * Overwrites chromosome `slot` with member `fromSlot` of `from` (same n) and its fitness;
   * not its origin, which the caller copies when it can change (a takeover generation).
   */
  copyMember(slot: number, from: Population, fromSlot: number): void {
    copyGenes(from.genes, fromSlot * this.n, this.genes, slot * this.n, this.n);
    this.fitness[slot] = from.fitness[fromSlot];
    this.written[slot] = ++this.writes;
  }

  /** Overwrites every member with `from`'s (same n and size), slot for slot, in whole arrays; not their origins (as `copyMember`). */
  copyAll(from: Population): void {
    this.genes.set(from.genes);
    this.fitness.set(from.fitness);
    for (let s = 0; s < this.size; s++) this.written[s] = ++this.writes;
  }

  /** Whether some member equals the chromosome at `src[srcOffset..]` (members of other fitness are skipped). */
  contains(src: Genes, srcOffset: number, fitness: number): boolean {
    const n = this.n;
    for (let s = 0; s < this.size; s++) {
      if (this.fitness[s] !== fitness) continue;
      const base = s * n;
      let i = 0;
      while (i < n && this.genes[base + i] === src[srcOffset + i]) i++;
      if (i === n) return true;
    }
    return false;
  }
}
