/**
 * Buffers a hybrid island gives back at once when it is done (docs/large-n.md, "10^9
 * queens"). From RELEASABLE_N on, its members' genes and every board's diagonal counts live
 * in resizable ArrayBuffers: once the island holds a solution and is about to report it,
 * `release` shrinks them to nothing, which returns their pages to the system there and then
 * (dropping a reference waits for a garbage collection, which a large allocation does not
 * start). So the report's copy of the solution costs no memory beyond the search's peak.
 */
import { MAX_UINT16_N } from '../../problem/genes.ts';

export const RELEASABLE_N = 1 << 20;

/** The largest resizable ArrayBuffer Node 20's V8 makes (`maxByteLength` past 2^32 is a RangeError); larger storage is plain. */
export const MAX_RELEASABLE_BYTES = 2 ** 32;

/** Whether `bytes` of storage for a board of size n is releasable. */
export function releasable(n: number, bytes: number): boolean {
  return n >= RELEASABLE_N && bytes <= MAX_RELEASABLE_BYTES;
}

/** What `ArrayBuffer` offers from ES2024 (Node 20 has it; this project's lib is ES2022). */
interface Resizable {
  readonly resizable?: boolean;
  resize?(bytes: number): void;
}
type ResizableConstructor = new (bytes: number, options: { maxByteLength: number }) => ArrayBuffer;

/** `bytes` of storage for a board of size n: releasable from RELEASABLE_N on, up to MAX_RELEASABLE_BYTES. */
function storage(n: number, bytes: number): ArrayBuffer {
  return releasable(n, bytes) ? new (ArrayBuffer as ResizableConstructor)(bytes, { maxByteLength: bytes }) : new ArrayBuffer(bytes);
}

/** Diagonal counts of a board of size n (2n - 1 bytes). */
export function releasableCounts(n: number): Uint8Array {
  return new Uint8Array(storage(n, 2 * n - 1), 0, 2 * n - 1);
}

/** Genes of `count` members of size n from RELEASABLE_N on, else undefined (the population allocates its own). */
export function releasableGenes(n: number, count: number): Int32Array | undefined {
  if (n <= MAX_UINT16_N || !releasable(n, 4 * n * count)) return undefined;
  return new Int32Array(storage(n, 4 * n * count), 0, n * count);
}

/** Gives a releasable view's memory back (its length is 0 after); other views are left as they are. */
export function release(view: ArrayBufferView): void {
  const buffer = view.buffer as ArrayBuffer & Resizable;
  if (buffer.resizable === true) buffer.resize!(0);
}
