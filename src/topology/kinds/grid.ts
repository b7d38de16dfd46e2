import { defineTopology } from './define.ts';
import { addEdge, type Edge } from './edge.ts';

/** The near-square shape: rows = the largest divisor of `islands` not above its square root. */
export function nearSquareRows(islands: number): number {
  let rows = Math.floor(Math.sqrt(islands));
  while (islands % rows !== 0) rows--;
  return rows;
}

/**
 * A 2-D torus of rows × cols islands (`rows` divides `islands`; island i at row ⌊i / cols⌋,
 * column i mod cols); each sends to its 4 neighbours (up, down, left, right, wrapping).
 * Self-loops and duplicates that thin grids produce (one row, two columns) are dropped.
 */
export function grid(islands: number, rows: number): Edge[] {
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

export const gridTopology = defineTopology({
  kind: 'grid',
  help: 'a torus of rows x columns, each island sending to its 4 neighbours',
  options: (f) => ({
    rows: f
      .int(1, { nullMeans: 'near-square' })
      .nullable()
      .optional()
      .describe('grid only: number of rows, a divisor of islands; null = the largest divisor of islands <= sqrt(islands)'),
  }),
  flags: { rows: { name: 'rows', value: 'number', describe: 'rows of the grid topology (null = near-square)' } },
  resolve: (options, { islands, islandsText, fail }) => {
    const rows = options.rows ?? nearSquareRows(islands);
    if (islands % rows !== 0)
      fail('rows', `${rows} rows do not divide the ${islandsText} islands into full rows; expected a divisor of ${islands}`, ['islands']);
    return { rows };
  },
  build: (islands, { rows }) => grid(islands, rows),
});
