import type { Genes } from '../problem/genes.ts';
import type { Population } from './population.ts';

/**
 * Histograms for `plusSelection`, one counter per fitness value. Sized for fitness up to
 * 2n - 1 at once (the paper's island, whose children span that range), or grown to the
 * largest fitness met (the hybrid's, whose members are near 0: 16 bytes a column would be
 * 160 MB at N = 10^7).
 */
export class SurvivalScratch {
  parents: Int32Array;
  children: Int32Array;
  constructor(n: number) {
    this.parents = new Int32Array(2 * n);
    this.children = new Int32Array(2 * n);
  }
  /** Makes room for fitness values up to `maxFitness`. */
  reserve(maxFitness: number): void {
    if (maxFitness < this.parents.length) return;
    this.parents = new Int32Array(maxFitness + 1);
    this.children = new Int32Array(maxFitness + 1);
  }
}

/**
 * (μ+λ) survival: of the population and `count` children together, the best
 * `pop.size` survive; at equal fitness a parent beats a child, and among children the
 * earlier one wins. Found by counting (fitness is an integer in 0..2N-2), never by
 * sorting. Accepted children overwrite the worst-ranked slots. Returns how many entered.
 */
export function plusSelection(pop: Population, children: Genes, childFitness: Int32Array, count: number, scratch: SurvivalScratch): number {
  const size = pop.size;
  if (scratch.parents.length < 2 * pop.n) {
    let max = 0;
    for (let s = 0; s < size; s++) max = Math.max(max, pop.fitness[s]);
    for (let c = 0; c < count; c++) max = Math.max(max, childFitness[c]);
    scratch.reserve(max);
  }
  const hp = scratch.parents;
  const hc = scratch.children;
  hp.fill(0);
  hc.fill(0);
  for (let s = 0; s < size; s++) hp[pop.fitness[s]]++;
  for (let c = 0; c < count; c++) hc[childFitness[c]]++;

  // Threshold t: survivors are everything fitter than t plus `need` members at exactly t.
  let below = 0;
  let t = 0;
  while (below + hp[t] + hc[t] < size) {
    below += hp[t] + hc[t];
    t++;
  }
  let childrenAtT = size - below - hp[t];

  const n = pop.n;
  let rank = size - 1;
  for (let c = 0; c < count; c++) {
    const f = childFitness[c];
    if (f < t || (f === t && childrenAtT-- > 0)) {
      pop.copyIn(pop.order[rank--], children, c * n, f);
    }
  }
  const accepted = size - 1 - rank;
  if (accepted > 0) pop.rerank();
  return accepted;
}
