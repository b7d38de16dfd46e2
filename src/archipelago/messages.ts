import type { Genes } from '../problem/genes.ts';
import type { Measures } from './island-counters.ts';
import type { GaModeSampleFields } from '../ga/modes/coordinator-hook.ts';
import type { IslandSnapshot } from './island-snapshot.ts';
import type { MigrantsMessage } from './migrants-message.ts';
import type { Observation } from './observables/sample.ts';
import type { RunSpec } from './island-options.ts';
import type { BudgetPoint } from './budget-gate.ts';

// In a file of its own, which the snapshot's (island-snapshot.ts) also reads: a snapshot keeps the migrants in flight.
export type { MigrantsMessage };

/**
 * Every message between threads, one type each. All go through `codec.ts`; genes and logs
 * travel as typed arrays. Times are `performance.timeOrigin + performance.now()` (ms).
 */

/**
 * What one island runs: everything its worker needs besides ports and shared memory. `run`
 * is the resolved run (island-options.ts) with this island's group's GA and policies in
 * place (`islandRunOf`): the island derives its evolver, its policies, its share of an
 * evaluation budget and its loop bounds from it.
 */
export interface IslandTask {
  type: 'task';
  island: number;
  run: RunSpec;
  progressIntervalMs: number;
  /** In-neighbours, ascending: the order of `inPorts`. */
  sources: number[];
  /** Out-neighbours, ascending: the order of `outPorts`. */
  targets: number[];
  /** Continue from this checkpointed state instead of a new population. */
  snapshot: IslandSnapshot | null;
  /** Answer a checkpoint request only once this iteration is done (ArchipelagoOptions.checkpointAtIteration). */
  checkpointFrom?: number;
  /** With `snapshot`: the migrants in flight to this island at the checkpoint, in sending order (in-flight.ts). */
  arriving?: MigrantsMessage[];
  /** Track lineage (ga/lineage.ts; the run config's `lineage`): absent means on. */
  lineage?: boolean;
  /** URLs of extension modules (`extension.ts`) whose policies the task may name. */
  extensions?: readonly string[];
}

/** An island passed the start gate: it is iterating. */
export interface StartedMessage {
  type: 'started';
  island: number;
  /** When it passed the gate (wall ms). */
  time: number;
}

/** An island's answer to checkpoint request `generation`. */
export interface SnapshotMessage {
  type: 'snapshot';
  generation: number;
  snapshot: IslandSnapshot;
}

/** Migration records, flat: MIGRATION_RECORD ints each (see `MigrationLog`). */
export const MIGRATION_RECORD = 6; // from, to, epoch, iteration, sent, accepted

/** With its GA mode's fields (a mode with a coordinator hook). */
export interface ProgressMessage extends GaModeSampleFields {
  type: 'progress';
  island: number;
  iteration: number;
  evaluations: number;
  bestFitness: number;
  meanFitness: number;
  /** Mean pairwise Hamming distance as a fraction of N, on a fixed sample (diversity.ts). */
  diversity: number;
  migrantsSent: number;
  migrantsAccepted: number;
  time: number;
  migrations: Int32Array;
  /** Immigrant batches checked since the last message, SURVIVAL_RECORD ints each (observables/survival.ts). */
  survivals: Int32Array;
  /** At the iterations of the progress schedule (0, 1, 2, 3, 4, 6, 8, 12, ...): the island's sample for the between-island observables. */
  observation?: Observation;
}

/**
 * The best chromosome an island has reached so far: sent with a progress sample whenever its
 * best fitness changed since the last one, and as its last word before a failure propagates.
 * So the coordinator always holds each island's best, even of an island that can no longer
 * report (its worker crashed, its host or the broker was lost).
 */
export interface BestMessage {
  type: 'best';
  island: number;
  bestFitness: number;
  best: Genes;
}

/** Sent by the island that claimed the stop (async) or by every finder (sync). */
export interface SolutionMessage {
  type: 'solution';
  island: number;
  iteration: number;
  genes: Genes;
  foundAt: number;
}

/**
 * Why an island stopped. 'also-solved' is never sent by an island: the coordinator gives it in
 * the run's result to an island that found a solution too but is not the run's one winner
 * (async: its claim came after the winner's, e.g. on another host within the stop's latency;
 * sync: a later iteration, or a higher id at the same iteration). Only the winner is 'solved'.
 */
export type StopReason = 'solved' | 'also-solved' | 'other-solved' | 'stopped' | 'max-iterations' | 'max-evaluations';

/** An island's last word: the piscina task's return value, with its measures (island-counters.ts). */
export interface IslandReport extends Measures, GaModeSampleFields {
  type: 'report';
  island: number;
  iterations: number;
  evaluations: number;
  /** -1 with `best` null: stopped during start-up before any member of its population was built. */
  bestFitness: number;
  best: Genes | null;
  /** The island's own solution (found by it), or null. */
  solution: Genes | null;
  foundAtIteration: number;
  foundAt: number;
  /** Async: whether this island won the stop flag. */
  claimed: boolean;
  startedAt: number;
  stoppedAt: number;
  stopReason: StopReason;
  migrations: Int32Array;
  survivals: Int32Array;
  /**
   * Sync: `evaluationsAt[j - evaluationsFrom]` is the island's evaluations once iteration j
   * and the migration after it were done, for j from the last barrier it passed up to its
   * last iteration (exclusive; `evaluations` is the count at the end). Async: empty.
   */
  evaluationsFrom: number;
  evaluationsAt: Float64Array;
  /** The island's course: its evaluations through each iteration and its best so far, compactly (course-log.ts). */
  course: Float64Array;
  /** Under a budget with the ledger, an island the budget did not stop: its state at its last iteration within the budget (budget-gate.ts). */
  budgetAt?: BudgetPoint;
}

export type Message =
  IslandTask | MigrantsMessage | ProgressMessage | SolutionMessage | IslandReport | StartedMessage | SnapshotMessage | BestMessage;
/** What an island sends to the coordinator over its control port. */
export type ControlMessage = ProgressMessage | SolutionMessage | StartedMessage | SnapshotMessage | BestMessage;
