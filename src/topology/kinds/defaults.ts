/**
 * The topology registry's defaults in one place: the kind of a config without
 * `topology.kind`, and each kind's option defaults. The schema applies them, so `--help`,
 * `config schema` (the JSON Schema) and docs/defaults.md (checked by test/defaults-doc.test.ts)
 * say these values.
 */
export const TOPOLOGY_DEFAULTS = {
  kind: 'ring',
  random: { probability: 0.5 },
} as const;
