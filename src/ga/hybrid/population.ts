import type { Genes } from '../../problem/genes.ts';
import { Population } from '../population.ts';
import type { Board } from './board.ts';
import { newBoard, swapBoardState } from './diagonals.ts';
import { countBoard, OccupancyBits } from './occupancy.ts';
import { release } from './release.ts';

/** Up to this many members `rerank` sorts by insertion (O(μ²), no N-sized array); above, by counting as `Population` does. */
const INSERTION_RANK_MAX = 64;

/**
 * A `Population` whose members also carry their diagonal counts and conflict lists (one
 * `Board` per slot). Whatever writes a member through `copyIn` (a migration replacement
 * policy, say) gets the counts recounted (O(N)) unless the chromosome is the board `stage`
 * named (an immigrant already counted: its state is taken over instead); the hybrid's own
 * survival uses `adopt`, which takes a child's state in O(1).
 */
export class HybridPopulation extends Population {
  readonly boards: Board[];
  /** The occupancy bits its smart starts and counts of whole boards work in. */
  readonly bits: OccupancyBits;
  private staged: Board | null = null;

  constructor(n: number, size: number) {
    super(n, size);
    this.bits = new OccupancyBits(n);
    this.boards = [];
    for (let s = 0; s < size; s++) this.boards.push(newBoard(n, this.genes, s * n));
  }

  /** The next `copyIn` of exactly `board`'s genes takes its counts and list instead of recounting (the board's state is then spent). */
  stage(board: Board | null): void {
    this.staged = board;
  }

  /** Overwrites member `slot` and gives it counts and a list (the fitness given is checked by the recount, which wins). */
  override copyIn(slot: number, src: Genes, srcOffset: number, fitness: number): void {
    super.copyIn(slot, src, srcOffset, fitness);
    const b = this.boards[slot];
    const staged = this.staged;
    if (staged && staged.genes === src && staged.offset === srcOffset) {
      swapBoardState(b, staged);
      this.staged = null;
    } else {
      countBoard(b, this.bits);
    }
    this.fitness[slot] = b.fitness;
  }

  /** Member `slot` becomes `child` (genes copied, counts and list traded in O(1): `child`'s are the old member's after). */
  adopt(slot: number, child: Board): void {
    super.copyIn(slot, child.genes, child.offset, child.fitness);
    swapBoardState(this.boards[slot], child);
  }

  /** Gives its members' genes and counts back (release.ts): for an island that is done; nothing may read them after. */
  release(): void {
    release(this.genes);
    for (const b of this.boards) release(b.counts);
  }

  /** Sets member `slot`'s fitness from its board (after an operator changed it in place). */
  syncFitness(slot: number): void {
    this.fitness[slot] = this.boards[slot].fitness;
  }

  /** The same order as `Population.rerank` (fitness, then slot), by insertion for a small μ: no 2N-sized histogram. */
  override rerank(): void {
    if (this.size > INSERTION_RANK_MAX) return super.rerank();
    const order = this.order;
    const fitness = this.fitness;
    for (let s = 0; s < this.size; s++) {
      const f = fitness[s];
      let r = s;
      while (r > 0 && fitness[order[r - 1]] > f) {
        order[r] = order[r - 1];
        r--;
      }
      order[r] = s;
    }
  }
}
