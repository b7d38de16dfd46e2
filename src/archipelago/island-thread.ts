/**
 * Many islands on one worker thread. An island's loop (island-runner.ts) and its mode's
 * waiting points (modes/) are generators: where a lone island would block (the start gate,
 * a sync barrier, a lagged island waiting for migrants or for the cut) they yield WAITING
 * instead, and after each iteration they yield STEPPED. A thread's scheduler steps its
 * islands round-robin in ascending island id, one iteration each per turn; when none of them
 * could do anything in a turn it sleeps until the shared state changes. One island per
 * thread is the same scheduler with one island.
 */
import type { IslandCoordination } from './coordination.ts';

/** An island yields this where it would block: nothing can happen until the shared state changes. */
export const WAITING = 0;
/** An island yields this after each iteration: its thread's other islands take their turn. */
export const STEPPED = 1;
export type Turn = typeof WAITING | typeof STEPPED;

/** An island's loop, or a part of it that may wait, returning `T` at its end. */
export type Steps<T> = Generator<Turn, T, void>;

/** What a mode's hook that may wait returns: its value at once, or steps that end with it. */
export type MayWait<T> = T | Steps<T>;

/** Whether a hook's answer is steps to run (answers themselves are never objects: reasons, booleans, null). */
export function isSteps<T>(answer: MayWait<T>): answer is Steps<T> {
  return typeof answer === 'object' && answer !== null;
}

/** A hook's answer, waited for if it is steps (for the loop's rare calls; its per-iteration ones test inline and make nothing). */
export function* answer<T>(hook: MayWait<T>): Steps<T> {
  return isSteps(hook) ? yield* hook : hook;
}

/** How long a thread whose islands all wait sleeps at most before it looks again (a guard; every change wakes it). */
const WAIT_GUARD_MS = 100;

/**
 * Waits until every island reached barrier `epoch` (0: the start gate) or departed; false if
 * the run was halted meanwhile. The scheduler reads the change counter before each turn, so
 * a change between this check and its sleep is never missed.
 */
export function* awaitBarrier(shared: IslandCoordination, epoch: number): Steps<boolean> {
  for (;;) {
    const passed = shared.barrier(epoch);
    if (passed !== null) return passed;
    yield WAITING;
  }
}

/** How one island of a thread ended: its result, or what it threw. */
export type IslandOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Runs `islands` (in the order given, which is ascending island id) to their ends on this
 * thread, round-robin, calling `ended(k, outcome)` as island k ends. An island that throws
 * ends alone; the others go on.
 */
export function runIslandThread<T>(
  islands: readonly Steps<T>[],
  shared: IslandCoordination,
  ended: (k: number, outcome: IslandOutcome<T>) => void,
): void {
  const live = islands.map(() => true);
  let left = islands.length;
  while (left > 0) {
    const seq = shared.seq();
    let moved = false;
    for (let k = 0; k < islands.length; k++) {
      if (!live[k]) continue;
      let outcome: IslandOutcome<T> | null = null;
      try {
        const turn = islands[k].next();
        if (turn.done) outcome = { ok: true, value: turn.value };
        else if (turn.value === STEPPED) moved = true;
      } catch (error) {
        outcome = { ok: false, error };
      }
      if (outcome) {
        live[k] = false;
        left--;
        moved = true;
        ended(k, outcome);
      }
    }
    if (!moved) shared.awaitChange(seq, WAIT_GUARD_MS);
  }
}
