/** Which cell each cell is compared with: the manifest's baseline, or one given to `report --baseline`. */
import YAML from 'yaml';
import { ConfigError } from '../../config/errors.ts';
import type { Manifest } from '../../experiment/records.ts';
import { canonicalJson } from '../../provenance.ts';
import { keyAndValue } from '../../experiment/study-edits.ts';
import { baselineOf, formatValue, type SweepValue } from '../../experiment/sweep.ts';

/** Parses `--baseline key=value` flags (values read as YAML scalars: `10` is a number) against the study's sweep. */
export function parseBaselineFlags(flags: readonly string[], manifest: Manifest): Record<string, SweepValue> {
  const out: Record<string, SweepValue> = {};
  for (const given of flags) {
    // yargs may hand a bare number or boolean (`--baseline 5`): the flag's text is what was typed.
    const flag = String(given);
    const pair = keyAndValue(flag);
    if (pair === null) throw new ConfigError(`--baseline ${flag}: expected KEY=VALUE with a sweep key (${manifest.keys.join(', ')})`);
    const { key, text } = pair;
    if (!manifest.keys.includes(key))
      throw new ConfigError(`--baseline ${flag}: ${key} is not a sweep key; expected one of ${manifest.keys.join(', ')}`);
    const values = manifest.cells.map((c) => c.values[key]);
    const parsed = yamlScalar(text);
    const value = values.find((v) => formatValue(v) === text || (parsed !== undefined && JSON.stringify(v) === JSON.stringify(parsed)));
    if (value === undefined) {
      throw new ConfigError(`--baseline ${flag}: expected one of the swept values ${[...new Set(values.map(formatValue))].join(', ')}`);
    }
    // A repeatable flag: one key given two values has no last one that counts.
    if (Object.hasOwn(out, key) && formatValue(out[key]) !== formatValue(value))
      throw new ConfigError(`--baseline ${flag}: ${key} is ${formatValue(out[key])} in an earlier --baseline; give each sweep key once`);
    out[key] = value;
  }
  return out;
}

/** A flag's value as YAML reads it (`10` a number), or undefined for text YAML refuses (`[`, `*x`). */
function yamlScalar(text: string): unknown {
  try {
    return YAML.parse(text, { maxAliasCount: 0 }) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A baseline given as values (the library's `studyReport`), checked as `--baseline` is: each
 * key a sweep key of the study, each value one it swept. @throws ConfigError naming `what`.
 */
export function checkBaseline(baseline: Record<string, SweepValue>, manifest: Manifest, what: string): Record<string, SweepValue> {
  for (const [key, value] of Object.entries(baseline)) {
    if (!manifest.keys.includes(key))
      throw new ConfigError(
        `${what}: ${key} is not a sweep key; expected one of ${manifest.keys.join(', ') || 'none (the study sweeps nothing)'}`,
      );
    const values = manifest.cells.map((c) => c.values[key]);
    if (!values.some((v) => canonicalJson(v) === canonicalJson(value)))
      throw new ConfigError(
        `${what}: ${key}: expected one of the swept values ${[...new Set(values.map(formatValue))].join(', ')}, got ${JSON.stringify(value)}`,
      );
  }
  return baseline;
}

/** A function from cell id to its baseline id. */
export function baselineMapper(manifest: Manifest, baseline: Record<string, SweepValue> | null): (cell: string) => string | null {
  const cells = new Map(manifest.cells.map((c) => [c.id, c]));
  return (id) => {
    const cell = cells.get(id);
    return cell === undefined || baseline === null ? null : baselineOf(cell, baseline);
  };
}
