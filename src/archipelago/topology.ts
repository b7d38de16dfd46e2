import { TopologyError } from './errors.ts';
import type { Edge } from './topologies/edge.ts';
import { explicitEdges } from './topologies/edges.ts';
import { fullyConnected } from './topologies/fully-connected.ts';
import { grid } from './topologies/grid.ts';
import { hypercube } from './topologies/hypercube.ts';
import { none } from './topologies/none.ts';
import { random } from './topologies/random.ts';
import { ringBi } from './topologies/ring-bi.ts';
import { ring } from './topologies/ring.ts';
import { star } from './topologies/star.ts';

export type { Edge } from './topologies/edge.ts';

/** Who sends migrants to whom: a kind from `TOPOLOGY_KINDS` and that kind's options. */
export type TopologySpec =
  | { kind: 'ring' }
  | { kind: 'ring-bi' }
  | { kind: 'fully-connected' }
  | { kind: 'star' }
  | { kind: 'grid'; rows?: number }
  | { kind: 'hypercube' }
  | { kind: 'random'; probability: number }
  | { kind: 'none' }
  | { kind: 'edges'; edges: readonly (readonly number[])[] };

export type TopologyKind = TopologySpec['kind'];

type Builder<K extends TopologyKind> = (islands: number, spec: Extract<TopologySpec, { kind: K }>, seed: number) => Edge[];

/**
 * The one table of topologies, by name. Adding a kind means one file in `topologies/` and
 * one line here; the config schema reads `TOPOLOGY_KINDS`.
 */
const TOPOLOGIES: { [K in TopologyKind]: Builder<K> } = {
  ring: (islands) => ring(islands),
  'ring-bi': (islands) => ringBi(islands),
  'fully-connected': (islands) => fullyConnected(islands),
  star: (islands) => star(islands),
  grid: (islands, spec) => grid(islands, spec.rows),
  hypercube: (islands) => hypercube(islands),
  random: (islands, spec, seed) => random(islands, spec.probability, seed),
  none: (islands) => none(islands),
  edges: (islands, spec) => explicitEdges(islands, spec.edges),
};

/** Every topology name, in table order. */
export const TOPOLOGY_KINDS = Object.keys(TOPOLOGIES) as readonly TopologyKind[];

/** The directed edge list of `spec` for `islands` islands (the seed matters only to `random`). */
export function buildTopology(spec: TopologySpec, islands: number, seed: number): Edge[] {
  if (!Number.isInteger(islands) || islands < 1) {
    throw new TopologyError(`topology needs a positive integer island count, got ${islands}`);
  }
  const build = (TOPOLOGIES as Record<string, Builder<TopologyKind> | undefined>)[spec?.kind];
  if (!build) {
    throw new TopologyError(`topology kind must be one of ${TOPOLOGY_KINDS.join(', ')}, got ${String(spec?.kind)}`);
  }
  return build(islands, spec, seed);
}

/** In-neighbours of island `i` (ascending: the fixed order in which sync migration takes immigrants). */
export function sourcesOf(edges: readonly Edge[], i: number): number[] {
  return edges.filter(([, to]) => to === i).map(([from]) => from).sort((a, b) => a - b);
}

/** Out-neighbours of island `i`, ascending. */
export function targetsOf(edges: readonly Edge[], i: number): number[] {
  return edges.filter(([from]) => from === i).map(([, to]) => to).sort((a, b) => a - b);
}
