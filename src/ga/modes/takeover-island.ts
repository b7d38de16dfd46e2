import { allocGenes, type Genes } from '../../problem/genes.ts';
import type { IslandPlace } from '../evolver.ts';
import { IslandCore } from '../island-core.ts';
import type { ReplacementPolicy } from '../migration-policy.ts';
import { randomPermutation } from '../permutation.ts';
import { Population } from '../population.ts';
import { Rng } from '../rng.ts';
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
  /** Lineage: the one origin of every member once they share one, else -1 (origins are copied each generation). */
  private singleOrigin = -1;

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

  /** A member drawn into `next` keeps its origin, and so does it when copied back (`step`). */
  protected lineageStarted(): void {
    this.next.trackOrigins(this.population.home);
    this.singleOrigin = -1;
  }

  /**
   * One generation: the best member kept, M - 1 drawn by rank selection; never a solution.
   * Origins are copied only while they can change: once every member has one origin (a
   * taken-over island: every copy of B descends from the one B), selection keeps it so, and
   * only an immigrant of another origin mixes it again (`immigrate`).
   */
  step(): boolean {
    const pop = this.population;
    const next = this.next;
    const m = pop.size;
    const to = next.origin;
    const from = to === null || this.singleOrigin >= 0 ? null : pop.origin;
    let slot = pop.order[0];
    next.copyMember(0, pop, slot);
    if (from !== null) to![0] = from[slot];
    for (let s = 1; s < m; s++) {
      slot = pop.order[rankSelect(this.rng, m)];
      next.copyMember(s, pop, slot);
      if (from !== null) to![s] = from[slot];
    }
    pop.copyAll(next);
    if (from !== null) {
      // next's origins become the population's: swapped, not copied.
      next.origin = from;
      pop.origin = to;
    }
    pop.rerank();
    this.iterations++;
    if (from !== null && pop.fitness[pop.order[m - 1]] === BEST_FITNESS) this.singleOrigin = pop.singleOrigin();
    return false;
  }

  /** Immigrants may bring another origin: unless all of theirs are the island's one, origins are copied again. */
  override immigrate(genes: Genes, count: number, replace: ReplacementPolicy, rejectDuplicates = false, origins?: Uint16Array): number {
    const accepted = super.immigrate(genes, count, replace, rejectDuplicates, origins);
    if (accepted > 0 && this.singleOrigin >= 0 && !allEqual(origins, count, this.singleOrigin)) this.singleOrigin = -1;
    return accepted;
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

/** Whether `origins` (absent: unknown) holds `origin` in each of its first `count` places. */
function allEqual(origins: Uint16Array | undefined, count: number, origin: number): boolean {
  if (origins === undefined) return false;
  for (let i = 0; i < count; i++) if (origins[i] !== origin) return false;
  return true;
}
