import type { Rng } from '../rng.ts';
import type { Board } from './board.ts';
import { addQueen, compactConflicts, DOWN, removeQueen, UP } from './diagonals.ts';
import { countsFromBits, occupy, type OccupancyBits } from './occupancy.ts';

/** Columns placed between two `shouldStop` checks (a few milliseconds at most). */
const STOP_CHECK_MASK = 0xffff;

/**
 * Operator `smartStart`: a greedy low-conflict permutation, after Sosic & Gu's QS4
 * initial search. Columns are filled left to right; for column i up to `maxTries` rows
 * are drawn from the rows not used yet, and the first whose two diagonals are still
 * empty is taken (if none is, the last one drawn is taken anyway, leaving a conflict).
 * The rows not used yet are genes i..n-1, so drawing one is a single swap and the result
 * is always a permutation. About 3.06 draws per column on average (Sosic & Gu: 3.08).
 *
 * Changes relative to paper mode: the paper starts from uniformly random permutations,
 * whose fitness is about 0.53 N (mostly conflicts); with `maxTries` = 128 this start
 * leaves about ten conflicts even at N = 10^7, in O(N) expected time, so the GA and its
 * local search only have to finish the job. Each call draws its own rows.
 *
 * The counts come from the occupancy bits (one sequential pass) plus the queens that were
 * placed on an occupied diagonal, which are also the board's conflict list: no O(N)
 * recount, no scan. Writes the board's genes, counts and list; returns the fitness, or -1
 * when `shouldStop` (asked every 65,536 columns) said yes and the permutation was left unfinished.
 */
export function smartStart(board: Board, rng: Rng, maxTries: number, bits: OccupancyBits, shouldStop?: () => boolean): number {
  const { genes, offset, n, list } = board;
  const ub = bits.up;
  const db = bits.down;
  bits.clear();
  list.count = 0;
  for (let i = 0; i < n; i++) genes[offset + i] = i;
  const shift = n - 1;
  for (let i = 0; i < n; i++) {
    if ((i & STOP_CHECK_MASK) === STOP_CHECK_MASK && shouldStop?.()) return -1;
    const left = n - i;
    let j = i + rng.int(left);
    let r = genes[offset + j];
    for (let t = 1; t < maxTries; t++) {
      const a = r - i + shift;
      const b = r + i;
      // `>>> a` shifts by a & 31, so this reads bit a of the packed words.
      if ((((ub[a >>> 5] >>> a) | (db[b >>> 5] >>> b)) & 1) === 0) break;
      j = i + rng.int(left);
      r = genes[offset + j];
    }
    genes[offset + j] = genes[offset + i];
    genes[offset + i] = r;
    occupy(bits, r - i + shift, r + i, list, i);
  }
  return countsFromBits(board, bits);
}

/**
 * The smart start of a further member, derived from a built one: `board` is a copy of a
 * member (genes, counts, list), and the columns start..start+length-1 are placed again by
 * the same greedy rule, with the rows those columns held, against the counts of the rest of
 * the board. Costs length/N of a whole smart start (plus the copy), where a whole one at
 * N = 10^7 is seconds of cache misses; the member differs from its source in that block.
 * Returns the fitness, kept exact from the counts changed, or -1 when `shouldStop` (asked
 * every 65,536 columns) said yes and the board was left unfinished.
 */
export function regreedBlock(board: Board, start: number, length: number, rng: Rng, maxTries: number, shouldStop?: () => boolean): number {
  const { genes, offset, n, counts, wide, list } = board;
  const shift = n - 1;
  const twoN = 2 * n;
  const end = start + length;
  let fitness = board.fitness;
  // Off the board: a queen leaving a diagonal of c >= 2 queens removes a conflict.
  for (let i = start; i < end; i++) {
    const r = genes[offset + i];
    if (removeQueen(counts, r - i + shift, UP, wide, r - i + shift) >= 2) fitness--;
    if (removeQueen(counts, r + i, DOWN, wide, twoN + r + i) >= 2) fitness--;
  }
  for (let i = start; i < end; i++) {
    if (((i - start) & STOP_CHECK_MASK) === STOP_CHECK_MASK && shouldStop?.()) return -1;
    const left = end - i;
    let j = i + rng.int(left);
    let r = genes[offset + j];
    for (let t = 1; t < maxTries && ((counts[r - i + shift] & 15) !== 0 || counts[r + i] >>> 4 !== 0); t++) {
      j = i + rng.int(left);
      r = genes[offset + j];
    }
    genes[offset + j] = genes[offset + i];
    genes[offset + i] = r;
    const before =
      (addQueen(counts, r - i + shift, UP, wide, r - i + shift) > 0 ? 1 : 0) +
      (addQueen(counts, r + i, DOWN, wide, twoN + r + i) > 0 ? 1 : 0);
    if (before > 0) {
      fitness += before;
      list.push(i);
    }
  }
  board.fitness = fitness;
  compactConflicts(board);
  return fitness;
}
