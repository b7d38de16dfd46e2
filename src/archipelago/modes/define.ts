/**
 * The migration-mode family of plug-ins (src/schema/plug-in.ts, the one contract): how the
 * islands of a run time their exchanges. The one module per mode in this folder exports a
 * `defineMigrationMode({...})`, and `registry.ts` lists it on one line; its implementation is
 * `create` and its coordinator rules (docs/ARCHITECTURE.md, "How to add a plug-in"). The island loop
 * (island-runner.ts) asks a mode's island side when to send and take in migrants and what
 * counts at a stop; the archipelago asks its coordinator side for the winner rule and the
 * checkpoint policy. No code outside this folder names a mode.
 */
import type { z } from 'zod';
import type { Evolver } from '../../ga/evolver.ts';
import type { PlugIn, Registry } from '../../schema/plug-in.ts';
import type { IslandCoordination } from '../coordination.ts';
import type { IslandCounters, Measures } from '../island-counters.ts';
import type { MigrationOptions } from '../island-options.ts';
import type { MigrantsMessage, StopReason } from '../messages.ts';
import type { IslandTransport } from '../island-transport.ts';
import type { MayWait } from '../island-thread.ts';
import type { IslandSnapshot } from '../island-snapshot.ts';

export type { IslandCounters } from '../island-counters.ts';

/** What the island loop offers a mode: its island's state, its measures (island-counters.ts) and the moves of a migration. */
export interface IslandLoop extends Readonly<Measures> {
  readonly id: number;
  readonly migration: MigrationOptions;
  /** Migration is on: migrants > 0 and an interval. */
  readonly migrating: boolean;
  readonly evolver: Evolver;
  readonly shared: IslandCoordination;
  readonly transport: IslandTransport;
  /** The snapshot this island continues (null: a new run), and the migrants that were in flight to it then (in sending order). */
  readonly resumed: IslandSnapshot | null;
  readonly arriving: readonly MigrantsMessage[];
  /** Sends this iteration's emigrants along every out-edge, numbered `epoch` (0 where a mode has no epochs). */
  sendEmigrants(epoch: number): void;
  /** Takes one message's migrants in (replacement policy, counters, migration log, survival tracking). */
  immigrate(message: MigrantsMessage): void;
  /** The island holds a solution now (`claimed`: it won the run's claim); returns 'solved'. */
  found(claimed: boolean): StopReason;
  /** A checkpoint request waits for this island's snapshot. */
  checkpointPending(): boolean;
  /** Answers the pending checkpoint request with the island's state, taken at `epoch`. */
  snapshot(epoch: number): void;
}

/**
 * One island's side of a mode, made per island (`create`). The loop calls, per iteration:
 * `beforeStep`, the step, `stepped` if it completed an iteration, then `solved` if it found a
 * solution, else `migrate`. Any of them may stop the island with a reason. Those that may
 * wait return their answer at once or as steps (a generator, island-thread.ts) that yield
 * WAITING where a lone island would block, so the other islands of its thread go on: a
 * hook never blocks.
 */
export interface IslandMode {
  /** Checkpoint requests are answered by the loop between any two iterations (else by the mode, at its barriers). */
  readonly anytimeCheckpoints: boolean;
  /** The mode's part of the island's snapshot: the migrants it has not taken in, and its own state. */
  save?(): Pick<IslandSnapshot, 'inbox' | 'mode'>;
  /** After the start gate, before the first iteration. */
  start?(): void;
  /** Before each step, after the limit checks: false sends the loop back to its head (the run was halted). */
  beforeStep?(): MayWait<boolean>;
  /** After a step that completed an iteration, solved or not. */
  stepped?(): void;
  /** The island's own step found a solution. */
  solved(): MayWait<StopReason>;
  /** After an iteration without a solution: its migration, if one is due; a reason stops the island. */
  migrate(): MayWait<StopReason | null>;
  /** The island reached its iteration or evaluation limit (`reason`); what it stops with. */
  limit?(reason: StopReason): MayWait<StopReason>;
  /** What the report counts when not the island's state at its end (lagged: its state at the run's cut). */
  counted?(): IslandCounters | null;
  /**
   * The island's evaluations once each iteration from `from` on and its migration were done
   * (IslandReport.evaluationsAt), for a coordinator that counts through the winning iteration.
   */
  evaluationsAt?(): { from: number; at: Float64Array };
}

/** The archipelago's side of a mode. */
export interface CoordinatorRules {
  /**
   * Who the run's one winner is. 'claim': the island that claimed the run first (its claim
   * stops every island at once). 'first-finder': of the islands holding a solution at the
   * end, the one with the smallest (iteration, island), read from the reports.
   */
  readonly winner: 'claim' | 'first-finder';
  /**
   * 'barrier': islands take checkpoints at one epoch barrier, which the checkpoint and each
   * snapshot name (survival records carry epochs too). 'anytime': each island between any
   * two of its iterations (the checkpoint's epoch is null, each snapshot's 0).
   */
  readonly checkpoints: 'barrier' | 'anytime';
  /** Migration events carry the epoch their sender gave them (its iteration / interval); else null. */
  readonly numbersMigrations: boolean;
  /** A solved run counts each island's evaluations through the winning iteration, and what it did after apart (`IslandMode.evaluationsAt`). */
  readonly countsThroughWinner: boolean;
}

/**
 * A migration mode: `kind` is the name `migration.mode` and `--migration` give. Its options are
 * keys of `migration` only it reads (lagged: `lag`), unique across modes; a run config carries
 * them with their defaults whatever the mode (they are in `MigrationOptions`), and a flag that
 * sets one with another mode is refused.
 */
export interface MigrationModeDefinition<K extends string = string, S extends z.ZodRawShape = z.ZodRawShape> extends PlugIn<K, S> {
  /** A run is a function of its seed and config alone, whatever the threads' speeds. */
  readonly repeatable: boolean;
  /** Another island's claim stops an island at once (else only the coordinator's halt does, and the mode stops it at a cut). */
  readonly stopsOnClaim: boolean;
  /** Islands wait for migrants: a host that relays migrants from other hosts wakes its islands when some arrive. */
  readonly waitsForMigrants: boolean;
  readonly coordinator: CoordinatorRules;
  /** This mode's part of island `loop.id`'s loop. */
  create(loop: IslandLoop): IslandMode;
}

export type MigrationModeRegistry = Registry<MigrationModeDefinition>;

/** Types a definition (its kind stays a literal, for the config's `MigrationMode`; its options' types flow to the config). */
export function defineMigrationMode<K extends string, S extends z.ZodRawShape>(
  definition: MigrationModeDefinition<K, S>,
): MigrationModeDefinition<K, S> {
  return definition;
}
