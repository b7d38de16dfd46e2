/**
 * The migration mode registry's option defaults in one place (the mode of a config that names
 * none is chosen by board size, src/config/defaults.ts). The schema applies them, so `--help`,
 * `config schema` (the JSON Schema) and docs/defaults.md (checked by test/defaults-doc.test.ts)
 * say these values.
 */
export const MIGRATION_MODE_DEFAULTS = {
  lagged: { lag: 2 },
} as const;
