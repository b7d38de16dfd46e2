/**
 * A sweep whose cells cannot differ: two cells that run the same thing (topology swept on 1
 * island, where there are no migration edges; a key another key makes moot) spend runs on
 * a comparison with nothing in it: repeatable runs are identical seed for seed. Cells are compared as they would run: the resolved config, the topology as its
 * edges (for the study's first seed) and, with no edge at all, no migration settings.
 */
import { buildTopology } from '../topology/schema.ts';
import type { ResolvedCell } from './load.ts';

/** What a cell runs, as text: equal texts, equal runs for each seed. */
function effective(cell: ResolvedCell, seed: number): string {
  const { seed: _seed, topology, migration, ...rest } = cell.config;
  const edges = buildTopology(topology, cell.config.islands, seed);
  return JSON.stringify({ ...rest, edges, migration: edges.length > 0 ? migration : null });
}

/** One warning line per group of cells that run the same thing (none when every cell differs). */
export function sameCellWarnings(cells: readonly ResolvedCell[], seed: number): string[] {
  const groups = new Map<string, string[]>();
  for (const cell of cells) {
    const key = effective(cell, seed);
    groups.set(key, [...(groups.get(key) ?? []), cell.id]);
  }
  return [...groups]
    .filter(([, ids]) => ids.length > 1)
    .map(([key, ids]) => {
      const why =
        (JSON.parse(key) as { edges: unknown[] }).edges.length === 0
          ? 'no island sends migrants (e.g. 1 island), so topology and migration settings have no effect'
          : 'their topologies have the same edges here';
      return `sweep: cells ${ids.join('; ')} cannot differ (${why}): with sync or lagged migration their runs are identical seed for seed (async: apart only by thread timing), so comparing them tests nothing`;
    });
}
