/**
 * Buffers a hybrid island gives back at once when it is done (docs/large-n.md, "10^9
 * queens"). From RELEASABLE_N on, once the island holds a solution and is about to report
 * it, `release` returns its members' genes and every board's diagonal counts to the system
 * there and then: dropping a reference would wait for a garbage collection, which a large
 * allocation does not start. So the report's copy of the solution costs no memory beyond
 * the search's peak.
 *
 * How: the buffer is transferred in a message posted on a closed port. The transfer
 * detaches it (every view of it reads as empty after) and moves its memory into the message,
 * which a closed port drops at once; measured on Node 20, 5 GB are back before postMessage
 * returns, in a worker as on the main thread (test/release.test.ts). Plain buffers of any
 * size, where a resizable one (shrunk to nothing instead, as 0.12 did) stops at 2^32 bytes
 * in Node 20 and made the search about 15% slower.
 */
export const RELEASABLE_N = 1 << 20;

/** Whether a hybrid board of size n gives its storage back once solved. */
export function releasable(n: number): boolean {
  return n >= RELEASABLE_N;
}

/**
 * Gives `view`'s whole buffer back at once (every view of it has length 0 after). Only the
 * owner of every view of the buffer may call it (a HybridIsland, from RELEASABLE_N: smaller
 * boards' are left to the collector).
 */
export function release(view: ArrayBufferView): void {
  const buffer = view.buffer;
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength === 0) return;
  const { port1 } = new MessageChannel();
  port1.close();
  port1.postMessage(null, [buffer]);
}
