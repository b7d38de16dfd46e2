import { TopologyError } from '../errors.ts';
import { addEdge, type Edge } from './edge.ts';

/** The near-square shape: rows = the largest divisor of `islands` not above its square root. */
export function nearSquareRows(islands: number): number {
  let rows = Math.floor(Math.sqrt(islands));
  while (islands % rows !== 0) rows--;
  return rows;
}

/**
 * A 2-D torus of rows × cols islands (island i at row ⌊i / cols⌋, column i mod cols); each
 * sends to its 4 neighbours (up, down, left, right, wrapping). Self-loops and duplicates that
 * thin grids produce (one row, two columns) are dropped.
 */
export function grid(islands: number, rows = nearSquareRows(islands)): Edge[] {
  if (!Number.isInteger(rows) || rows < 1 || islands % rows !== 0) {
    throw new TopologyError(`grid rows must be a positive divisor of the island count ${islands}, got ${rows}`);
  }
  const cols = islands / rows;
  const edges: Edge[] = [];
  const seen = new Set<number>();
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      addEdge(edges, seen, islands, i, ((r + rows - 1) % rows) * cols + c);
      addEdge(edges, seen, islands, i, ((r + 1) % rows) * cols + c);
      addEdge(edges, seen, islands, i, r * cols + ((c + cols - 1) % cols));
      addEdge(edges, seen, islands, i, r * cols + ((c + 1) % cols));
    }
  }
  return edges;
}
