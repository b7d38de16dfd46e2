/**
 * The one table of replacements. Adding one is a module in this folder (see `../define.ts`)
 * and one line here; the config schema, the JSON Schema, the CLI flags and `--help` read
 * this list. The default is POLICY_DEFAULTS.replacement (../defaults.ts).
 */
import { registry } from '../../schema/plug-in.ts';
import { randomIfBetterReplacement } from './random-if-better.ts';
import { worstIfBetterReplacement } from './worst-if-better.ts';
import { worstReplacement } from './worst.ts';

export const REPLACEMENT_REGISTRY = registry('replacement', [
  worstIfBetterReplacement,
  worstReplacement,
  randomIfBetterReplacement,
] as const);
