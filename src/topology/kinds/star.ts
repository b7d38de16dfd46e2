import { defineTopology } from './define.ts';
import type { Edge } from './edge.ts';

/** Hub = island 0; edges both ways between the hub and every leaf, none between leaves. */
export function star(islands: number): Edge[] {
  const edges: Edge[] = [];
  for (let leaf = 1; leaf < islands; leaf++) edges.push([0, leaf], [leaf, 0]);
  return edges;
}

export const starTopology = defineTopology({
  kind: 'star',
  help: 'island 0 is the hub, both ways to every other island',
  options: () => ({}),
  build: (islands) => star(islands),
});
