import { HYBRID_DEFAULTS } from '../hybrid/params.ts';
import { PAPER_DEFAULTS } from '../params.ts';

/**
 * The GA mode registry's defaults in one place: the mode of a config without `ga.mode`, and
 * each mode's option defaults (the paper's and the hybrid's stay beside the parameters they
 * fill, and are gathered here). The schema applies them, so `--help`, `config schema` (the
 * JSON Schema) and docs/defaults.md (checked by test/defaults-doc.test.ts) say these values.
 */
export const GA_MODE_DEFAULTS = {
  mode: 'paper',
  paper: PAPER_DEFAULTS,
  hybrid: HYBRID_DEFAULTS,
  takeover: { populationSize: 64, bestIsland: 0 },
} as const;
