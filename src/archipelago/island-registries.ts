import { GA_MODE_REGISTRY } from '../ga/modes/registry.ts';
import type { IslandRegistries } from './extension.ts';
import { POLICY_REGISTRIES } from '../migration-policy/lookup.ts';
import { MIGRATION_MODE_REGISTRY } from './modes/registry.ts';

/** The built-in registries an island builds its GA mode, migration mode and migration policies from. */
export const ISLAND_REGISTRIES: IslandRegistries = Object.freeze({
  gaModes: GA_MODE_REGISTRY,
  migrationModes: MIGRATION_MODE_REGISTRY,
  ...POLICY_REGISTRIES,
});
