/** How a run's islands are placed on worker threads: how many threads, and which islands each runs. */
import { availableParallelism } from 'node:os';

/**
 * Worker threads for a run of `islands` islands: `threads` if given (never more than the
 * islands), else one per island up to the machine's `cores`. Islands beyond that share threads.
 * The one place that decides the default: the launcher starts this many, the memory estimate
 * counts this many (src/config/memory.ts).
 */
export function threadsFor(islands: number, threads: number | null = null, cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(islands, threads ?? cores));
}

/**
 * Which islands each of `threads` threads runs: contiguous blocks of `count` indices (thread t
 * the t-th block; the first `count % threads` blocks hold one more), each in ascending order.
 */
export function threadBlocks(count: number, threads: number): number[][] {
  const base = Math.floor(count / threads);
  const extra = count % threads;
  const blocks: number[][] = [];
  for (let t = 0, at = 0; t < threads; t++) {
    const size = base + (t < extra ? 1 : 0);
    blocks.push(Array.from({ length: size }, (_, i) => at + i));
    at += size;
  }
  return blocks;
}
