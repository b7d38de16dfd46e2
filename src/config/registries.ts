/**
 * Every registry the run config is built from. The schema, the JSON Schema, the flags and
 * `--help` take them from here; a test (or a library user's extension) passes a copy with more.
 */
import type { GaModeRegistry } from '../ga/create-evolver.ts';
import { GA_MODE_REGISTRY } from '../ga/modes/registry.ts';
import { POLICY_REGISTRIES, type PolicyRegistries } from '../migration-policy/lookup.ts';
import type { MigrationModeRegistry } from '../archipelago/modes/define.ts';
import { MIGRATION_MODE_REGISTRY } from '../archipelago/modes/registry.ts';
import type { TopologyRegistry } from '../topology/topology.ts';
import { TOPOLOGY_REGISTRY } from '../topology/kinds/registry.ts';

export interface Registries extends PolicyRegistries {
  gaModes: GaModeRegistry;
  migrationModes: MigrationModeRegistry;
  topologies: TopologyRegistry;
}

export const REGISTRIES: Registries = Object.freeze({
  gaModes: GA_MODE_REGISTRY,
  migrationModes: MIGRATION_MODE_REGISTRY,
  topologies: TOPOLOGY_REGISTRY,
  ...POLICY_REGISTRIES,
});
