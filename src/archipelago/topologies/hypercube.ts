import { TopologyError } from '../errors.ts';
import type { Edge } from './edge.ts';

/** A d-dimensional hypercube: island i sends to every island that differs from it in one bit of its id. */
export function hypercube(islands: number): Edge[] {
  if ((islands & (islands - 1)) !== 0) {
    throw new TopologyError(`hypercube needs a power-of-two island count, got ${islands}`);
  }
  const edges: Edge[] = [];
  for (let i = 0; i < islands; i++) for (let bit = 1; bit < islands; bit <<= 1) edges.push([i, i ^ bit]);
  return edges;
}
