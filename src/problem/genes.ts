/**
 * Chromosome storage. Gene i is the 0-based row of the queen in column i.
 * Populations keep many chromosomes back to back in one flat array, so every
 * operator takes an (array, offset) pair instead of a per-chromosome view.
 */
export type Genes = Uint16Array | Int32Array;

/** Largest N whose rows (0..N-1) all fit a Uint16Array, as the issue fixes it. */
export const MAX_UINT16_N = 65_535;

/** Largest N whose rows all fit an Int32Array (0..2^31 - 1): a larger board is refused, not wrapped into negative rows. */
export const MAX_N = 2 ** 31;

/** Allocates room for `count` chromosomes of length `n`, in the narrowest type that holds 0..n-1. */
export function allocGenes(n: number, count = 1): Genes {
  return n <= MAX_UINT16_N ? new Uint16Array(n * count) : new Int32Array(n * count);
}

/** Bytes per gene for a board of size n (used by memory estimates). */
export function bytesPerGene(n: number): number {
  return n <= MAX_UINT16_N ? 2 : 4;
}

/** Converts n 0-based genes at `offset` to a 1-based array for people and files. */
export function toOneBased(genes: ArrayLike<number>, offset = 0, n = genes.length - offset): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = genes[offset + i] + 1;
  return out;
}

/**
 * From this N on a run's rows are kept as a `RowArray` (4 bytes a queen) instead of a
 * number[]: an array of 10^8 numbers takes 800 MB and over 4 s to build, and past about
 * 1.3·10^8 elements a JavaScript array cannot be built at all (docs/large-n.md).
 */
export const TYPED_ROWS_N = 1 << 20;

/** 1-based rows in a typed array; `JSON.stringify` writes them as a plain array of numbers. */
export class RowArray extends Uint32Array {
  toJSON(): number[] {
    return Array.from(this);
  }
}

/** A 1-based tuple as the tool carries a result: a plain array, or typed rows from `TYPED_ROWS_N` on. */
export type Rows = readonly number[] | RowArray;

/** Converts n 0-based genes at `offset` to 1-based rows: `toOneBased`'s numbers below `TYPED_ROWS_N`, a `RowArray` from it on. */
export function toRows(genes: ArrayLike<number>, offset = 0, n = genes.length - offset): Rows {
  if (n < TYPED_ROWS_N) return toOneBased(genes, offset, n);
  const out = new RowArray(n);
  for (let i = 0; i < n; i++) out[i] = genes[offset + i] + 1;
  return out;
}

/**
 * `toRows` for genes nobody else reads (a decoded message's): from `TYPED_ROWS_N` the rows are
 * made in place, the same memory read as a `RowArray`, where `toRows` would copy N numbers
 * (4 bytes a queen: 4 GB at 10^9). `backToGenes` undoes it.
 */
export function toRowsInPlace(genes: Genes): Rows {
  if (genes.length < TYPED_ROWS_N || !(genes instanceof Int32Array)) return toRows(genes);
  for (let i = 0; i < genes.length; i++) genes[i] += 1;
  return new RowArray(genes.buffer as ArrayBuffer, genes.byteOffset, genes.length);
}

/** Undoes `toRowsInPlace` on rows it made from `genes` (a refused solution's genes stay as they came). */
export function backToGenes(genes: Genes, rows: Rows): void {
  if (!(rows instanceof RowArray) || rows.buffer !== genes.buffer) return;
  for (let i = 0; i < genes.length; i++) genes[i] -= 1;
}

/** Converts a 1-based tuple to 0-based genes (no validation: callers check first). */
export function fromOneBased(tuple: ArrayLike<number>): Genes {
  const genes = allocGenes(tuple.length);
  for (let i = 0; i < tuple.length; i++) genes[i] = tuple[i] - 1;
  return genes;
}

/**
 * Copies n genes between flat arrays. Short chromosomes are copied by a loop (no view
 * objects in hot paths); long ones by `set`, whose one small view is dwarfed by the copy.
 */
export function copyGenes(src: Genes, srcOffset: number, dst: Genes, dstOffset: number, n: number): void {
  if (n > 256) {
    dst.set(src.subarray(srcOffset, srcOffset + n), dstOffset);
    return;
  }
  for (let i = 0; i < n; i++) dst[dstOffset + i] = src[srcOffset + i];
}
