import { measuresOf, type Measures } from './island-counters.ts';
import { GA_MODE_ISLAND_KEYS, type GaModeIslandFields, type GaModeRunFields } from '../ga/modes/coordinator-hook.ts';
import type { IslandSnapshot } from './island-snapshot.ts';
import type { ProgressMessage, StopReason } from './messages.ts';
import type { BetweenPoint, BetweenSample } from './observables/between.ts';
import type { Trajectory } from './trajectory.ts';
import type { Rows } from '../problem/genes.ts';
import type { SurvivalRecord } from './observables/survival.ts';

/** The archipelago's one event stream: what the CLI display, result files and tests subscribe to. */
export type ArchipelagoEvent =
  | StartedEvent
  | ProgressEvent
  | MigrationEvent
  | BetweenEvent
  | SurvivalEvent
  | SolutionEvent
  | IslandErrorEvent
  | CheckpointEvent
  | DoneEvent;

/** Every island has been built and is iterating (emitted once). */
export interface StartedEvent {
  type: 'started';
  islands: number;
  /** Start-up: seconds from the launch to the moment every island iterates (workers, populations). */
  seconds: number;
}

/** A complete set of island snapshots (see `checkpointEveryMs`); the caller writes it somewhere. */
export interface CheckpointEvent {
  type: 'checkpoint';
  mode: string;
  /** Modes that checkpoint at a barrier (sync): the epoch every snapshot was taken at; otherwise null. */
  epoch: number | null;
  islands: IslandSnapshot[];
  /** The between-island points every island had observed by its snapshot (what a resumed run's `between` starts from). */
  between: BetweenPoint[];
  seconds: number;
}

/** An island's statistics, sampled at its start, at iterations 1, 2, 3, 4, 6, 8, 12, ..., every `progressIntervalMs` and at its end, timed from the run's start. */
export type ProgressEvent = Omit<ProgressMessage, 'time' | 'migrations' | 'survivals' | 'observation'> & {
  /** Seconds of search (since every island iterates). */
  seconds: number;
};

/** One migrants message taken in by `to`. */
export interface MigrationEvent {
  type: 'migration';
  from: number;
  to: number;
  /** Sync barrier number (lagged: the sending iteration / interval), or null in async mode. */
  epoch: number | null;
  /** The sender's completed iterations when it sent. */
  iteration: number;
  sent: number;
  accepted: number;
}

/**
 * The between-island observables at one iteration of the progress schedule, once every
 * island has sampled it (observables/between.ts): distance per pair, distinct genotypes.
 */
export type BetweenEvent = { type: 'between' } & BetweenSample & {
    /** Seconds of search when the last island's sample arrived. */
    seconds: number;
    /** The final state of islands that stopped at different iterations (BetweenTracker.final): `iteration` is the latest. */
    final?: true;
  };

/** One batch of immigrants checked k iterations after it was taken in (observables/survival.ts). */
export type SurvivalEvent = { type: 'survival' } & Omit<SurvivalRecord, 'epoch'> & {
    /** Sync barrier number, or null in async mode. */
    epoch: number | null;
    /** k: the iterations after which survival was checked. */
    after: number;
  };

/** The run's one solution, re-validated (1-based tuple). */
export interface SolutionEvent {
  type: 'solution';
  island: number;
  /** The finder's completed iterations when it found the solution. */
  iteration: number;
  solution: Rows;
  seconds: number;
}

/** An island's worker threw or exited (or reported a solution that failed validation). */
export interface IslandErrorEvent {
  type: 'island-error';
  island: number;
  /** The island's last completed iteration. */
  iteration: number;
  message: string;
  /** With `onIslandError: 'fail'` the run stops because of it. */
  fatal: boolean;
}

export interface DoneEvent {
  type: 'done';
  result: ArchipelagoResult;
}

/**
 * What a result records of each island (also each line of an experiment's runs.jsonl), with
 * its measures (island-counters.ts): a record of an older version may lack any but the two
 * counted since the first. With its GA mode's fields (a mode with a coordinator hook,
 * ga/modes/coordinator-hook.ts).
 */
export interface IslandSummary extends Partial<Measures>, GaModeIslandFields {
  id: number;
  iterations: number;
  /** Sync, solved: to the winning iteration (see ArchipelagoResult.evaluations); else all it did. */
  evaluations: number;
  /** Sync, solved: what it evaluated after the winning iteration (running on to the barrier); null otherwise. */
  evaluationsAfterSolution: number | null;
  bestFitness: number;
  migrantsSent: number;
  migrantsAccepted: number;
}

export function islandSummary(i: IslandSummary): IslandSummary {
  return {
    id: i.id,
    iterations: i.iterations,
    evaluations: i.evaluations,
    evaluationsAfterSolution: i.evaluationsAfterSolution,
    bestFitness: i.bestFitness,
    ...measuresOf(i),
    ...modeFieldsOf(i),
  };
}

/** The GA mode's fields an island's summary has. */
function modeFieldsOf(i: IslandSummary): GaModeIslandFields {
  const fields: GaModeIslandFields = {};
  for (const key of GA_MODE_ISLAND_KEYS) if (i[key] !== undefined) fields[key] = i[key];
  return fields;
}

export interface IslandResult extends IslandSummary {
  /** Seconds the island's loop ran (building its population included). */
  seconds: number;
  /** Why it stopped; null if its worker failed. */
  stopReason: StopReason | null;
  error?: { message: string; iteration: number };
}

/** With its GA mode's fields (a mode with a coordinator hook, ga/modes/coordinator-hook.ts). */
export interface ArchipelagoResult extends GaModeRunFields {
  solved: boolean;
  /** 1-based solution, validated; null if none. */
  solution: Rows | null;
  /** Best fitness found (0 when solved). */
  fitness: number;
  /** 1-based best chromosome of the run (the solution when solved). */
  best: Rows | null;
  foundBy: number | null;
  foundAtIteration: number | null;
  /** Seconds of search until the winner found the solution. */
  foundAtSeconds?: number | null;
  /** Search time: wall seconds from the moment every island iterates to the last island's end. */
  seconds: number;
  /** Start-up: wall seconds from the launch to the moment every island iterates (worker boot on a cold host, populations). */
  startupSeconds: number;
  /** Latest island stop − the moment the stop was claimed (solution or coordinator), in ms; null if nobody was told to stop. */
  stopLatencyMs: number | null;
  /**
   * Evaluations over all islands. Sync, solved: every island's evaluations up to and including
   * the winning iteration (and the migration after it), so the count does not depend on how far
   * the islands ran on to the barrier. Async and unsolved: everything every island evaluated
   * until it stopped.
   */
  evaluations: number;
  /** Sync, solved: what the islands evaluated after the winning iteration, running on to the barrier (not in `evaluations`); null otherwise. */
  evaluationsAfterSolution: number | null;
  islands: IslandResult[];
  /** Number of directed topology edges. */
  edges: number;
  /**
   * The worker threads of this process the islands shared (placement: no part of the run);
   * null when they ran on other hosts, 0 for a board answered without a run.
   */
  threads: number | null;
  /** The between-island observables at each iteration every island sampled (docs/events.md). */
  between?: BetweenPoint[];
  /**
   * Best fitness by evaluations where it improved, from the islands' course logs
   * (trajectory.ts); its last point is the run's evaluations and fitness. Absent for a run
   * no island ran (a board answered without a search).
   */
  trajectory?: Trajectory;
}
