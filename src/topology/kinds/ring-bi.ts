import { defineTopology } from './define.ts';
import { addEdge, type Edge } from './edge.ts';

/** Two-way ring: i → i+1 and i → i-1 (mod islands), without duplicates for two islands. */
export function ringBi(islands: number): Edge[] {
  const edges: Edge[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < islands; i++) {
    addEdge(edges, seen, islands, i, (i + 1) % islands);
    addEdge(edges, seen, islands, i, (i - 1 + islands) % islands);
  }
  return edges;
}

export const ringBiTopology = defineTopology({
  kind: 'ring-bi',
  help: 'two-way ring: island i sends to i+1 and i-1',
  options: () => ({}),
  build: (islands) => ringBi(islands),
});
