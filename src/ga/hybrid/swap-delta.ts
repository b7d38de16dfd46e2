import type { Genes } from '../../problem/genes.ts';
import type { Board } from './board.ts';
import { addQueen, countDiagonals, DOWN, removeQueen, SATURATED, UP } from './diagonals.ts';

/**
 * Operator `swapDelta`: the exact change of the paper's fitness when the queens of
 * columns i and j swap rows, read from the chromosome's diagonal counts in O(1).
 *
 * Changes relative to paper mode: the paper prices a mutation by re-evaluating the whole
 * chromosome (O(N)); this reads eight counters. Turning it off (`swapDelta: false`)
 * prices every candidate swap by a full recount instead, which gives the same numbers
 * and exists only to measure what the O(1) update buys.
 *
 * Why it is exact: the swap takes queen i off diagonals a1 = ri - i (↗) and c1 = ri + i
 * (↘), queen j off a2 = rj - j and c2 = rj + j, and puts them on b1 = rj - i, d1 = rj + i,
 * b2 = ri - j, d2 = ri + j. Since ri ≠ rj and i ≠ j, no old diagonal is a new one; only
 * a1 = a2 (and then d1 = d2) or c1 = c2 (and then b1 = b2) can coincide. Taking a queen
 * off a diagonal holding c queens lowers the fitness by 1 if c >= 2; putting one on a
 * diagonal holding c raises it by 1 if c >= 1; a coinciding pair sees the first change.
 */
export function swapDelta(genes: Genes, offset: number, n: number, counts: Uint8Array, i: number, j: number): number {
  const ri = genes[offset + i];
  const rj = genes[offset + j];
  const shift = n - 1;
  const a1 = ri - i + shift;
  const a2 = rj - j + shift;
  const b1 = rj - i + shift;
  const b2 = ri - j + shift;
  const c1 = ri + i;
  const c2 = rj + j;
  const d1 = rj + i;
  const d2 = ri + j;
  // Coincidences are rare, so these comparisons are well predicted.
  const sameA = a1 === a2 ? 1 : 0;
  const sameC = c1 === c2 ? 1 : 0;
  // (1 - c) >>> 31: c >= 2 (a removal frees a conflict); (-c) >>> 31: c >= 1 (an addition makes one).
  const removed =
    ((1 - (counts[a1] & 15)) >>> 31) +
    ((1 - (counts[a2] & 15) + sameA) >>> 31) +
    ((1 - (counts[c1] >>> 4)) >>> 31) +
    ((1 - (counts[c2] >>> 4) + sameC) >>> 31);
  const added =
    (-(counts[b1] & 15) >>> 31) +
    ((-(counts[b2] & 15) - sameC) >>> 31) +
    (-(counts[d1] >>> 4) >>> 31) +
    ((-(counts[d2] >>> 4) - sameA) >>> 31);
  return added - removed;
}

/**
 * Swaps the queens of columns i and j and updates the counts of both directions (O(1)). A
 * count at its limit (see diagonals.ts) goes through the board's `wide` map; no other does.
 */
export function applySwap(board: Board, i: number, j: number): void {
  const { genes, offset, n, counts } = board;
  const ri = genes[offset + i];
  const rj = genes[offset + j];
  const shift = n - 1;
  const a1 = ri - i + shift;
  const a2 = rj - j + shift;
  const c1 = ri + i;
  const c2 = rj + j;
  const b1 = rj - i + shift;
  const b2 = ri - j + shift;
  const d1 = rj + i;
  const d2 = ri + j;
  // Two queens may land on one diagonal (b1 = b2 or d1 = d2): below 13 even two additions stay
  // exact nibbles. Each update reads its byte afresh (a ↗ and a ↘ index may be one byte), and
  // none carries into or borrows from the other nibble: a removal's count is at least 1, an
  // addition's below 15.
  if (
    (counts[a1] & 15) === SATURATED ||
    (counts[a2] & 15) === SATURATED ||
    counts[c1] >>> 4 === SATURATED ||
    counts[c2] >>> 4 === SATURATED ||
    (counts[b1] & 15) >= SATURATED - 2 ||
    (counts[b2] & 15) >= SATURATED - 2 ||
    counts[d1] >>> 4 >= SATURATED - 2 ||
    counts[d2] >>> 4 >= SATURATED - 2
  ) {
    wideSwap(board, a1, a2, c1, c2, b1, b2, d1, d2);
  } else {
    counts[a1] -= 1;
    counts[a2] -= 1;
    counts[c1] -= 16;
    counts[c2] -= 16;
    counts[b1] += 1;
    counts[b2] += 1;
    counts[d1] += 16;
    counts[d2] += 16;
  }
  genes[offset + i] = rj;
  genes[offset + j] = ri;
}

/** The same count updates, each through the saturation rules (a count at or near 15 is involved). */
function wideSwap(board: Board, a1: number, a2: number, c1: number, c2: number, b1: number, b2: number, d1: number, d2: number): void {
  const { counts, wide } = board;
  const twoN = 2 * board.n;
  removeQueen(counts, a1, UP, wide, a1);
  removeQueen(counts, a2, UP, wide, a2);
  removeQueen(counts, c1, DOWN, wide, twoN + c1);
  removeQueen(counts, c2, DOWN, wide, twoN + c2);
  addQueen(counts, b1, UP, wide, b1);
  addQueen(counts, b2, UP, wide, b2);
  addQueen(counts, d1, DOWN, wide, twoN + d1);
  addQueen(counts, d2, DOWN, wide, twoN + d2);
}

/**
 * The same number as `swapDelta`, by brute force: swap, recount everything, swap back
 * and recount again. O(N); used when the `swapDelta` operator is off, and by tests.
 * The board's fitness is its current one; its counts are left as they were.
 */
export function swapDeltaByRecount(board: Board, i: number, j: number): number {
  const { genes, offset } = board;
  const fitness = board.fitness;
  const ri = genes[offset + i];
  genes[offset + i] = genes[offset + j];
  genes[offset + j] = ri;
  const after = countDiagonals(board);
  genes[offset + j] = genes[offset + i];
  genes[offset + i] = ri;
  countDiagonals(board);
  board.fitness = fitness;
  return after - fitness;
}
