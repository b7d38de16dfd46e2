/**
 * Independent solution check, written apart from the GA's fitness: it takes the
 * 1-based tuple exactly as printed and looks for a shared row or diagonal with plain
 * tables of one bit per row and per diagonal (6 MB at N = 10^7, which the processor's cache
 * holds; bytes would be 50 MB of cache misses, a second at 10^7). Every solution the tool
 * reports passes through here first.
 */
export type Validation = { valid: true } | { valid: false; reason: string };

/**
 * From this N on the three bit tables (N / 8 + N / 2 bytes) outgrow the processor's cache
 * together, and a check touching all three for each queen misses it about three times a queen
 * (6 s at N = 10^8, the rows in random order). So the yes is found by one pass over the
 * tuple for each kind of line (rows, ↘, ↗), each with its own table, which stays in cache
 * (about 1.5 s at 10^8); a tuple refused there gets the plain pass, which names the first conflict.
 */
const PASSES_FROM = 1 << 23;
/** The most bits a pass's table holds (32 MB); a longer range of lines is checked in windows of this size. */
const WINDOW_BITS = 1 << 28;

export function validateSolution(tuple: ArrayLike<number>, expectedN = tuple.length): Validation {
  const n = tuple.length;
  if (n !== expectedN) return { valid: false, reason: `has ${n} queens, expected ${expectedN}` };
  if (n >= PASSES_FROM && noSharedLine(tuple)) return { valid: true };
  return firstConflict(tuple);
}

/** The plain pass: the first row out of range or line shared, in column order. */
function firstConflict(tuple: ArrayLike<number>): Validation {
  const n = tuple.length;
  const rowUsed = new BitTable(n + 1);
  const sumUsed = new BitTable(2 * n + 1);
  const diffUsed = new BitTable(2 * n + 1);
  for (let col = 1; col <= n; col++) {
    const row = tuple[col - 1];
    if (!Number.isInteger(row) || row < 1 || row > n) {
      return { valid: false, reason: `column ${col} holds ${row}, outside 1..${n}` };
    }
    if (rowUsed.has(row)) return { valid: false, reason: `row ${row} is used twice` };
    rowUsed.add(row);
    const sum = row + col;
    const diff = row - col + n;
    if (sumUsed.has(sum)) return { valid: false, reason: `column ${col} shares a ↘ diagonal with an earlier queen` };
    if (diffUsed.has(diff)) return { valid: false, reason: `column ${col} shares a ↗ diagonal with an earlier queen` };
    sumUsed.add(sum);
    diffUsed.add(diff);
  }
  return { valid: true };
}

/** The passes by kind of line: true when every row is an integer in 1..N and no row, ↘ or ↗ diagonal holds two queens. */
export function noSharedLine(tuple: ArrayLike<number>): boolean {
  const n = tuple.length;
  for (let col = 1; col <= n; col++) {
    const row = tuple[col - 1];
    if (!Number.isInteger(row) || row < 1 || row > n) return false;
  }
  const table = new Int32Array((Math.min(WINDOW_BITS, 2 * n + 1) + 31) >>> 5);
  // Line of the queen in column col: row + slope * col + offset (rows 1..N, ↘ 2..2N, ↗ 1..2N - 1).
  for (const [slope, offset, size] of [
    [0, 0, n + 1],
    [1, 0, 2 * n + 1],
    [-1, n, 2 * n + 1],
  ]) {
    for (let from = 0; from < size; from += WINDOW_BITS) {
      if (!distinctIn(tuple, slope, offset - from, Math.min(WINDOW_BITS, size - from), table)) return false;
    }
  }
  return true;
}

/** One pass: no two queens' lines (row + slope · col + shift) share a value in 0..size-1. */
function distinctIn(tuple: ArrayLike<number>, slope: number, shift: number, size: number, table: Int32Array): boolean {
  table.fill(0);
  let seen = 0;
  for (let col = 1; col <= tuple.length; col++) {
    const k = tuple[col - 1] + slope * col + shift;
    if (k >= 0 && k < size) {
      const bit = 1 << (k & 31);
      seen |= table[k >>> 5] & bit;
      table[k >>> 5] |= bit;
    }
  }
  return seen === 0;
}

/** A set of integers 0..size-1, one bit each. */
class BitTable {
  private readonly words: Int32Array;
  constructor(size: number) {
    this.words = new Int32Array((size + 31) >>> 5);
  }
  has(k: number): boolean {
    return ((this.words[k >>> 5] >>> (k & 31)) & 1) !== 0;
  }
  add(k: number): void {
    this.words[k >>> 5] |= 1 << (k & 31);
  }
}
