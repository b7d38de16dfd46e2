import type { Genes } from '../../problem/genes.ts';
import { countDiagonals } from './diagonals.ts';

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
export function swapDelta(genes: Genes, offset: number, n: number, up: Int32Array, down: Int32Array, i: number, j: number): number {
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
    ((1 - up[a1]) >>> 31) + ((1 - up[a2] + sameA) >>> 31) +
    ((1 - down[c1]) >>> 31) + ((1 - down[c2] + sameC) >>> 31);
  const added =
    ((-up[b1]) >>> 31) + ((-up[b2] - sameC) >>> 31) +
    ((-down[d1]) >>> 31) + ((-down[d2] - sameA) >>> 31);
  return added - removed;
}

/** Swaps the queens of columns i and j and updates both count arrays (O(1)). */
export function applySwap(genes: Genes, offset: number, n: number, up: Int32Array, down: Int32Array, i: number, j: number): void {
  const ri = genes[offset + i];
  const rj = genes[offset + j];
  const shift = n - 1;
  up[ri - i + shift]--;
  up[rj - j + shift]--;
  down[ri + i]--;
  down[rj + j]--;
  up[rj - i + shift]++;
  up[ri - j + shift]++;
  down[rj + i]++;
  down[ri + j]++;
  genes[offset + i] = rj;
  genes[offset + j] = ri;
}

/**
 * The same number as `swapDelta`, by brute force: swap, recount everything, swap back
 * and recount again. O(N); used when the `swapDelta` operator is off, and by tests.
 * `fitness` is the chromosome's current fitness; the counts are left as they were.
 */
export function swapDeltaByRecount(
  genes: Genes, offset: number, n: number, up: Int32Array, down: Int32Array, i: number, j: number, fitness: number,
): number {
  const ri = genes[offset + i];
  genes[offset + i] = genes[offset + j];
  genes[offset + j] = ri;
  const after = countDiagonals(genes, offset, n, up, down);
  genes[offset + j] = genes[offset + i];
  genes[offset + i] = ri;
  countDiagonals(genes, offset, n, up, down);
  return after - fitness;
}
