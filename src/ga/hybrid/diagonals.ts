import type { Genes } from '../../problem/genes.ts';

/**
 * Per-chromosome diagonal counts: the state that makes every other hybrid operator
 * cheap. For a queen in column i on row r, `up[r - i + n - 1]` counts the queens on its
 * ↗ diagonal and `down[r + i]` those on its ↘ diagonal (2n - 1 cells each).
 *
 * Changes relative to paper mode: the paper re-counts a whole chromosome (O(N)) after
 * every change; here each member carries its counts, so a swap is priced in O(1)
 * (`swap-delta.ts`) and the queens in conflict can be listed without sorting.
 * Counts are Int32Array whatever N is: a count can reach N (the identity permutation).
 */

/** Allocates one count array (either direction) for a board of size n. */
export function allocCounts(n: number): Int32Array {
  return new Int32Array(2 * n - 1);
}

/**
 * Recounts both directions from scratch and returns the paper's fitness (for every
 * diagonal with k >= 1 queens add k - 1, which is 2n minus the occupied diagonals). O(N).
 */
export function countDiagonals(genes: Genes, offset: number, n: number, up: Int32Array, down: Int32Array): number {
  up.fill(0);
  down.fill(0);
  const shift = n - 1;
  let occupied = 0;
  for (let i = 0; i < n; i++) {
    const r = genes[offset + i];
    // (c - 1) >>> 31 is 1 exactly when the old count c was 0: branch-free on random rows.
    occupied += (up[r - i + shift]++ - 1) >>> 31;
    occupied += (down[r + i]++ - 1) >>> 31;
  }
  return 2 * n - occupied;
}

/** Whether the queen in column i shares a diagonal with another queen. */
export function isConflicted(genes: Genes, offset: number, n: number, up: Int32Array, down: Int32Array, i: number): boolean {
  const r = genes[offset + i];
  return up[r - i + n - 1] > 1 || down[r + i] > 1;
}

/**
 * Scratch list of columns whose queen is (or recently was) in conflict. Sized n + 64:
 * a scan writes at most n entries, and operators may append a few moved queens.
 */
export class ConflictList {
  readonly cols: Int32Array;
  count = 0;
  constructor(n: number) {
    this.cols = new Int32Array(n + 64);
  }
  /** Appends a column if there is room (a full list only loses a hint, never correctness). */
  push(col: number): void {
    if (this.count < this.cols.length) this.cols[this.count++] = col;
  }
}

/**
 * Lists every column whose queen shares a diagonal, in column order. O(N), branch-free:
 * the column is always written and the cursor advances only for a conflicted queen,
 * since on a near-solution almost no queen is, and a branch would still mispredict.
 */
export function collectConflicts(
  genes: Genes, offset: number, n: number, up: Int32Array, down: Int32Array, list: ConflictList,
): number {
  const cols = list.cols;
  const shift = n - 1;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const r = genes[offset + i];
    cols[count] = i;
    // (1 - c) >>> 31 is 1 exactly when c >= 2.
    count += ((1 - up[r - i + shift]) >>> 31) | ((1 - down[r + i]) >>> 31);
  }
  list.count = count;
  return count;
}
