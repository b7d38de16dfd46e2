import type { Genes } from '../../problem/genes.ts';
import { ConflictList, type Board } from './board.ts';

/**
 * Per-chromosome diagonal counts: the state that makes every other hybrid operator
 * cheap. For a queen in column i on row r, its ↗ diagonal is r - i + n - 1 and its ↘
 * diagonal r + i (2n - 1 of each); one byte per diagonal index holds both counts of that
 * index, the ↗ count in its low four bits (`UP`) and the ↘ count in its high four (`DOWN`).
 *
 * Changes relative to paper mode: the paper re-counts a whole chromosome (O(N)) after
 * every change; here each member carries its counts, so a swap is priced in O(1)
 * (`swap-delta.ts`) and the queens in conflict are listed without sorting.
 *
 * Four bits a diagonal, exact for every N: a count can reach N (the identity permutation),
 * so a nibble saturates at 15 and the true count of such a diagonal is kept in the board's
 * `wide` map. The operators only ask whether a count is 0, 1, 2 or more, which a saturated
 * nibble answers right; only an increment from 14 or a decrement from 15 consults the map
 * (never on near-solutions: 15 queens on one diagonal is about 10^-12 likely per diagonal
 * of a random permutation). Half a byte a diagonal is 20 MB a member at N = 10^7 (a byte,
 * the counts until version 0.2, was 40 MB; Int32 counts 160 MB).
 */
export const SATURATED = 15;
/** Where a direction's count sits in the byte of its diagonal index (a shift). */
export const UP = 0;
export const DOWN = 4;

/** Allocates the counts of a board of size n (both directions), in a buffer of their own (a solved island gives it back, release.ts). */
export function allocCounts(n: number): Uint8Array {
  return new Uint8Array(2 * n - 1);
}

/** The ↗ count of diagonal `k` (15: saturated, the true count in `wide`). */
export function upAt(counts: Uint8Array, k: number): number {
  return counts[k] & 15;
}

/** The ↘ count of diagonal `k` (15: saturated, the true count in `wide`). */
export function downAt(counts: Uint8Array, k: number): number {
  return counts[k] >>> 4;
}

/** Adds a queen to diagonal `k` of direction `dir` (UP or DOWN; key `key` in `wide`); returns the count before. */
export function addQueen(counts: Uint8Array, k: number, dir: number, wide: Map<number, number>, key: number): number {
  const c = (counts[k] >>> dir) & 15;
  if (c < SATURATED - 1) {
    counts[k] += 1 << dir;
    return c;
  }
  if (c === SATURATED - 1) {
    counts[k] += 1 << dir;
    wide.set(key, SATURATED);
    return c;
  }
  const t = wide.get(key)!;
  wide.set(key, t + 1);
  return t;
}

/** Takes a queen off diagonal `k` of direction `dir` (which holds one); returns the count before. */
export function removeQueen(counts: Uint8Array, k: number, dir: number, wide: Map<number, number>, key: number): number {
  const c = (counts[k] >>> dir) & 15;
  if (c !== SATURATED) {
    counts[k] -= 1 << dir;
    return c;
  }
  const t = wide.get(key)!;
  if (t === SATURATED) {
    counts[k] -= 1 << dir;
    wide.delete(key);
  } else {
    wide.set(key, t - 1);
  }
  return t;
}

/**
 * Recounts both directions of a board from scratch and returns the paper's fitness (for
 * every diagonal with k >= 1 queens add k - 1, which is 2n minus the occupied diagonals). O(N).
 */
export function countDiagonals(board: Board): number {
  const { genes, offset, n, counts, wide } = board;
  counts.fill(0);
  wide.clear();
  const shift = n - 1;
  const twoN = 2 * n;
  let occupied = 0;
  for (let i = 0; i < n; i++) {
    const r = genes[offset + i];
    const a = r - i + shift;
    const b = r + i;
    // Counts below 14 (all of them on any board but a pathological one) take the first branch.
    // a and b may be one index: each update reads the byte afresh.
    const ca = counts[a] & 15;
    if (ca < SATURATED - 1) counts[a] += 1;
    else addQueen(counts, a, UP, wide, a);
    const cb = counts[b] >>> 4;
    if (cb < SATURATED - 1) counts[b] += 16;
    else addQueen(counts, b, DOWN, wide, twoN + b);
    // (c - 1) >>> 31 is 1 exactly when the count before was 0.
    occupied += ((ca - 1) >>> 31) + ((cb - 1) >>> 31);
  }
  return 2 * n - occupied;
}

/** Whether the queen in column i shares a diagonal with another queen. */
export function isConflicted(genes: Genes, offset: number, n: number, counts: Uint8Array, i: number): boolean {
  const r = genes[offset + i];
  return (counts[r - i + n - 1] & 15) > 1 || counts[r + i] >>> 4 > 1;
}

/**
 * Lists every column whose queen shares a diagonal, in column order: O(N), for a board
 * whose list is unknown (just counted). On a near-solution almost no queen is in conflict,
 * so the branch is well predicted.
 */
export function collectConflicts(board: Board): number {
  const { genes, offset, n, counts, list } = board;
  const shift = n - 1;
  list.count = 0;
  for (let i = 0; i < n; i++) {
    const r = genes[offset + i];
    if ((counts[r - i + shift] & 15) > 1 || counts[r + i] >>> 4 > 1) list.push(i);
  }
  return list.count;
}

/** Above this many entries a compaction removes repeats by sorting rather than by pairwise search. */
const PAIRWISE_DEDUP = 64;

/**
 * Drops the listed columns whose queen is in no conflict now, and repeats, keeping
 * `Board.list`'s promise (a queen in no conflict sits alone on both its diagonals, so no
 * diagonal needs it listed). O(list) on near-solutions.
 */
export function compactConflicts(board: Board): number {
  const { genes, offset, n, counts, list } = board;
  const cols = list.cols;
  const shift = n - 1;
  let kept = 0;
  for (let k = 0; k < list.count; k++) {
    const i = cols[k];
    const r = genes[offset + i];
    if ((counts[r - i + shift] & 15) > 1 || counts[r + i] >>> 4 > 1) cols[kept++] = i;
  }
  if (kept > PAIRWISE_DEDUP) {
    cols.subarray(0, kept).sort();
    let u = 0;
    for (let k = 0; k < kept; k++) if (k === 0 || cols[k] !== cols[u - 1]) cols[u++] = cols[k];
    kept = u;
  } else {
    let u = 0;
    for (let k = 0; k < kept; k++) {
      const i = cols[k];
      let m = 0;
      while (m < u && cols[m] !== i) m++;
      if (m === u) cols[u++] = i;
    }
    kept = u;
  }
  list.count = kept;
  return kept;
}

/** A board with its own counts and list over `genes` at `offset` (fitness 0 until counted). */
export function newBoard(n: number, genes: Genes, offset: number): Board {
  return { n, genes, offset, counts: allocCounts(n), wide: new Map(), fitness: 0, list: new ConflictList() };
}

/** Makes `to` a copy of `from`'s counts, fitness and list (genes are the caller's: they live in population storage). */
export function copyBoardState(from: Board, to: Board): void {
  to.counts.set(from.counts);
  to.wide.clear();
  for (const [k, v] of from.wide) to.wide.set(k, v);
  to.fitness = from.fitness;
  to.list.copyFrom(from.list);
}

/** Trades counts, fitness and list between two boards of one size (O(1): a child entering the population takes the place of a member). */
export function swapBoardState(a: Board, b: Board): void {
  const { counts, wide, fitness, list } = a;
  a.counts = b.counts;
  a.wide = b.wide;
  a.fitness = b.fitness;
  a.list = b.list;
  b.counts = counts;
  b.wide = wide;
  b.fitness = fitness;
  b.list = list;
}

/**
 * Whether `cols` (columns of `board`, any order, repeats allowed) keeps `Board.list`'s
 * promise for the board's counts: of the k queens on any diagonal, at least k - 1 listed.
 * O(N) over the counts; for lists that come from outside (a checkpoint).
 */
export function listCovers(board: Board, cols: ArrayLike<number>): boolean {
  const { genes, offset, n, counts, wide } = board;
  const onUp = new Map<number, number>();
  const onDown = new Map<number, number>();
  for (const i of new Set(Array.from(cols))) {
    if (!Number.isInteger(i) || i < 0 || i >= n) return false;
    const r = genes[offset + i];
    onUp.set(r - i + n - 1, (onUp.get(r - i + n - 1) ?? 0) + 1);
    onDown.set(r + i, (onDown.get(r + i) ?? 0) + 1);
  }
  for (let d = 0; d < 2 * n - 1; d++) {
    const u = upAt(counts, d) === SATURATED ? wide.get(d)! : upAt(counts, d);
    const w = downAt(counts, d) === SATURATED ? wide.get(2 * n + d)! : downAt(counts, d);
    if ((onUp.get(d) ?? 0) < u - 1 || (onDown.get(d) ?? 0) < w - 1) return false;
  }
  return true;
}
