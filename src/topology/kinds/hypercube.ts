import { defineTopology } from './define.ts';
import type { Edge } from './edge.ts';

/** A d-dimensional hypercube (islands a power of two): island i sends to every island that differs from it in one bit of its id. */
export function hypercube(islands: number): Edge[] {
  const edges: Edge[] = [];
  for (let i = 0; i < islands; i++) for (let bit = 1; bit < islands; bit <<= 1) edges.push([i, i ^ bit]);
  return edges;
}

export const hypercubeTopology = defineTopology({
  kind: 'hypercube',
  help: 'island i sends to every island whose id differs in one bit; islands a power of two',
  options: () => ({}),
  resolve: (options, { islands, islandsText, fail }) => {
    if ((islands & (islands - 1)) !== 0) {
      fail('/islands', `${islandsText} is not a power of two, which topology.kind "hypercube" needs; expected 1, 2, 4, 8, ...`, [
        'topology.kind',
      ]);
    }
    return options;
  },
  build: (islands) => hypercube(islands),
});
