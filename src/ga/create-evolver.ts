import type { Evolver } from './evolver.ts';
import { Island } from './island.ts';
import type { GaParams } from './params.ts';
import type { Rng } from './rng.ts';

/** What one island runs: plain data, so it can be sent to a worker thread. */
export interface EvolverSpec {
  mode: 'paper';
  params: GaParams;
}

/** Builds the island algorithm a spec names. */
export function createEvolver(spec: EvolverSpec, rng: Rng, shouldStop?: () => boolean): Evolver {
  return new Island({ params: spec.params, rng, shouldStop });
}
