import type { Edge } from './edge.ts';

/** Isolated islands: no migration at all. */
export function none(_islands: number): Edge[] {
  return [];
}
