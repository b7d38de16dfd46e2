import { Rng } from '../../ga/rng.ts';
import { TOPOLOGY_DEFAULTS } from './defaults.ts';
import { defineTopology } from './define.ts';
import type { Edge } from './edge.ts';

/** The random stream topology draws use: far from any island's stream (island i uses stream i). */
export const TOPOLOGY_STREAM = 0x7fff0000;

/**
 * Each directed edge i → j (i ≠ j) exists with probability p in [0, 1], drawn in the order
 * (0,1), (0,2), ..., (1,0), ... from `Rng.forStream(seed, TOPOLOGY_STREAM)`: the edge set
 * depends only on the run's seed, the island count and p.
 */
export function random(islands: number, probability: number, seed: number): Edge[] {
  const rng = Rng.forStream(seed, TOPOLOGY_STREAM);
  const edges: Edge[] = [];
  for (let i = 0; i < islands; i++) {
    for (let j = 0; j < islands; j++) if (i !== j && rng.float() < probability) edges.push([i, j]);
  }
  return edges;
}

export const randomTopology = defineTopology({
  kind: 'random',
  help: 'each directed edge with a probability, drawn from the run seed',
  options: (f) => ({
    probability: f
      .probability()
      .default(TOPOLOGY_DEFAULTS.random.probability)
      .describe(`random only: probability of each directed edge; default ${TOPOLOGY_DEFAULTS.random.probability}`),
  }),
  flags: { probability: { name: 'probability', value: 'number', describe: 'edge probability of the random topology' } },
  build: (islands, { probability }, seed) => random(islands, probability, seed),
});
