import type { Rng } from '../rng.ts';
import { uniformOther } from '../selection.ts';
import type { Board } from './board.ts';
import { compactConflicts } from './diagonals.ts';
import { applySwap, swapDelta, swapDeltaByRecount } from './swap-delta.ts';

/** Candidate swaps between two `shouldStop` checks: cheap next to the swaps themselves. */
const STOP_CHECK_MASK = 4095;

/** The knobs of one local search call (plain data, built once per island). */
export interface LocalSearchLimits {
  /** Candidate swaps evaluated, at most, in one call. */
  maxSteps: number;
  /** Candidate partners tried for one conflicted queen before moving on to the next. */
  triesPerQueen: number;
  useSwapDelta: boolean;
}

/**
 * Operator `localSearch`: a bounded QS4-like descent (Sosic & Gu). For each queen that
 * shares a diagonal, try random partners and make the first swap that lowers the fitness
 * (priced in O(1) by `swapDelta`), until the queen is free or `triesPerQueen` partners
 * failed. One pass walks the board's list (every queen in conflict is listed, with stale
 * entries maybe: see `Board.list`); further passes walk it again after dropping the stale
 * entries (O(list), never a scan of the board), and the search ends at fitness 0, after `maxSteps` candidate swaps,
 * after a pass that improved nothing (a local optimum as far as sampling can tell), or
 * when `shouldStop` says so (checked every 4096 candidates). Only improving swaps are
 * made, so the fitness never rises, and swaps keep the permutation.
 *
 * Changes relative to paper mode: the paper has no local search; this makes the GA
 * memetic (Lamarckian: the improved genes are kept). Applied to children, to arriving
 * migrants, or both (`applyTo`). Leaves the new fitness in `board.fitness` and returns
 * how many candidate swaps it priced.
 */
export function localSearch(board: Board, rng: Rng, limits: LocalSearchLimits, shouldStop?: () => boolean): number {
  const { n, genes, offset, counts, list } = board;
  const { maxSteps, triesPerQueen, useSwapDelta } = limits;
  const shift = n - 1;
  let f = board.fitness;
  let steps = 0;
  while (f > 0 && steps < maxSteps) {
    let improved = false;
    for (let k = 0; k < list.count && f > 0 && steps < maxSteps; k++) {
      const i = list.cols[k];
      let tries = 0;
      while (tries < triesPerQueen && steps < maxSteps) {
        const ri = genes[offset + i];
        if ((counts[ri - i + shift] & 15) < 2 && counts[ri + i] >>> 4 < 2) break;
        const j = uniformOther(rng, n, i);
        const d = useSwapDelta ? swapDelta(genes, offset, n, counts, i, j) : swapDeltaByRecount(board, i, j);
        tries++;
        if (d < 0) {
          applySwap(board, i, j);
          f += d;
          board.fitness = f;
          improved = true;
          // The partner may have landed on a shared diagonal: visit it in this pass.
          list.push(j);
        }
        if ((++steps & STOP_CHECK_MASK) === 0 && shouldStop?.()) {
          board.fitness = f;
          return steps;
        }
      }
    }
    if (!improved || f === 0) break;
    compactConflicts(board);
  }
  board.fitness = f;
  return steps;
}
