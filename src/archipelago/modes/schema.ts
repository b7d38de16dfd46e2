/**
 * The `migration` section's mode options, built from the migration mode registry: each
 * mode's options are `migration` keys with their defaults (a run config carries them whatever
 * the mode, as `MigrationOptions` holds them), and no two modes define one key. The config
 * layer uses them; worker threads never load this module (it loads zod).
 */
import type { z } from 'zod';
import { fields, type Fields } from '../../schema/fields.ts';
import { keyOwners, optionNames, type UnionToIntersection } from '../../schema/registry.ts';
import type { MigrationModeRegistry } from './define.ts';
import type { MIGRATION_MODE_REGISTRY } from './registry.ts';

type OptionsOf<D> = D extends { options(f: Fields): infer S extends z.ZodRawShape } ? S : never;

/** The options of the registered modes, as one shape (lagged's `lag`). */
export type MigrationModeOptionsShape = UnionToIntersection<OptionsOf<(typeof MIGRATION_MODE_REGISTRY)[number]>>;

/** Every mode's options as `migration` keys, with their defaults. @throws when two modes define one key (a programming error). */
export function migrationModeOptionFields(modes: MigrationModeRegistry): Record<string, z.ZodType> {
  keyOwners(
    modes.map((m) => [m.kind, optionNames(m)] as const),
    'migration mode option',
  );
  return Object.assign({}, ...modes.map((m) => m.options(fields))) as Record<string, z.ZodType>;
}
