import type { Genes } from '../problem/genes.ts';
import { BuildStopped } from './errors.ts';

/**
 * Genes built between two stop checks of a population's build: a small build (N = 5, 40
 * members) always completes, so a run stopped at once still holds and reports what its
 * first populations found, while a large one stops within milliseconds.
 */
export const BUILD_STOP_GRANULE = 65_536;

/**
 * The `BuildStopped` for a population whose first `built` members (slot s at s * n) are
 * complete: the best of them is copied out, the lowest slot among equals.
 */
export function buildStopped(genes: Genes, fitness: ArrayLike<number>, built: number, n: number, evaluations: number): BuildStopped {
  let best = -1;
  for (let s = 0; s < built; s++) if (best < 0 || fitness[s] < fitness[best]) best = s;
  return new BuildStopped(best < 0 ? null : { genes: genes.slice(best * n, (best + 1) * n), fitness: fitness[best] }, evaluations);
}
