/**
 * The resolved run as the archipelago and each island take it (`RunSpec`): the same object
 * the config layer resolves (a `SeededRunConfig`, src/config/run-config.ts, is one), from the
 * resolver down to every island's task (messages.ts). Nothing on the way reshapes it.
 */
import type { GaConfig } from '../ga/create-evolver.ts';
import type { TopologySpec } from '../topology/topology.ts';
import type { EmigrantSelectionSpec, ReplacementKind, ReplacementSpec } from '../migration-policy/lookup.ts';

/**
 * How long a run may go. `null` is the one way to say "no limit", in the config, in
 * `ArchipelagoOptions`, in every island task and on the bus; only the island loop turns it
 * into a bound it compares with (`Infinity`, island-runner.ts).
 */
export interface RunLimits {
  /** Iterations per island. */
  maxIterations: number | null;
  /** Evaluations of the whole run, split evenly over the islands (`evaluationShare`). */
  maxEvaluations: number | null;
  /** Wall-clock seconds. */
  timeLimit: number | null;
}

/** What a run does when an island's worker throws or exits: go on without it, or stop and fail. */
export type OnIslandError = 'continue' | 'fail';

/** A resolved run with its seed decided: what its islands do. */
export interface RunSpec {
  /** Board size N. */
  n: number;
  seed: number;
  ga: GaConfig;
  islands: number;
  /** Who sends migrants to whom: a registered kind with its options resolved. */
  topology: TopologySpec;
  migration: MigrationOptions;
  limits: RunLimits;
  onIslandError: OnIslandError;
}

/** The run spec of a resolved config that holds more (output, cluster): those stay with the caller. */
export function runSpecOf(config: RunSpec): RunSpec {
  const { n, seed, ga, islands, topology, migration, limits, onIslandError } = config;
  return { n, seed, ga, islands, topology, migration, limits, onIslandError };
}

export interface MigrationOptions {
  /** A registered migration mode's kind (modes/registry.ts): how islands time their exchanges. */
  mode: string;
  /** Lagged: migrants sent at iteration t enter at the receiver's iteration t + lag. */
  lag: number;
  /** Iterations between migrations (an epoch, in sync mode). */
  interval: number;
  /** Emigrants per migration (a count; the config layer resolves fractions). 0 turns migration off. */
  migrants: number;
  emigrantSelection: EmigrantSelectionSpec;
  /** A spec, or for a replacement without options its name. */
  replacement: ReplacementSpec | ReplacementKind;
  /** Drop immigrants equal to a current member. */
  rejectDuplicates: boolean;
}
