import type { Genes } from '../problem/genes.ts';

/**
 * Scratch for order-1 crossover: marks which alleles the kept segment holds,
 * stamped with an epoch so nothing is cleared between children.
 */
export class AlleleMarks {
  readonly mark: Int32Array;
  epoch = 0;
  /** `order1Crossover` over this instance's marks: a closure for the reason given at `DiagonalMarks.count`. */
  readonly cross: (
    p1: Genes,
    p1Offset: number,
    p2: Genes,
    p2Offset: number,
    child: Genes,
    childOffset: number,
    n: number,
    lo: number,
    hi: number,
  ) => void;

  constructor(n: number) {
    const mark = new Int32Array(n);
    this.mark = mark;
    /** Fills child[from..to) with parent 2's unmarked alleles from `k` on; returns where it stopped in parent 2. */
    const fill = (p2: Genes, k: number, child: Genes, from: number, to: number, epoch: number): number => {
      let pos = from;
      while (pos < to) {
        const allele = p2[k++];
        child[pos] = allele;
        const seen = mark[allele] ^ epoch;
        pos += (seen | -seen) >>> 31;
      }
      return k;
    };
    this.cross = (p1, p1Offset, p2, p2Offset, child, childOffset, n, lo, hi) => {
      const epoch = this.next();
      for (let i = lo; i <= hi; i++) {
        const allele = p1[p1Offset + i];
        mark[allele] = epoch;
        child[childOffset + i] = allele;
      }
      // Every allele of parent 2 is written at the next free position, which advances only
      // when the allele is not in the segment. Branch-free on purpose: on random parents a
      // branch here is mispredicted half the time and costs more than the extra stores.
      const next = fill(p2, p2Offset, child, childOffset, childOffset + lo, epoch);
      fill(p2, next, child, childOffset + hi + 1, childOffset + n, epoch);
    };
  }

  next(): number {
    if (this.epoch === 0x7fffffff) {
      this.mark.fill(0);
      this.epoch = 0;
    }
    return ++this.epoch;
  }
}

/**
 * The paper's order-1 crossover: genes lo..hi (0-based, inclusive) are copied from
 * parent 1 at the same positions; the other positions are filled from the left, in the
 * order the remaining alleles appear in parent 2. (Davis's textbook OX1 starts after the
 * second cut and wraps; the paper does not.)
 */
export function order1Crossover(
  p1: Genes,
  p1Offset: number,
  p2: Genes,
  p2Offset: number,
  child: Genes,
  childOffset: number,
  n: number,
  lo: number,
  hi: number,
  marks: AlleleMarks,
): void {
  marks.cross(p1, p1Offset, p2, p2Offset, child, childOffset, n, lo, hi);
}
