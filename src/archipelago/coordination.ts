/**
 * Coordination: what a run's islands share besides migrants (the stop, the winner's claim,
 * the sync barrier, checkpoint requests, iteration counters). Two sides, two interfaces:
 *
 * - `IslandCoordination` is what an island's loop sees. It is always shared memory in the
 *   island's own process (`SharedMemoryCoordination`): a busy loop checks the stop with one
 *   Atomics.load, and a thread whose islands all wait sleeps in Atomics.wait, never on a network. A host that
 *   runs islands for a coordinator elsewhere relays the message bus into that memory.
 * - `Coordination` is what the archipelago sees: stop the run, ask for checkpoints, read
 *   counters. A launcher hands one out per run (shared memory locally; a bus client for
 *   islands on other hosts), so the archipelago never knows where its islands run.
 */

import type { BudgetLedger } from './budget-ledger.ts';

/** Stop states, as `stopState()` returns them. */
export const RUNNING = 0;
/** An island found fitness 0 and claimed the run (async). */
export const SOLVED = 1;
/** The coordinator stopped the run (stop(), time limit, a failing island). */
export const HALTED = 2;
export type StopState = typeof RUNNING | typeof SOLVED | typeof HALTED;

// Its own module, so that the budget ledger (which this file names) needs nothing from here.
export { NO_CUT } from './no-cut.ts';

/** `reached(i)` of an island that stopped for any reason: it counts as arrived at every later barrier. */
export const DEPARTED = 0x7fffffff;

/** The archipelago's side of a run's coordination. */
export interface Coordination {
  readonly islands: number;
  stopState(): StopState;
  /** Stops every island (idempotent); false if the run was already stopping. */
  halt(): boolean;
  /** Asks every island for a snapshot; returns the request's generation (1, 2, ...). */
  requestCheckpoint(): number;
  /** Island `island`'s completed iterations, as it last published them. */
  iterations(island: number): number;
  /** Every island sees the run's evaluation ledger (one host): a budget stops sync and lagged runs at the ledger's cut (budget-ledger.ts); else at per-island shares. */
  readonly keepsLedger?: boolean;
}

/** An island loop's side. Every call is cheap and non-blocking except `awaitChange` (only a thread's scheduler sleeps, island-thread.ts). */
export interface IslandCoordination {
  readonly islands: number;
  /** The run's evaluation ledger, where every island of the run maps it (budget-ledger.ts); else null or absent. */
  readonly ledger?: BudgetLedger | null;
  stopState(): StopState;
  /** Async: claims the run for `island`; true for exactly one claimer, which also raises the stop. */
  claim(island: number): boolean;
  /**
   * Modes that stop at a cut (modes/sync.ts, modes/lagged.ts): the earliest point of the run's schedule at
   * which some island holds a solution, an epoch (sync) or an iteration (lagged). Lowers, never raises.
   */
  reportCut(at: number): void;
  cut(): number;
  /** The coordinator's latest checkpoint request (a generation number, 0 = none yet). */
  checkpointRequest(): number;
  /** Sync: proposes `epoch` as the barrier at which the pending request is served; the first proposal wins. */
  proposeCheckpointEpoch(epoch: number): void;
  checkpointEpoch(): number;
  setIterations(island: number, iterations: number): void;
  /** Island `island` has sent its migrants of `epoch` and waits at that barrier (0: the start gate). */
  arrive(island: number, epoch: number): void;
  /** Island `island` stopped: nobody waits for it any more. Idempotent. */
  depart(island: number): void;
  /** The last barrier island `island` arrived at (-1 before the start gate, DEPARTED once stopped). */
  reached(island: number): number;
  /** Whether barrier `epoch` is passed: true once every island reached it or departed, false if the run was halted, null while waiting. */
  barrier(epoch: number): boolean | null;
  /** The change counter: read it before checking a condition, then `awaitChange(seq, ...)`. */
  seq(): number;
  /** Waits until the shared state changed since `seq` was read, or `timeoutMs` passed. */
  awaitChange(seq: number, timeoutMs: number): void;
}
