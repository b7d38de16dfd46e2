/** The resolved config written back in the file shape (what `config print` shows and result records hold). */
import { gaFileShape } from './ga-section.ts';
import { islandGroupsFileShape } from './island-groups.ts';
import { migrationPoliciesFileShape } from './migration-policies.ts';
import { REGISTRIES, type Registries } from './registries.ts';
import type { RunConfig } from './run-config.ts';
import type { RunConfigInput } from './schema.ts';
import type { MigrationMode } from '../archipelago/modes/registry.ts';

/**
 * The resolved config written back in the file shape (what `config print` shows). Reading
 * it back gives the same `RunConfig`, so a printed config reproduces a run.
 */
export function toFileShape(config: RunConfig, registries: Registries = REGISTRIES): RunConfigInput {
  return {
    n: config.n,
    seed: config.seed,
    ga: gaFileShape(config.ga, registries.gaModes),
    islands: config.islands,
    topology: { ...config.topology },
    migration: {
      // A name of `registries.migrationModes`: the built-in ones by type, a test's extra ones alike in the file.
      mode: config.migration.mode as MigrationMode,
      lag: config.migration.lag,
      interval: config.migration.interval,
      migrants: config.migration.migrants,
      ...migrationPoliciesFileShape(config.migration, registries),
      rejectDuplicates: config.migration.rejectDuplicates,
    },
    ...(config.islandGroups ? { islandGroups: islandGroupsFileShape(config.islandGroups, registries) } : {}),
    limits: { ...config.limits },
    onIslandError: config.onIslandError,
    ...(config.lineage === false ? { lineage: false } : {}),
    output: { ...config.output },
    ...(config.cluster ? { cluster: { ...config.cluster } } : {}),
    ...(config.threads !== null ? { threads: config.threads } : {}),
  };
}
