import type { Genes } from '../problem/genes.ts';
import type { Rng } from './rng.ts';
import { uniformOther } from './selection.ts';

/** Swaps the genes at positions i and j: the paper's single mutation. */
export function swapGenes(genes: Genes, offset: number, i: number, j: number): void {
  const t = genes[offset + i];
  genes[offset + i] = genes[offset + j];
  genes[offset + j] = t;
}

/** One single mutation: swap two distinct positions drawn uniformly. */
export function randomSwap(genes: Genes, offset: number, n: number, rng: Rng): void {
  const i = rng.int(n);
  swapGenes(genes, offset, i, uniformOther(rng, n, i));
}

/**
 * The paper's mutation step. One draw u in [0, 1): u < pDouble gives a double mutation
 * (two single ones in a row), u < pMutation a single one, otherwise none. With the
 * paper's 0.8 and 0.4 a child is mutated with probability 0.8 and doubly with 0.4.
 */
export function mutate(genes: Genes, offset: number, n: number, rng: Rng, pMutation: number, pDouble: number): void {
  const u = rng.float();
  if (u >= pMutation && u >= pDouble) return;
  randomSwap(genes, offset, n, rng);
  if (u < pDouble) randomSwap(genes, offset, n, rng);
}
