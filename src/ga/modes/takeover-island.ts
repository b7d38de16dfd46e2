import { allocGenes, type Genes } from '../../problem/genes.ts';
import type { IslandPlace } from '../evolver.ts';
import { IslandCore } from '../island-core.ts';
import type { ReplacementPolicy } from '../migration-policy.ts';
import { randomPermutation } from '../permutation.ts';
import { Population } from '../population.ts';
import { Rng } from '../rng.ts';
import { UNKNOWN_ORIGIN } from '../lineage.ts';
import { rankSelect } from '../selection.ts';
import { restoreIsland, type IslandState } from '../snapshot.ts';
import { SurvivalScratch } from '../survival.ts';
import type { GaModeSampleFields } from './coordinator-hook.ts';

export interface TakeoverParams {
  n: number;
  /** Members per island, M. */
  populationSize: number;
  /** The island that starts with the one best individual. */
  bestIsland: number;
}

/** The random stream the best individual is drawn from: the same on every island of a run (island streams are 0 .. islands - 1). */
export const BEST_STREAM = 2 ** 30;
/** The takeover mode's fitness: a copy of the best individual, and anything else (lower is better, as everywhere). */
export const BEST_FITNESS = 1;
export const OTHER_FITNESS = 2;

/** The best individual of a run with this seed: a random permutation from its own stream, the same on every island. */
export function bestIndividual(n: number, seed: number): Genes {
  const genes = allocGenes(n);
  randomPermutation(genes, 0, n, Rng.forStream(seed, BEST_STREAM));
  return genes;
}

/** The takeover fitness of the member at `offset`, seen from outside an island (a checkpoint's check). */
export function takeoverFitnessOf(n: number, seed: number): (genes: Genes, offset: number) => number {
  const best = bestIndividual(n, seed);
  return (genes, offset) => {
    for (let i = 0; i < n; i++) if (genes[offset + i] !== best[i]) return OTHER_FITNESS;
    return BEST_FITNESS;
  };
}

/**
 * One island of the takeover mode (docs/takeover.md): selection and migration only, no
 * variation. A member scores 1 if it is a copy of the run's best individual B and 2
 * otherwise, so the ranks hold B's copies first and the takeover depends on nothing else.
 * Every island draws M random permutations (none equal to B); the best island's slot 0 is B.
 * One generation: the best member is kept (elitism of one, so B cannot be lost by drift)
 * and the other M - 1 slots are filled with members drawn independently by the paper's rank
 * selection (linear ranking, pressure 2) from the current generation.
 */
export class TakeoverIsland extends IslandCore {
  readonly params: TakeoverParams;
  private readonly bestGenes: Genes;
  private readonly next: Population;
  private readonly survival: SurvivalScratch;
  private takenOverAt = -1;
  /**
   * Lineage kept by fitness: while `byFitness`, every member of fitness f is of origin
   * `originOf[f]` (-1: no member of f yet), and the population's origin array is written
   * only when read (`syncOrigins`). Otherwise the array is exact and copied every generation.
   */
  private byFitness = false;
  private readonly originOf = new Int32Array(OTHER_FITNESS + 1);

  constructor(params: TakeoverParams, rng: Rng, place: IslandPlace, snapshot?: IslandState) {
    super(params.n, new Population(params.n, params.populationSize), rng);
    this.params = params;
    this.bestGenes = bestIndividual(params.n, place.seed);
    this.next = new Population(params.n, params.populationSize);
    this.survival = new SurvivalScratch(params.n);
    if (snapshot) {
      restoreIsland(this, snapshot);
      this.takenOverAt = snapshot.takenOverAt ?? -1;
    } else this.initialise(place.island === params.bestIsland);
  }

  /** With its takeover iteration: resumed after it, the island still reports when it was taken over. */
  override snapshot(): IslandState {
    return { ...super.snapshot(), takenOverAt: this.takenOverAt };
  }

  private initialise(holdsBest: boolean): void {
    const { n, populationSize: m } = this.params;
    const pop = this.population;
    for (let s = 0; s < m; s++) {
      if (s === 0 && holdsBest) pop.genes.set(this.bestGenes, 0);
      else
        do randomPermutation(pop.genes, s * n, n, this.rng);
        while (this.isBest(pop.genes, s * n));
      pop.fitness[s] = this.evaluate(pop.genes, s * n);
    }
    pop.rerank();
  }

  private isBest(genes: Genes, offset: number): boolean {
    const best = this.bestGenes;
    for (let i = 0; i < this.n; i++) if (genes[offset + i] !== best[i]) return false;
    return true;
  }

  private evaluate(genes: Genes, offset: number): number {
    this.evaluations++;
    return this.isBest(genes, offset) ? BEST_FITNESS : OTHER_FITNESS;
  }

  protected evaluateImmigrant(genes: Genes, offset: number): number {
    return this.evaluate(genes, offset);
  }

  protected survivalScratch(): SurvivalScratch {
    return this.survival;
  }

  /**
   * A member drawn into `next` keeps its origin. Selection copies a member with its fitness,
   * so while each fitness holds one origin it goes on doing so, and no origin is copied: a new
   * island's (all its own), a taken-over one's (every copy of B descends from the one B), and
   * one whose immigrants were all B's copies of one origin (a worst-if-better ring) stay so
   * until an immigrant brings a second origin to a fitness (`immigrate`).
   */
  protected lineageStarted(restored: boolean): void {
    const pop = this.population;
    pop.syncOrigins = () => this.writeOrigins(pop.writes);
    if (restored) return this.byFitnessIf(pop.origin!);
    const home = pop.home;
    this.originOf.fill(-1);
    this.originOf[BEST_FITNESS] = pop.fitness[pop.bestSlot()] === BEST_FITNESS ? home : -1;
    this.originOf[OTHER_FITNESS] = pop.fitness[pop.worstSlot()] === OTHER_FITNESS ? home : -1;
    this.byFitness = true;
  }

  /** Keeps origins by fitness if `origin` (exact) has one per fitness. */
  private byFitnessIf(origin: Uint16Array): void {
    const pop = this.population;
    this.originOf.fill(-1);
    this.byFitness = true;
    for (let s = 0; s < pop.size && this.byFitness; s++) this.byFitness = this.agrees(pop.fitness[s], origin[s]);
  }

  /** Whether a member of fitness `f` and origin `o` keeps one origin a fitness: the first of a fitness (`originOf` -1) sets it. */
  private agrees(f: number, o: number): boolean {
    const originOf = this.originOf;
    if (originOf[f] < 0) originOf[f] = o;
    return originOf[f] === o;
  }

  /** While by fitness: writes the origin of every member not written since `mark` (`Population.writes`) from its fitness. */
  private writeOrigins(mark: number): void {
    const pop = this.population;
    const origin = pop.origin;
    if (!this.byFitness || origin === null) return;
    for (let s = 0; s < pop.size; s++) if (pop.written[s] <= mark) origin[s] = this.originOf[pop.fitness[s]];
  }

  /**
   * One generation: the best member kept, M - 1 drawn by rank selection; never a solution.
   * Origins are copied with the members only while some fitness holds two origins (see
   * `lineageStarted`); a taken-over island of one origin is kept by fitness again.
   */
  step(): boolean {
    const pop = this.population;
    const from = pop.origin === null || this.byFitness ? null : pop.origin;
    if (from === null) this.select();
    else this.selectWithOrigins(from, (this.next.origin ??= new Uint16Array(pop.size)));
    pop.copyAll(this.next);
    pop.rerank();
    this.iterations++;
    if (from !== null && pop.fitness[pop.worstSlot()] === BEST_FITNESS) this.byFitnessIf(pop.origin!);
    return false;
  }

  /** Draws the next generation into `next`: the best first, then M - 1 by rank. */
  private select(): void {
    const pop = this.population;
    const next = this.next;
    const m = pop.size;
    next.copyMember(0, pop, pop.order[0]);
    for (let s = 1; s < m; s++) next.copyMember(s, pop, pop.order[rankSelect(this.rng, m)]);
  }

  /**
   * `select` with each member's origin copied from `from` (the population's) into `to`
   * (next's), which then become the population's and next's: swapped, not copied. A loop
   * of its own, so neither pays a branch a member.
   */
  private selectWithOrigins(from: Uint16Array, to: Uint16Array): void {
    const pop = this.population;
    const next = this.next;
    const m = pop.size;
    let slot = pop.order[0];
    next.copyMember(0, pop, slot);
    to[0] = from[slot];
    for (let s = 1; s < m; s++) {
      slot = pop.order[rankSelect(this.rng, m)];
      next.copyMember(s, pop, slot);
      to[s] = from[slot];
    }
    next.origin = from;
    pop.origin = to;
  }

  /**
   * Immigrants may bring a second origin to a fitness: then the members' origins are written
   * out (but the immigrants', which the replacement wrote) and copied from then on.
   */
  override immigrate(genes: Genes, count: number, replace: ReplacementPolicy, rejectDuplicates = false, origins?: Uint16Array): number {
    const mark = this.population.writes;
    const accepted = super.immigrate(genes, count, replace, rejectDuplicates, origins);
    if (accepted > 0 && this.byFitness && !this.offeredKeepByFitness(count, origins) && !this.enteredKeepByFitness(mark)) {
      this.writeOrigins(mark);
      this.byFitness = false;
    }
    return accepted;
  }

  /**
   * Whether the last `count` immigrants (the kept ones first; any others only make this
   * answer no) each match their fitness's origin, which a first member of a fitness sets:
   * then so does every one that entered. In O(count), so asked first.
   */
  private offeredKeepByFitness(count: number, origins: Uint16Array | undefined): boolean {
    for (let i = 0; i < count; i++)
      if (!this.agrees(this.immigrantFitness[i], origins === undefined ? UNKNOWN_ORIGIN : origins[i])) return false;
    return true;
  }

  /**
   * The same of the members written since `mark` alone (the immigrants that entered, with the
   * origins the replacement wrote), in O(M): an island's best two are often B and a member of
   * fitness 2 that a worst-if-better target turns away, which must not end keeping by fitness.
   */
  private enteredKeepByFitness(mark: number): boolean {
    const pop = this.population;
    const origin = pop.origin!;
    for (let s = 0; s < pop.size; s++) if (pop.written[s] > mark && !this.agrees(pop.fitness[s], origin[s])) return false;
    return true;
  }

  /** The origins of the emigrants chosen last (lent, as IslandCore's): by their fitness while kept so. */
  override emigrantOrigins(): Uint16Array | null {
    if (!this.byFitness || this.population.origin === null) return super.emigrantOrigins();
    const out = this.originsOut();
    for (let i = 0; i < out.length; i++) out[i] = this.originOf[this.population.fitness[this.emigrantSlots[i]]];
    return out;
  }

  /** The first iteration at which every member was a copy of the best (checked whenever asked: after each generation and migration), or -1. */
  takeoverIteration(): number {
    if (this.takenOverAt < 0) {
      const pop = this.population;
      if (pop.fitness[pop.order[pop.size - 1]] === BEST_FITNESS) this.takenOverAt = this.iterations;
    }
    return this.takenOverAt;
  }

  modeSignal(): number {
    return this.takeoverIteration();
  }

  modeFields(): GaModeSampleFields {
    return { takenOverAt: this.takeoverIteration() };
  }

  /** Copies of the best individual in the population. */
  copiesOfBest(): number {
    let k = 0;
    for (let s = 0; s < this.population.size; s++) if (this.population.fitness[s] === BEST_FITNESS) k++;
    return k;
  }
}
