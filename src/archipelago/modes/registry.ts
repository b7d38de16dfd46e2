/**
 * The one table of migration modes. Adding a mode is one module in this folder (see
 * `define.ts`) and one line here; the config schema (`migration.mode`, its help and the
 * `--migration` flag), the island loop, the archipelago and the report read this list.
 */
import { asyncMode } from './async.ts';
import { laggedMode } from './lagged.ts';
import type { MigrationModeDefinition, MigrationModeRegistry } from './define.ts';
import { syncMode } from './sync.ts';

export const MIGRATION_MODE_REGISTRY = [asyncMode, syncMode, laggedMode] as const;

export type MigrationMode = (typeof MIGRATION_MODE_REGISTRY)[number]['kind'];

export const MIGRATION_MODES = MIGRATION_MODE_REGISTRY.map((m) => m.kind) as [MigrationMode, ...MigrationMode[]];

/** The definition of mode `kind` in `registry`. @throws naming the known modes if it has none. */
export function migrationModeOf(kind: string, registry: MigrationModeRegistry = MIGRATION_MODE_REGISTRY): MigrationModeDefinition {
  const found = registry.find((m) => m.kind === kind);
  if (!found)
    throw new Error(`migration.mode: unknown mode ${JSON.stringify(kind)}; expected one of ${registry.map((m) => m.kind).join(', ')}`);
  return found;
}

/** Whether runs in `mode` repeat bit for bit from their seed (false for a name this version does not know). */
export function isRepeatable(mode: string): boolean {
  return MIGRATION_MODE_REGISTRY.find((m) => m.kind === mode)?.repeatable ?? false;
}
