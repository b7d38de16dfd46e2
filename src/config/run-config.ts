/** The resolved run config: every default filled in, no nulls where a default exists (see resolve.ts). */
import type { TopologySpec } from '../archipelago/topology.ts';
import type { HybridParams } from '../ga/hybrid/params.ts';
import type { MigrationPolicies } from './migration-policies.ts';
import type { ParsedRunConfig } from './schema.ts';

type Parsed = ParsedRunConfig;
type PaperGaParsed = Extract<Parsed['ga'], { mode: 'paper' }>;
export type PaperGaConfig = Omit<PaperGaParsed, 'pairsPerIteration' | 'badRepositorySize'> & {
  pairsPerIteration: number;
  badRepositorySize: number;
};
/** The hybrid GA with every default filled in for the board: `HybridParams` without n. */
export type HybridGaConfig = { mode: 'hybrid' } & Omit<HybridParams, 'n'>;
/** One member per GA mode. */
export type GaConfig = PaperGaConfig | HybridGaConfig;

/** Who sends migrants to whom: a registered kind with its options resolved. */
export type TopologyConfig = TopologySpec;

export interface MigrationConfig extends MigrationPolicies {
  mode: Parsed['migration']['mode'];
  interval: number;
  /** Emigrants per migration, as a count in 1..populationSize. */
  migrants: number;
  rejectDuplicates: boolean;
}

export interface RunConfig {
  n: number;
  /** null: no seed given; the CLI draws one and prints it. */
  seed: number | null;
  ga: GaConfig;
  islands: number;
  topology: TopologyConfig;
  migration: MigrationConfig;
  /** null = no limit. */
  limits: Parsed['limits'];
  onIslandError: Parsed['onIslandError'];
  output: Parsed['output'];
  /** Islands on other machines; null = this machine. */
  cluster: Parsed['cluster'];
}

