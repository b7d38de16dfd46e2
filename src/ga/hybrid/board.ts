import type { Genes } from '../../problem/genes.ts';

/**
 * One chromosome as the hybrid operators see it: its genes (n at `offset` in a flat
 * array, as populations store them), its diagonal counts (four bits a diagonal in each
 * direction, exact through `wide`, see diagonals.ts), its fitness, which the operators keep equal to
 * the paper's fitness as they swap queens, and the columns whose queens may be in conflict.
 * Boards are created once per population slot and per scratch board, never per child;
 * a child that enters the population trades its counts and list with the member it replaces.
 */
export interface Board {
  readonly n: number;
  genes: Genes;
  offset: number;
  /** Byte k: the ↗ count of diagonal k in its low four bits, the ↘ count in its high four (diagonals.ts). */
  counts: Uint8Array;
  /** The true counts of the diagonals holding 15 queens or more (key: ↗ index, or 2n + ↘ index); almost always empty. */
  wide: Map<number, number>;
  fitness: number;
  /**
   * Columns whose queens may be in conflict: of the k queens on any diagonal, at least
   * k - 1 are listed (stale entries allowed). Every operator keeps this true: a queen moved
   * onto an occupied diagonal is listed. So the queens in conflict are found among the
   * listed ones, never by an O(N) scan of the board.
   */
  list: ConflictList;
}

/** A growable list of columns (a board's queens that may be in conflict, see `Board.list`). */
export class ConflictList {
  cols: Int32Array;
  count = 0;
  constructor(capacity = 16) {
    this.cols = new Int32Array(Math.max(capacity, 16));
  }
  push(col: number): void {
    if (this.count === this.cols.length) this.grow(this.count * 2);
    this.cols[this.count++] = col;
  }
  /** Makes this list a copy of `other` (grows if needed). */
  copyFrom(other: ConflictList): void {
    if (this.cols.length < other.count) this.grow(other.count);
    this.cols.set(other.cols.subarray(0, other.count));
    this.count = other.count;
  }
  private grow(capacity: number): void {
    const cols = new Int32Array(capacity);
    cols.set(this.cols.subarray(0, this.count));
    this.cols = cols;
  }
}
