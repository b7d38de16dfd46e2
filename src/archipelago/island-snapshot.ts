import type { IslandState } from '../ga/snapshot.ts';
import type { MigrantsMessage } from './migrants-message.ts';
import type { Observation } from './observables/sample.ts';
import type { BudgetPoint } from './budget-gate.ts';

/**
 * One island's part of a checkpoint: its GA state and the runner's counters, and, so that a
 * resumed repeatable run is the uninterrupted run (docs/cli.md, "Checkpoints"), what else it
 * had counted and the migrants in flight. The parts after `migrantsAccepted` are absent in a
 * snapshot made by hand (a library user's): that island then counts them from the resume on.
 */
export interface IslandSnapshot {
  island: number;
  /** Sync: the epoch barrier it was taken at (the same for every island); async: 0. */
  epoch: number;
  state: IslandState;
  migrantsSent: number;
  migrantsAccepted: number;
  /** The runner's counts and logs (see RunnerState). */
  runner?: RunnerState;
  /** Migrants that had reached this island and that it had not taken in yet, in the order they came. */
  inbox?: MigrantsMessage[];
  /** The migrants it sent once the checkpoint was asked for (they may reach a target after the target's snapshot), in sending order. */
  sent?: MigrantsMessage[];
  /** Its migration mode's own state (lagged: the counters of its last iterations, LagHistory). */
  mode?: { history?: Float64Array; newest?: number };
}

/** What the island loop had counted besides the GA state. */
export interface RunnerState {
  migrantsReceived: number;
  /** The immigrant tracker (observables/survival.ts): its totals, its unchecked batches, flat, and the population's write stamps. */
  immigrantsChecked: number;
  immigrantsSurvived: number;
  batches: Int32Array;
  hashes: Uint32Array;
  written: Int32Array;
  writes: number;
  /** The last iteration it sent an observation of (-1: none), and its observations of its last iterations (island-progress.ts). */
  observed: number;
  observations: { iteration: number; observation: Observation }[];
  /** The course log (course-log.ts): its entries and its running state. */
  course: Float64Array;
  courseState: Float64Array;
  /** Under a budget with the ledger (budget-gate.ts): its state at its last iteration within the budget. */
  budget?: BudgetPoint;
}
