import type { Board } from './board.ts';
import type { HybridPopulation } from './population.ts';

/**
 * (μ+λ) survival for the hybrid, as the paper's survival rule reads: each child in turn
 * replaces the current worst member if it is strictly fitter (ties keep the member), and
 * a child equal to a member is dropped (it would only cost diversity). Done child by child,
 * this keeps exactly the best μ of parents and children, parents first at equal fitness,
 * then earlier children. Members are found by a scan of μ fitness values: μ is small.
 * `skip[c] = 1` marks a child that is a plain copy of its parent. Returns how many entered.
 */
export function plusSelectionDistinct(pop: HybridPopulation, children: readonly Board[], count: number, skip: Uint8Array): number {
  const size = pop.size;
  const fit = pop.fitness;
  let accepted = 0;
  for (let c = 0; c < count; c++) {
    if (skip[c] !== 0) continue;
    const child = children[c];
    // The worst member; at equal fitness the higher slot, as `Population.rerank` ranks it.
    let worst = 0;
    for (let s = 1; s < size; s++) if (fit[s] >= fit[worst]) worst = s;
    if (child.fitness >= fit[worst]) continue;
    if (pop.contains(child.genes, child.offset, child.fitness)) continue;
    pop.adopt(worst, child);
    accepted++;
  }
  if (accepted > 0) pop.rerank();
  return accepted;
}
