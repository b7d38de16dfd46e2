import type { Genes } from '../../problem/genes.ts';

/**
 * One chromosome as the hybrid operators see it: its genes (n at `offset` in a flat
 * array, as populations store them), its two diagonal count arrays and its fitness,
 * which the operators keep equal to the paper's fitness as they swap queens.
 * Boards are created once per population slot and per child slot, never per child.
 */
export interface Board {
  readonly n: number;
  readonly genes: Genes;
  readonly offset: number;
  readonly up: Int32Array;
  readonly down: Int32Array;
  fitness: number;
}
