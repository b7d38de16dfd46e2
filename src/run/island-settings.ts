/**
 * What a record says of each island's settings when a run's islands differ (config
 * `islandGroups`): its group, its `ga` and its migration settings, in the file shape. A run
 * whose islands all run the same settings records none of this (its record is as before).
 */
import { groupOf, islandRunOf } from '../archipelago/island-options.ts';
import { gaFileShape, type GaInput } from '../config/ga-section.ts';
import { migrationPoliciesFileShape } from '../config/migration-policies.ts';
import { REGISTRIES, type Registries } from '../config/registries.ts';
import type { RunConfig } from '../config/run-config.ts';

/** One island's effective settings, as config keys say them. */
export interface IslandSettings {
  /** The `islandGroups` entry the island is in; null: none (it runs the run's settings). */
  group: string | null;
  ga: GaInput;
  /** Its emigrants per migration and its migration policies. */
  migration: { migrants: number } & Record<string, unknown>;
}

/** Each island's settings, in island order; null when every island runs the same. */
export function islandSettingsOf(config: RunConfig & { seed: number }, registries: Registries = REGISTRIES): IslandSettings[] | null {
  if (!config.islandGroups) return null;
  const settings = Array.from({ length: config.islands }, (_, island): IslandSettings => {
    const { ga, migration } = islandRunOf(config, island);
    const replacement = typeof migration.replacement === 'string' ? { kind: migration.replacement } : migration.replacement;
    return {
      group: groupOf(config, island)?.name ?? null,
      ga: gaFileShape(ga, registries.gaModes),
      migration: {
        migrants: migration.migrants,
        ...migrationPoliciesFileShape({ emigrantSelection: migration.emigrantSelection, replacement }, registries),
      },
    };
  });
  const shown = (s: IslandSettings) => JSON.stringify([s.ga, s.migration]);
  return settings.every((s) => shown(s) === shown(settings[0])) ? null : settings;
}
