/**
 * The one table of migration modes. Adding a mode is one module in this folder (see
 * `define.ts`) and one line here; the config schema (`migration.mode`, its options, its help
 * and the `--migration` flag), the island loop, the archipelago and the report read this list.
 */
import { plugInNamed, registry } from '../../schema/plug-in.ts';
import { asyncMode } from './async.ts';
import { laggedMode } from './lagged.ts';
import type { MigrationModeDefinition, MigrationModeRegistry } from './define.ts';
import { syncMode } from './sync.ts';

export const MIGRATION_MODE_REGISTRY = registry('migration mode', [asyncMode, syncMode, laggedMode] as const);

export type MigrationMode = (typeof MIGRATION_MODE_REGISTRY)[number]['kind'];

/** The definition of mode `kind` in `registry`. @throws one line naming `key` and the known modes if it has none. */
export function migrationModeOf(
  kind: string,
  registry: MigrationModeRegistry = MIGRATION_MODE_REGISTRY,
  key = 'migration.mode',
  error?: (message: string) => Error,
): MigrationModeDefinition {
  return plugInNamed(registry, kind, key, error);
}

/** Whether runs in `mode` repeat bit for bit from their seed (false for a name this version does not know). */
export function isRepeatable(mode: string): boolean {
  return MIGRATION_MODE_REGISTRY.find((m) => m.kind === mode)?.repeatable ?? false;
}
