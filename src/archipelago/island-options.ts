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
  /** Evaluations of the whole run: the evaluation ledger's bound (budget-gate.ts), or split evenly over the islands (`evaluationShare`) where there is none. */
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
  /**
   * Islands with settings of their own (config `islandGroups`); absent when every island runs
   * `ga` and `migration`'s policies. An island in no group runs those.
   */
  islandGroups?: IslandGroup[];
  /** false: no lineage (each member's island of origin, docs/live-view.md); absent: tracked (a resolved config keeps only false). */
  lineage?: boolean;
}

/** Islands with settings of their own: the GA and the migration policies the islands listed run instead of the run's. */
export interface IslandGroup {
  /** The group's name in the config (`islandGroups.<name>`). */
  name: string;
  /** 0-based island ids, ascending; no island is in two groups. */
  islands: number[];
  ga: GaConfig;
  /** Emigrants per migration from these islands (the config's fraction or percentage is of this group's population). */
  migrants: number;
  emigrantSelection: EmigrantSelectionSpec;
  replacement: ReplacementSpec | ReplacementKind;
}

/** The run spec of a resolved config that holds more (output, cluster): those stay with the caller. */
export function runSpecOf(config: RunSpec): RunSpec {
  const { n, seed, ga, islands, topology, migration, limits, onIslandError, islandGroups } = config;
  return { n, seed, ga, islands, topology, migration, limits, onIslandError, ...(islandGroups ? { islandGroups } : {}) };
}

/** The group that lists `island`, if any (the first, should a hand-made spec list it twice). */
export function groupOf(run: RunSpec, island: number): IslandGroup | undefined {
  return run.islandGroups?.find((group) => group.islands.includes(island));
}

/**
 * What island `island` runs: the run with its group's GA and policies in place of the run's,
 * and no groups. Its task carries this, so the island builds its evolver and policies from
 * `run.ga` and `run.migration` alone, on this machine or another.
 */
export function islandRunOf(run: RunSpec, island: number): RunSpec {
  const { islandGroups: _groups, ...own } = runSpecOf(run);
  const group = groupOf(run, island);
  if (!group) return own;
  const { ga, migrants, emigrantSelection, replacement } = group;
  return { ...own, ga, migration: { ...own.migration, migrants, emigrantSelection, replacement } };
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
