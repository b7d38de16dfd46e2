/**
 * Independent solution check, written apart from the GA's fitness: it takes the
 * 1-based tuple exactly as printed and looks for a shared row or diagonal with plain
 * boolean tables. Every solution the tool reports passes through here first.
 */
export type Validation = { valid: true } | { valid: false; reason: string };

export function validateSolution(tuple: ArrayLike<number>, expectedN = tuple.length): Validation {
  const n = tuple.length;
  if (n !== expectedN) return { valid: false, reason: `has ${n} queens, expected ${expectedN}` };
  const rowUsed = new Uint8Array(n + 1);
  const sumUsed = new Uint8Array(2 * n + 1);
  const diffUsed = new Uint8Array(2 * n + 1);
  for (let col = 1; col <= n; col++) {
    const row = tuple[col - 1];
    if (!Number.isInteger(row) || row < 1 || row > n) {
      return { valid: false, reason: `column ${col} holds ${row}, outside 1..${n}` };
    }
    if (rowUsed[row]) return { valid: false, reason: `row ${row} is used twice` };
    rowUsed[row] = 1;
    const sum = row + col;
    const diff = row - col + n;
    if (sumUsed[sum]) return { valid: false, reason: `column ${col} shares a ↘ diagonal with an earlier queen` };
    if (diffUsed[diff]) return { valid: false, reason: `column ${col} shares a ↗ diagonal with an earlier queen` };
    sumUsed[sum] = 1;
    diffUsed[diff] = 1;
  }
  return { valid: true };
}
