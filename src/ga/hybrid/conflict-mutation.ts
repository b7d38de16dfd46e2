import type { Rng } from '../rng.ts';
import { uniformOther } from '../selection.ts';
import type { Board } from './board.ts';
import { isConflicted } from './diagonals.ts';
import { applySwap, swapDelta, swapDeltaByRecount } from './swap-delta.ts';

/** How many list entries are drawn, at most, to find one still in conflict. */
const PICK_TRIES = 8;

/**
 * Operator `conflictMutation`: pick a queen that shares a diagonal (from `list`, the
 * board's conflicted columns), draw `partners` random columns, and swap it with the one
 * whose swap lowers the fitness most. The swap is made even when no partner improves:
 * this is a mutation (a directed kick that lets the GA leave a local optimum of the
 * local search), not a hill-climbing step. The moved partner is appended to the list.
 *
 * Changes relative to paper mode: the paper swaps two uniformly random genes, which on
 * a near-solution almost always adds conflicts; this one always moves a queen that is
 * in conflict, toward fewer conflicts. Priced with `swapDelta` (O(1)) unless
 * `useSwapDelta` is false. Returns the fitness change (0 when no queen is in conflict).
 */
export function conflictMutation(board: Board, rng: Rng, partners: number, useSwapDelta: boolean): number {
  const { n, genes, offset, counts, list } = board;
  const count = list.count;
  if (count === 0 || n < 2) return 0;
  let i = -1;
  for (let t = 0; t < PICK_TRIES; t++) {
    const c = list.cols[rng.int(count)];
    if (isConflicted(genes, offset, n, counts, c)) {
      i = c;
      break;
    }
  }
  if (i < 0) return 0;
  let best = 0x7fffffff;
  let bestJ = -1;
  for (let p = 0; p < partners; p++) {
    const j = uniformOther(rng, n, i);
    const d = useSwapDelta ? swapDelta(genes, offset, n, counts, i, j) : swapDeltaByRecount(board, i, j);
    if (d < best) {
      best = d;
      bestJ = j;
    }
  }
  if (bestJ < 0) return 0;
  applySwap(board, i, bestJ);
  board.fitness += best;
  list.push(bestJ);
  return best;
}
