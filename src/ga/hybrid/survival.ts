import type { Board } from './board.ts';
import type { HybridPopulation } from './population.ts';

/**
 * Survival of one child, as soon as it is bred (steady state): it replaces the current
 * worst member if strictly fitter (ties keep the member), unless it is equal to a member
 * (it would only cost diversity). Bred one after another, λ children a generation keep the
 * best μ of members and children as the paper's (μ+λ) rule does, except that a child may
 * already be the parent of the next one. Members are found by a scan of μ fitness values
 * (μ is small); equality is checked gene by gene only against members of equal fitness.
 * `changed` false marks a plain copy of its parent. Returns whether the child entered.
 */
export function enterIfFitter(pop: HybridPopulation, child: Board, changed: boolean): boolean {
  if (!changed) return false;
  const fit = pop.fitness;
  // The worst member; at equal fitness the higher slot, as `Population.rerank` ranks it.
  let worst = 0;
  for (let s = 1; s < pop.size; s++) if (fit[s] >= fit[worst]) worst = s;
  if (child.fitness >= fit[worst]) return false;
  if (pop.contains(child.genes, child.offset, child.fitness)) return false;
  pop.adopt(worst, child);
  pop.rerank();
  return true;
}
