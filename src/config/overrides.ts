/**
 * CLI flags and experiment cells change a config file's content before it is checked:
 * overrides are merged in (they win), and a flag that changes a section's kind drops the
 * file's options for the old kind.
 */
import { GA_MODE_REGISTRY } from '../ga/modes/registry.ts';
import { TOPOLOGY_REGISTRY } from '../topology/kinds/registry.ts';
import { isPlainObject } from '../io/json-text.ts';

/** A partial run-config input, nested like the file (`{ migration: { interval: 3 } }`). */
export type ConfigOverrides = { [key: string]: unknown };

/** Writes `value` at a dotted path, creating the sections on the way. */
export function setPath(target: ConfigOverrides, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') node[key] = {};
    node = node[key] as ConfigOverrides;
  }
  node[keys[keys.length - 1]] = value;
}

/** The value at a dotted key path (`migration.interval`), or undefined. */
export function valueAt(value: unknown, dotted: string): unknown {
  let node = value;
  for (const key of dotted.split('.')) node = isPlainObject(node) ? node[key] : undefined;
  return node;
}

/**
 * Overrides win; a file value that is not a mapping is kept so that its error names the
 * file, except null, which a nullable section (`localSearch: null`) may legitimately hold.
 */
function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(over)) return over;
  if (base === undefined || base === null) return over;
  if (!isPlainObject(base)) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = deepMerge(base[key], value);
  return out;
}

/**
 * A flag that changes a section's kind drops the file's options for that section: they
 * belong to the old kind (`--topology ring` over a random-topology file must not fail on
 * `topology.probability`; `--mode hybrid` over a paper file must not fail on `ga.pairsPerIteration`).
 */
const KIND_KEYS = [
  ['topology', 'kind', TOPOLOGY_REGISTRY[0].kind],
  ['ga', 'mode', GA_MODE_REGISTRY[0].kind],
] as const;

/**
 * A config file's content with overrides merged in (overrides win), dropping a section's
 * options when an override changes its kind. `resolveRunConfig` merges flags with it, and
 * experiments merge their base overrides and each cell's sweep values with it.
 */
export function applyOverrides(input: unknown, overrides: ConfigOverrides): unknown {
  if (!isPlainObject(input)) return input;
  const base: Record<string, unknown> = { ...input };
  for (const [section, key, fallback] of KIND_KEYS) {
    const wanted = isPlainObject(overrides[section]) ? overrides[section][key] : undefined;
    const file = base[section];
    if (wanted !== undefined && isPlainObject(file) && (file[key] ?? fallback) !== wanted) base[section] = {};
  }
  return deepMerge(base, overrides);
}
