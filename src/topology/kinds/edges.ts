import { defineTopology } from './define.ts';
import type { Edge } from './edge.ts';

export const edgesTopology = defineTopology({
  kind: 'edges',
  help: 'an explicit list of directed [from, to] island pairs',
  options: (f) => {
    const islandId = f.int(0);
    const edge = f.z.tuple([islandId, islandId], { error: f.expected('a pair [from, to] of 0-based island ids') });
    return {
      edges: f.z
        .array(edge, { error: f.expected('a list of [from, to] island pairs') })
        .optional()
        .describe('edges only: directed pairs [from, to] of 0-based island ids'),
    };
  },
  resolve: (options, { islands, islandsText, fail }) => {
    const { edges } = options;
    if (edges === undefined)
      return fail('edges', 'missing; topology.kind "edges" needs a list of [from, to] island pairs', ['topology.kind']);
    const seen = new Set<string>();
    edges.forEach(([from, to], i) => {
      const bad = from >= islands ? from : to >= islands ? to : undefined;
      if (bad !== undefined)
        fail(['edges', i], `island ${bad} does not exist; with ${islandsText} islands, ids are 0..${islands - 1}`, ['islands']);
      if (from === to) fail(['edges', i], `[${from}, ${to}] sends island ${from} its own migrants; expected two different islands`);
      const id = `${from},${to}`;
      if (seen.has(id)) fail(['edges', i], `[${from}, ${to}] is listed twice`);
      seen.add(id);
    });
    return { edges: edges.map(([from, to]): [number, number] => [from, to]) };
  },
  // Checked by `resolve`: both ends islands, no self-loops, no repeats.
  build: (_islands, { edges }): Edge[] => edges,
});
