/** Boards wider than this are not drawn: they would not fit a terminal line. */
export const MAX_BOARD_N = 40;

/**
 * A Unicode picture of a 1-based tuple: row N at the top, as on a chessboard,
 * queens as ♛ and empty squares as alternating light and dark cells.
 */
export function renderBoard(tuple: ArrayLike<number>): string {
  const n = tuple.length;
  if (n > MAX_BOARD_N) throw new RangeError(`a board is drawn only up to N = ${MAX_BOARD_N}, this one has N = ${n}`);
  const lines: string[] = [];
  for (let row = n; row >= 1; row--) {
    let line = '';
    for (let col = 1; col <= n; col++) {
      line += tuple[col - 1] === row ? '♛' : (row + col) % 2 === 0 ? '■' : '□';
      if (col < n) line += ' ';
    }
    lines.push(line);
  }
  return lines.join('\n');
}
