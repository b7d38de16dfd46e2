import type { Genes } from './genes.ts';

/**
 * Reusable scratch for O(N) fitness. Instead of clearing two count arrays per
 * evaluation, each cell remembers the epoch of the evaluation that last marked it.
 */
export class DiagonalMarks {
  readonly up: Uint32Array;
  readonly down: Uint32Array;
  epoch = 0;

  constructor(readonly n: number) {
    this.up = new Uint32Array(2 * n - 1);
    this.down = new Uint32Array(2 * n - 1);
  }

  /** Starts a new evaluation; on wrap-around the arrays are cleared once. */
  next(): number {
    if (this.epoch === 0xffffffff) {
      this.up.fill(0);
      this.down.fill(0);
      this.epoch = 0;
    }
    return ++this.epoch;
  }
}

/**
 * The paper's fitness: for every diagonal holding k >= 1 queens add k - 1, over both
 * directions. Equivalently 2N minus the number of distinct occupied diagonals, which
 * is what this counts, in O(N) and without allocating.
 */
export function fitness(genes: Genes, offset: number, n: number, marks: DiagonalMarks): number {
  const epoch = marks.next();
  const up = marks.up;
  const down = marks.down;
  const shift = n - 1;
  let distinct = 0;
  for (let i = 0; i < n; i++) {
    const row = genes[offset + i];
    const u = row - i + shift;
    const d = row + i;
    if (up[u] !== epoch) {
      up[u] = epoch;
      distinct++;
    }
    if (down[d] !== epoch) {
      down[d] = epoch;
      distinct++;
    }
  }
  return 2 * n - distinct;
}
