import { HybridIsland } from './hybrid/hybrid-island.ts';
import type { HybridParams } from './hybrid/params.ts';
import { Island } from './island.ts';
import type { Evolver } from './evolver.ts';
import type { GaParams } from './params.ts';
import type { Rng } from './rng.ts';
import type { IslandState } from './snapshot.ts';

/** What one island runs: plain data, so it can be sent to a worker thread. */
export type EvolverSpec =
  | { mode: 'paper'; params: GaParams }
  /** Beyond the paper: the memetic island GA of src/ga/hybrid (docs/hybrid.md). */
  | { mode: 'hybrid'; params: HybridParams };

/** Builds the island algorithm a spec names; with `snapshot`, continues a checkpointed one. */
export function createEvolver(spec: EvolverSpec, rng: Rng, shouldStop?: () => boolean, snapshot?: IslandState): Evolver {
  if (spec.mode === 'hybrid') return new HybridIsland({ params: spec.params, rng, shouldStop, snapshot });
  return new Island({ params: spec.params, rng, shouldStop, snapshot });
}
