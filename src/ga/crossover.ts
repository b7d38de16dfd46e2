import type { Genes } from '../problem/genes.ts';

/**
 * Scratch for order-1 crossover: marks which alleles the kept segment holds,
 * stamped with an epoch so nothing is cleared between children.
 */
export class AlleleMarks {
  readonly mark: Uint32Array;
  epoch = 0;
  constructor(n: number) {
    this.mark = new Uint32Array(n);
  }
  next(): number {
    if (this.epoch === 0xffffffff) {
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
  p1: Genes, p1Offset: number,
  p2: Genes, p2Offset: number,
  child: Genes, childOffset: number,
  n: number, lo: number, hi: number,
  marks: AlleleMarks,
): void {
  const epoch = marks.next();
  const mark = marks.mark;
  for (let i = lo; i <= hi; i++) {
    const allele = p1[p1Offset + i];
    mark[allele] = epoch;
    child[childOffset + i] = allele;
  }
  let pos = lo === 0 ? hi + 1 : 0;
  for (let k = 0; pos < n; k++) {
    const allele = p2[p2Offset + k];
    if (mark[allele] !== epoch) {
      child[childOffset + pos] = allele;
      pos++;
      if (pos === lo) pos = hi + 1;
    }
  }
}
