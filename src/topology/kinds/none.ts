import { defineTopology } from './define.ts';
import type { Edge } from './edge.ts';

/** Isolated islands: no migration at all. */
export function none(_islands: number): Edge[] {
  return [];
}

export const noneTopology = defineTopology({
  kind: 'none',
  help: 'isolated islands, no migration',
  options: () => ({}),
  build: (islands) => none(islands),
});
