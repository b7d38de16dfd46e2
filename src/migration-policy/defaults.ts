/**
 * The migration policy registries' defaults in one place: the emigrant selection and the
 * replacement of a config that names none, and each policy's option defaults. The schema
 * applies them, so `--help`, `config schema` (the JSON Schema) and docs/defaults.md (checked
 * by test/defaults-doc.test.ts) say these values.
 */
export const POLICY_DEFAULTS = {
  emigrantSelection: 'best',
  replacement: 'worst-if-better',
  tournament: { size: 2 },
} as const;
