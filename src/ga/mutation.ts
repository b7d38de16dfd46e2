import type { Genes } from '../problem/genes.ts';
import type { Rng } from './rng.ts';
import { uniformOther } from './selection.ts';

/** Swaps the genes at positions i and j: the paper's single mutation. */
export function swapGenes(genes: Genes, offset: number, i: number, j: number): void {
  const t = genes[offset + i];
  genes[offset + i] = genes[offset + j];
  genes[offset + j] = t;
}

/**
 * The paper's mutation step, drawn but not applied: one draw u in [0, 1); u < pDouble
 * gives a double mutation (two single ones in a row), u < pMutation a single one,
 * otherwise none. Each single mutation then draws two distinct positions i, j uniformly.
 * With the paper's 0.8 and 0.4 a child is mutated with probability 0.8 and doubly with 0.4.
 *
 * Writes the swaps' positions into `swaps` as i1, j1, i2, j2 (unused entries untouched)
 * and returns how many swaps to make (0, 1 or 2). The one place these draws are made, in
 * this order: `mutate` applies them in TypeScript, the paper island hands them to the
 * WebAssembly kernel, and so both consume the random stream identically.
 */
export function drawMutation(rng: Rng, n: number, pMutation: number, pDouble: number, swaps: Int32Array): number {
  const u = rng.float();
  if (u >= pMutation && u >= pDouble) return 0;
  swaps[0] = rng.int(n);
  swaps[1] = uniformOther(rng, n, swaps[0]);
  if (u >= pDouble) return 1;
  swaps[2] = rng.int(n);
  swaps[3] = uniformOther(rng, n, swaps[2]);
  return 2;
}

/** Scratch for `mutate`'s draws (the GA core is synchronous: one user at a time per thread). */
const drawn = new Int32Array(4);

/** The paper's mutation step applied in place: `drawMutation`'s swaps, in order. */
export function mutate(genes: Genes, offset: number, n: number, rng: Rng, pMutation: number, pDouble: number): void {
  const count = drawMutation(rng, n, pMutation, pDouble, drawn);
  for (let s = 0; s < count; s++) swapGenes(genes, offset, drawn[2 * s], drawn[2 * s + 1]);
}
