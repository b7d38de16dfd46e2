/**
 * An island's whole GA state as plain data (typed arrays), so a run can be checkpointed
 * and continued exactly: both populations in slot order with their fitness and ranking,
 * the random-number state and the counters. Restoring it and stepping on draws the same
 * numbers in the same order as the island that was saved.
 */
import type { Genes } from '../problem/genes.ts';
import type { Population } from './population.ts';
import type { Rng } from './rng.ts';

export interface PopulationState {
  genes: Genes;
  fitness: Int32Array;
  /** The ranking as it was (what `Population.rerank` gives for `fitness`: every change reranks); saved so a restore needs no re-sort. */
  order: Int32Array;
}

export interface IslandState {
  n: number;
  iterations: number;
  evaluations: number;
  /** xoshiro128** state words (`Rng.saveState()`); `new Rng(rng)` continues the stream. */
  rng: Int32Array;
  population: PopulationState;
  /** The paper's bad repository; empty for algorithms without one (the hybrid). */
  bad: PopulationState;
  /**
   * The hybrid's conflict lists, member by member in slot order (see hybrid/board.ts): they
   * steer its local search and cannot be rebuilt from the genes alone, so a resumed run
   * repeats the saved one only with them.
   */
  lists?: Int32Array[];
  /** Lineage (lineage.ts): each member's island of origin, in slot order; absent when not tracked. */
  origins?: Uint16Array;
  /** The takeover mode's island: the iteration it was taken over at (-1: not yet). */
  takenOverAt?: number;
}

/** An island whose state a snapshot holds: its population, and the bad repository if it has one. */
interface Snapshottable {
  readonly n: number;
  iterations: number;
  evaluations: number;
  readonly rng: Rng;
  readonly population: Population;
  readonly bad?: Population;
}

function savePopulation(pop: Population): PopulationState {
  return { genes: pop.genes.slice(), fitness: pop.fitness.slice(), order: pop.order.slice() };
}

function loadPopulation(pop: Population, state: PopulationState, what: string): void {
  if (state.genes.length !== pop.genes.length || state.fitness.length !== pop.size || state.order.length !== pop.size) {
    throw new RangeError(`snapshot ${what}: expected ${pop.size} chromosomes of ${pop.n} genes`);
  }
  pop.genes.set(state.genes);
  pop.fitness.set(state.fitness);
  pop.order.set(state.order);
}

const NO_POPULATION: PopulationState = { genes: new Uint16Array(0), fitness: new Int32Array(0), order: new Int32Array(0) };

/** A copy of the island's state between two iterations. */
export function snapshotIsland(island: Snapshottable): IslandState {
  const origins = island.population.currentOrigins();
  return {
    n: island.n,
    iterations: island.iterations,
    evaluations: island.evaluations,
    rng: island.rng.saveState(),
    population: savePopulation(island.population),
    bad: island.bad ? savePopulation(island.bad) : NO_POPULATION,
    ...(origins ? { origins: origins.slice() } : {}),
  };
}

/**
 * Loads a snapshot into a freshly built island (its Rng must already be `new Rng(state.rng)`).
 * Anything an algorithm derives from the genes (the hybrid's diagonal counts) it rebuilds itself.
 */
export function restoreIsland(island: Snapshottable, state: IslandState): void {
  if (state.n !== island.n) throw new RangeError(`snapshot is for N = ${state.n}, not ${island.n}`);
  loadPopulation(island.population, state.population, 'population');
  if (island.bad) loadPopulation(island.bad, state.bad, 'bad repository');
  island.iterations = state.iterations;
  island.evaluations = state.evaluations;
}
