/**
 * The island loop's clocks and shares: wall time comparable across threads, an island's share
 * of an evaluation budget, and the iteration schedule of progress samples.
 */

/** Wall-clock ms comparable across threads. */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Island `island`'s share of an evaluation budget: `budget` split evenly, the first
 * `budget mod islands` islands one more, so the shares add up to the budget exactly. Each
 * island stops at its share whatever the others do, so a run that does not solve has
 * evaluated exactly `budget` chromosomes (unless an island failed).
 */
export function evaluationShare(budget: number, islands: number, island: number): number {
  return Math.floor(budget / islands) + (island < budget % islands ? 1 : 0);
}

/**
 * Progress is sampled by iteration as well as every `progressIntervalMs`: at iterations
 * 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, ... (powers of two and 1.5 times them), so a run of a
 * tenth of a second still draws a curve of several points, while a long run adds only about
 * 2·log2(iterations) samples to the timed ones. The first iteration of that sequence after `i`.
 */
export function nextSampleIteration(i: number): number {
  if (i < 4) return i + 1;
  const power = 2 ** Math.floor(Math.log2(i));
  return i < power * 1.5 ? power * 1.5 : power * 2;
}

/** Whether iteration `i` is one of the progress schedule (0, 1, 2, 3, 4, 6, 8, 12, ...): where islands sample the between-island observables. */
export function isScheduledIteration(i: number): boolean {
  return i <= 4 || nextSampleIteration(i - 1) === i;
}

/** The last iteration of the progress schedule at or before iteration `t` (0 for t < 1). */
export function scheduledAtOrBefore(t: number): number {
  let at = 0;
  for (let next = nextSampleIteration(0); next <= t; next = nextSampleIteration(next)) at = next;
  return at;
}
