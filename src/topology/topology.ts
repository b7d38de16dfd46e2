import { namesOf, plugInNamed, type Registry } from '../schema/plug-in.ts';
import type { SpecOf } from '../schema/registry.ts';
import { TopologyError } from './errors.ts';
import type { TopologyDefinition } from './kinds/define.ts';
import type { Edge } from './kinds/edge.ts';
import { TOPOLOGY_REGISTRY } from './kinds/registry.ts';

export type { Edge } from './kinds/edge.ts';

/**
 * The most islands a run has (the run config's `islands`, 1..MAX_ISLANDS), and so the most
 * buildTopology draws a topology for: islands share threads, so the cap bounds the
 * coordinator's per-island work and the edges drawn, far below what fills the heap.
 */
export const MAX_ISLANDS = 4096;

/** Any list of topology definitions: the registry, or a test's registry with one more. */
export type TopologyRegistry = Registry<TopologyDefinition>;

type Registered = (typeof TOPOLOGY_REGISTRY)[number];

/** Who sends migrants to whom: a registered kind and its options, resolved (src/config checks them). */
export type TopologySpec = SpecOf<Registered>;
export type TopologyKind = Registered['kind'];

/** Every topology name, in registry order. */
export const TOPOLOGY_KINDS: readonly TopologyKind[] = Object.freeze(namesOf(TOPOLOGY_REGISTRY) as TopologyKind[]);

/** The definition of kind `kind`. @throws TopologyError naming `topology.kind` and the registered kinds if it has none. */
export function topologyDefinition(kind: string, registry: TopologyRegistry = TOPOLOGY_REGISTRY): TopologyDefinition {
  return plugInNamed(registry, kind, 'topology.kind', (message) => new TopologyError(message));
}

/**
 * The directed edge list of a resolved spec for `islands` islands (the seed matters only to
 * `random`). Trusts the spec: it comes from the checked run config (`buildTopology` in
 * schema.ts checks one that does not).
 */
export function edgesOf(spec: { kind: string }, islands: number, seed: number, registry?: TopologyRegistry): Edge[] {
  return topologyDefinition(spec.kind, registry).build(islands, spec, seed);
}

/** In-neighbours of island `i` (ascending: the fixed order in which sync migration takes immigrants). */
export function sourcesOf(edges: readonly Edge[], i: number): number[] {
  return edges
    .filter(([, to]) => to === i)
    .map(([from]) => from)
    .sort((a, b) => a - b);
}

/** Out-neighbours of island `i`, ascending. */
export function targetsOf(edges: readonly Edge[], i: number): number[] {
  return edges
    .filter(([from]) => from === i)
    .map(([, to]) => to)
    .sort((a, b) => a - b);
}
