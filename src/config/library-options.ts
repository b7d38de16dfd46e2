/**
 * The options argument of a library call (`startRun`, `solve`, `runExperiment`, and the
 * cluster's `joinCluster`, `startHost`, `listHosts`) is checked as a
 * config is: an unknown option is refused with the nearest known name (a misspelt `signa` would
 * otherwise be dropped without a word, and the run could not be stopped), and each option
 * given must have its type, so a wrong one is a ConfigError naming it, not a TypeError from
 * deep inside the run. An option set to undefined is absent.
 */
import { ConfigError } from './errors.ts';
import { isPlainObject } from '../io/json-text.ts';
import { optionsObject, shown } from '../io/shown.ts';
import { nearestName } from '../schema/suggest.ts';

/** What an option must be, in words, or null when `value` is that. */
export type OptionCheck = (value: unknown) => string | null;

export const abortSignal: OptionCheck = (value) => (value instanceof AbortSignal ? null : 'an AbortSignal');
export const text: OptionCheck = (value) => (typeof value === 'string' ? null : 'a string');
export const flag: OptionCheck = (value) => (typeof value === 'boolean' ? null : 'true or false');
export const object: OptionCheck = (value) => (isPlainObject(value) ? null : 'an object');
export const list: OptionCheck = (value) => (Array.isArray(value) ? null : 'a list');
export const number: OptionCheck = (value) => (typeof value === 'number' ? null : 'a number');
export const positiveInteger: OptionCheck = (value) => (Number.isSafeInteger(value) && (value as number) >= 1 ? null : 'an integer >= 1');
export const nonNegativeInteger: OptionCheck = (value) =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? null : 'an integer >= 0';
export const callback: OptionCheck = (value) => (typeof value === 'function' ? null : 'a function');
export const texts: OptionCheck = (value) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? null : 'a list of strings';

/** An object option whose own keys are checked as a call's options are (`checkpoint: { file, everySeconds }`). */
export interface NestedCheck extends OptionCheck {
  readonly checks: Record<string, OptionCheck>;
}

export function nested(checks: Record<string, OptionCheck>): NestedCheck {
  return Object.assign((value: unknown) => (isPlainObject(value) ? null : 'an object'), { checks });
}

/** `joinCluster`'s hosts: the islands they offer and their launcher. */
export const islandHosts: OptionCheck = (value) =>
  isPlainObject(value) &&
  Number.isInteger(value.islands) &&
  (value.islands as number) >= 1 &&
  isPlainObject(value.launcher) &&
  typeof value.launcher.launch === 'function'
    ? null
    : "the hosts joinCluster gives (from 'nqueens-islands/cluster')";

/**
 * `given` (undefined: none) as a library call's options, each key known and of its type.
 * @throws ConfigError naming the option (`what: key: expected ..., got ...`).
 */
export function checkedOptions<T extends object>(
  given: T | null | undefined,
  what: string,
  checks: Record<keyof T, OptionCheck>,
): Partial<T> {
  const options = optionsObject(given, what, (message) => new ConfigError(message));
  const known = Object.keys(checks);
  for (const [key, value] of Object.entries(options)) {
    if (!Object.hasOwn(checks, key)) {
      const near = nearestName(key, known);
      throw new ConfigError(
        `${what}: unknown option "${key}"; ${near ? `did you mean "${near}"?` : `expected one of ${known.join(', ')}`}`,
      );
    }
    if (value === undefined) continue;
    const check = checks[key as keyof T];
    checkedArgument(value, `${what}: ${key}`, check);
    // A misspelt key inside an option (`checkpoint.every`) is refused as a misspelt option is.
    if ('checks' in check) checkedOptions(value as object, `${what}: ${key}`, (check as NestedCheck).checks);
  }
  return options;
}

/** One argument of a library call, checked: `value` as it is, or a ConfigError (`what: expected ..., got ...`). */
export function checkedArgument<T>(value: T, what: string, check: OptionCheck): T {
  const expected = check(value);
  if (expected !== null) throw new ConfigError(`${what}: expected ${expected}, got ${shown(value)}`);
  return value;
}
