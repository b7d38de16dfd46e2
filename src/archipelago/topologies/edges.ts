import { TopologyError } from '../errors.ts';
import type { Edge } from './edge.ts';

/** An explicit edge list, checked: both ends must be islands, no self-loops, no repeats. */
export function explicitEdges(islands: number, list: readonly (readonly number[])[]): Edge[] {
  const seen = new Set<number>();
  const edges: Edge[] = [];
  for (const edge of list) {
    if (edge.length !== 2) throw new TopologyError(`edges: each edge must be [from, to], got [${edge.join(', ')}]`);
    const [from, to] = edge;
    for (const end of [from, to]) {
      if (!Number.isInteger(end) || end < 0 || end >= islands) {
        throw new TopologyError(`edges: edge [${from}, ${to}] names island ${end}, but islands are 0..${islands - 1}`);
      }
    }
    if (from === to) throw new TopologyError(`edges: edge [${from}, ${to}] is a self-loop`);
    const key = from * islands + to;
    if (seen.has(key)) throw new TopologyError(`edges: edge [${from}, ${to}] is listed twice`);
    seen.add(key);
    edges.push([from, to]);
  }
  return edges;
}
