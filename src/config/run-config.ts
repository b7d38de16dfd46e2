/**
 * The resolved run config: every default filled in (see resolve.ts). Its run part is the
 * archipelago's `RunSpec` (src/archipelago/island-options.ts), the one shape a run has from
 * the resolver down to every island's task; `null` says "no limit" (and "no seed yet").
 */
import type { RunSpec } from '../archipelago/island-options.ts';
import type { TopologySpec } from '../topology/topology.ts';
import type { MigrationPolicies } from './migration-policies.ts';
import type { ParsedRunConfig } from './schema.ts';

type Parsed = ParsedRunConfig;
/** One member per GA mode: the mode and its parameters for the board (all but n). */
export type { GaConfig } from './ga-section.ts';
export type { RunLimits, RunSpec } from '../archipelago/island-options.ts';

/** Who sends migrants to whom: a registered kind with its options resolved. */
export type TopologyConfig = TopologySpec;

export interface MigrationConfig extends MigrationPolicies {
  mode: Parsed['migration']['mode'];
  /** Lagged mode: iterations between a migrant's sending and its entry (ignored by the other modes). */
  lag: number;
  interval: number;
  /** Emigrants per migration, as a count in 1..populationSize. */
  migrants: number;
  rejectDuplicates: boolean;
}

export interface RunConfig extends Omit<RunSpec, 'seed'> {
  /** null: no seed given; the CLI draws one and prints it. */
  seed: number | null;
  migration: MigrationConfig;
  output: Parsed['output'];
  /** Islands on other machines; null = this machine. */
  cluster: Parsed['cluster'];
  /** Worker threads for the islands on this machine; null = one per island up to the cores. Placement only: not in the config hash. */
  threads: number | null;
}
