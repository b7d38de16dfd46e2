import type { Evolver, IslandPlace } from './evolver.ts';
import type { GaModeDefinition } from './modes/define.ts';
import { GA_MODE_REGISTRY } from './modes/registry.ts';
import type { Rng } from './rng.ts';
import type { IslandState } from './snapshot.ts';
import { plugInNamed, type Registry } from '../schema/plug-in.ts';

/** Any list of GA modes: the registry, or one with more. */
export type GaModeRegistry = Registry<GaModeDefinition>;

type SpecOf<D> = D extends GaModeDefinition<infer K, infer _S, infer O> ? { mode: K; params: O & { n: number } } : never;
type ConfigOf<D> = D extends GaModeDefinition<infer K, infer _S, infer O> ? { mode: K } & O : never;

/** The resolved `ga` section of a run: a registered mode and its parameters (all but `n`). */
export type GaConfig = ConfigOf<(typeof GA_MODE_REGISTRY)[number]>;

/** What one island runs: a registered mode and its parameters, plain data, so it can be sent to a worker thread. */
export type EvolverSpec = SpecOf<(typeof GA_MODE_REGISTRY)[number]>;

/** What an island of a run runs: its mode, and its parameters with the board size. */
export function evolverSpecOf({ n, ga }: { n: number; ga: GaConfig }): EvolverSpec {
  const { mode, ...params } = ga;
  return { mode, params: { n, ...params } } as EvolverSpec;
}

/** The definition of GA mode `mode`. @throws one line naming `ga.mode` and the registered modes if it has none. */
export function gaModeOf(mode: string, registry: GaModeRegistry = GA_MODE_REGISTRY): GaModeDefinition {
  return plugInNamed(registry, mode, 'ga.mode');
}

/** Whether GA mode `mode` scores members by a fitness of its own (takeover), not the paper's; an unknown mode: false. */
export function hasOwnFitness(mode: string, registry: GaModeRegistry = GA_MODE_REGISTRY): boolean {
  return registry.some((m) => m.kind === mode && m.fitnessOf !== undefined);
}

/** Builds the island algorithm a spec names; with `snapshot`, continues a checkpointed one. */
export function createEvolver(
  spec: { mode: string; params: { n: number } },
  rng: Rng,
  shouldStop?: () => boolean,
  snapshot?: IslandState,
  registry: GaModeRegistry = GA_MODE_REGISTRY,
  place: IslandPlace = { island: 0, seed: 0 },
): Evolver {
  return gaModeOf(spec.mode, registry).create(spec.params, rng, shouldStop, snapshot, place);
}
