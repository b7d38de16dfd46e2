import type { Genes } from '../../problem/genes.ts';
import { Population } from '../population.ts';
import type { Board } from './board.ts';
import { allocCounts, countDiagonals } from './diagonals.ts';

/**
 * A `Population` whose members also carry their diagonal counts (one `Board` per slot).
 * Whatever writes a member through `copyIn` (a migration replacement policy, say) gets
 * the counts recounted (O(N)); the hybrid's own survival uses `adopt`, which copies a
 * child's counts instead of recounting them.
 */
export class HybridPopulation extends Population {
  readonly boards: Board[];

  constructor(n: number, size: number) {
    super(n, size);
    this.boards = [];
    for (let s = 0; s < size; s++) {
      this.boards.push({ n, genes: this.genes, offset: s * n, up: allocCounts(n), down: allocCounts(n), fitness: 0 });
    }
  }

  /** Overwrites member `slot` and recounts its diagonals (the fitness given is checked by the recount, which wins). */
  override copyIn(slot: number, src: Genes, srcOffset: number, fitness: number): void {
    super.copyIn(slot, src, srcOffset, fitness);
    const b = this.boards[slot];
    b.fitness = countDiagonals(this.genes, b.offset, this.n, b.up, b.down);
    this.fitness[slot] = b.fitness;
  }

  /** Overwrites member `slot` with a board: genes, counts and fitness copied, nothing recounted. */
  adopt(slot: number, child: Board): void {
    super.copyIn(slot, child.genes, child.offset, child.fitness);
    const b = this.boards[slot];
    b.up.set(child.up);
    b.down.set(child.down);
    b.fitness = child.fitness;
  }

  /** Sets member `slot`'s fitness from its board (after an operator changed it in place). */
  syncFitness(slot: number): void {
    this.fitness[slot] = this.boards[slot].fitness;
  }
}
