/**
 * An island thread's scheduling priority below its process's main thread. On a cluster host
 * the main thread is the relay: it carries a run's stop and migrants over the network, and
 * with every core busy with islands it waits for a core unless the islands yield to it
 * (docs/distributed.md, "How it works", has the stop latency either way).
 *
 * Linux only: there a nice value belongs to one thread, so this lowers the calling thread
 * alone. Elsewhere setpriority applies to the whole process (the relay too), so nothing is done.
 */
import os from 'node:os';

/** The highest nice value: the lowest priority. */
export const MAX_NICE = 19;

/** The calling thread's nice value before this module first lowered it. */
let base: number | null = null;

/**
 * Sets the calling thread's nice value to what it was at first plus `increment` (at most
 * MAX_NICE). An unprivileged thread cannot raise its priority again, so a smaller increment
 * later changes nothing; where lowering is not permitted, the thread keeps its priority.
 */
export function lowerThreadPriority(increment: number): void {
  if (process.platform !== 'linux') return;
  base ??= os.getPriority();
  const target = Math.min(MAX_NICE, base + increment);
  try {
    if (os.getPriority() < target) os.setPriority(target);
  } catch {
    // Not permitted here (a sandbox): the islands run at the relay's priority, as with --island-nice 0.
  }
}
