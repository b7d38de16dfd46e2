import { defineTopology } from './define.ts';
import { addEdge, type Edge } from './edge.ts';

/** One-way ring: i → i+1 (mod islands). One island has no edges; two give 0 ⇄ 1. */
export function ring(islands: number): Edge[] {
  const edges: Edge[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < islands; i++) addEdge(edges, seen, islands, i, (i + 1) % islands);
  return edges;
}

export const ringTopology = defineTopology({
  kind: 'ring',
  help: 'one-way ring: island i sends to i+1',
  options: () => ({}),
  build: (islands) => ring(islands),
});
