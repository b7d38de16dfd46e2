/**
 * Independent solution check, written apart from the GA's fitness: it takes the
 * 1-based tuple exactly as printed and looks for a shared row or diagonal with plain
 * tables of one bit per row and per diagonal (6 MB at N = 10^7, which the processor's cache
 * holds; bytes would be 50 MB of cache misses, a second at 10^7). Every solution the tool
 * reports passes through here first.
 */
export type Validation = { valid: true } | { valid: false; reason: string };

export function validateSolution(tuple: ArrayLike<number>, expectedN = tuple.length): Validation {
  const n = tuple.length;
  if (n !== expectedN) return { valid: false, reason: `has ${n} queens, expected ${expectedN}` };
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
