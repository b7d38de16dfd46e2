import type { Genes } from '../problem/genes.ts';
import type { Rng } from './rng.ts';

/** Writes a uniformly random permutation of 0..n-1 at `offset` (Fisher-Yates). */
export function randomPermutation(genes: Genes, offset: number, n: number, rng: Rng): void {
  for (let i = 0; i < n; i++) genes[offset + i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = genes[offset + i];
    genes[offset + i] = genes[offset + j];
    genes[offset + j] = t;
  }
}
