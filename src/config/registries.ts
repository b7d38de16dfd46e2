/**
 * Every registry the run config is built from. The schema, the JSON Schema, the flags and
 * `--help` take them from here; a test (or a library user's extension) passes a copy with more.
 */
import { POLICY_REGISTRIES, type PolicyRegistries } from '../archipelago/policies/lookup.ts';
import type { TopologyRegistry } from '../archipelago/topology.ts';
import { TOPOLOGY_REGISTRY } from '../archipelago/topologies/registry.ts';

export interface Registries extends PolicyRegistries {
  topologies: TopologyRegistry;
}

export const REGISTRIES: Registries = { topologies: TOPOLOGY_REGISTRY, ...POLICY_REGISTRIES };
