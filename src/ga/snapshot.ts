/**
 * An island's whole GA state as plain data (typed arrays), so a run can be checkpointed
 * and continued exactly: both populations in slot order with their fitness and ranking,
 * the random-number state and the counters. Restoring it and stepping on draws the same
 * numbers in the same order as the island that was saved.
 */
import type { Genes } from '../problem/genes.ts';
import type { Island } from './island.ts';
import type { Population } from './population.ts';

export interface PopulationState {
  genes: Genes;
  fitness: Int32Array;
  /** The ranking as it was (survival keeps it incrementally, so it is saved, not recomputed). */
  order: Int32Array;
}

export interface IslandState {
  n: number;
  iterations: number;
  evaluations: number;
  /** xoshiro128** state words (`Rng.saveState()`); `new Rng(rng)` continues the stream. */
  rng: Int32Array;
  population: PopulationState;
  bad: PopulationState;
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

/** A copy of the island's state between two iterations. */
export function snapshotIsland(island: Island): IslandState {
  return {
    n: island.n,
    iterations: island.iterations,
    evaluations: island.evaluations,
    rng: island.rng.saveState(),
    population: savePopulation(island.population),
    bad: savePopulation(island.bad),
  };
}

/** Loads a snapshot into a freshly built island (its Rng must already be `new Rng(state.rng)`). */
export function restoreIsland(island: Island, state: IslandState): void {
  if (state.n !== island.n) throw new RangeError(`snapshot is for N = ${state.n}, not ${island.n}`);
  loadPopulation(island.population, state.population, 'population');
  loadPopulation(island.bad, state.bad, 'bad repository');
  island.iterations = state.iterations;
  island.evaluations = state.evaluations;
}
