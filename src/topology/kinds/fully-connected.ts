import { defineTopology } from './define.ts';
import type { Edge } from './edge.ts';

/** Every island sends to every other island. */
export function fullyConnected(islands: number): Edge[] {
  const edges: Edge[] = [];
  for (let i = 0; i < islands; i++) for (let j = 0; j < islands; j++) if (i !== j) edges.push([i, j]);
  return edges;
}

export const fullyConnectedTopology = defineTopology({
  kind: 'fully-connected',
  help: 'every island sends to every other',
  options: () => ({}),
  build: (islands) => fullyConnected(islands),
});
