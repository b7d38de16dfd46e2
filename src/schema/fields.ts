/**
 * The zod leaf schemas every option schema is built from (run config, registries,
 * experiments). Each leaf carries one "what was expected" text that all its checks report,
 * so a message reads `expected an integer >= 1, got "ten"` whatever check failed. Registry
 * entries receive these as `Fields` (a parameter, not an import), so the modules a worker
 * thread loads never load zod.
 */
import { z } from 'zod';
import { nearestName } from './suggest.ts';

type ErrorMap = z.core.$ZodErrorMap;

/** How a value a person wrote is quoted back in a message: short, one line. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'a mapping';
  // Only from code (a library call): a BigInt is not a number, and `5` would not say so.
  if (typeof value === 'bigint') return `${value}n (a BigInt)`;
  // What is left after lists and mappings: a scalar (a function cannot come from a file).
  const scalar = value as string | number | boolean | symbol | null;
  const text = typeof scalar === 'string' ? JSON.stringify(scalar) : String(scalar);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * How a whole file that is not a mapping is named: a single scalar by its kind only, never its
 * text (a file named by mistake, a token or a key, would be printed, and logged).
 */
export function describeDocument(value: unknown): string {
  return value !== null && typeof value !== 'object' ? `a single ${typeof value}` : describeValue(value);
}

/** Dotted key path as people read it: `topology.edges[1][0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** `expected <what>, got <value>[; <why>]`; all checks of one leaf share it. */
export function expected(what: string, why?: string): ErrorMap {
  const tail = why === undefined ? '' : `; ${why}`;
  return (iss) =>
    iss.input === undefined ? `missing; expected ${what}${tail}` : `expected ${what}, got ${describeValue(iss.input)}${tail}`;
}

export interface IntOptions {
  max?: number;
  /** Allows null, and says what it means: `floor(sqrt(n))` gives "or null (= floor(sqrt(n)))". */
  nullMeans?: string;
  /** Why the range is what it is, appended to the message. */
  why?: string;
}

export function int(min: number, { max, nullMeans, why }: IntOptions = {}) {
  const range = max === undefined ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  const what = `${range}${nullMeans ? ` or null (= ${nullMeans})` : ''}`;
  const within = expected(what, why);
  // A whole number past 2^53 (`--seed 1e21`) is refused as too large, not as no integer (a range below 2^53 says so itself).
  const tooLarge = expected(what, `too large (at most ${Number.MAX_SAFE_INTEGER})`);
  const unbounded = max === undefined || max >= Number.MAX_SAFE_INTEGER;
  const error: ErrorMap = (iss) =>
    unbounded && typeof iss.input === 'number' && Number.isFinite(iss.input) && iss.input > Number.MAX_SAFE_INTEGER
      ? tooLarge(iss)
      : within(iss);
  const base = z.number({ error }).int({ error }).min(min, { error });
  return max === undefined ? base : base.max(max, { error });
}

export function probability() {
  const error = expected('a number in [0, 1]');
  return z.number({ error }).min(0, { error }).max(1, { error });
}

export function boolean() {
  return z.boolean({ error: expected('true or false') });
}

/**
 * `expected(what)` for a value that must be one of `names`: a string near one of them gets
 * `; did you mean "fully-connected"?` (`fully_connected`, `synk`), as unknown keys and flags do.
 */
export function expectedName(what: string, names: readonly string[]): ErrorMap {
  const plain = expected(what);
  return (iss) => {
    const near = typeof iss.input === 'string' ? nearestName(iss.input, names) : null;
    return near === null ? plain(iss) : `${plain(iss) as string}; did you mean "${near}"?`;
  };
}

export function oneOf<const T extends readonly string[]>(values: T) {
  return z.enum(values, { error: expectedName(`one of ${values.join(' | ')}`, values) });
}

/**
 * A strict mapping: an unknown key is an error that suggests the nearest known key, since
 * a misspelt key silently falling back to its default is the worst kind of config bug.
 */
export function section<S extends z.ZodRawShape>(shape: S) {
  const known = Object.keys(shape);
  const error: ErrorMap = (iss) => {
    if (iss.code !== 'unrecognized_keys') return expected('a mapping')(iss);
    const path = iss.path ?? [];
    const key = iss.keys[0];
    const near = nearestName(key, known);
    const hint = near !== null ? `did you mean "${formatPath([...path, near])}"?` : `expected one of ${known.join(', ')}`;
    return `unknown key "${formatPath([...path, key])}"; ${hint}`;
  };
  return z.strictObject(shape, { error });
}

/** The kit a registry entry builds its option schema from. */
export const fields = { z, int, probability, boolean, oneOf, section, expected, expectedName } as const;
export type Fields = typeof fields;
