/**
 * The options argument of a library call (`startRun`, `solve`, `runExperiment`, and the
 * cluster's `joinCluster`, `startHost`, `listHosts`) is checked as a config is, with zod and
 * the leaves of schema/fields.ts, so a message reads as a config's does (`what: key: expected
 * ..., got ...`): an unknown option is refused with the nearest known name (a misspelt `signa`
 * would otherwise be dropped without a word, and the run could not be stopped), and each option
 * given must have its type, so a wrong one is a ConfigError naming it, not a TypeError from deep
 * inside the run. An option set to undefined is absent.
 */
import { z } from 'zod';
import type { IslandHosts } from '../archipelago/launcher.ts';
import { ConfigError } from './errors.ts';
import { isPlainObject } from '../io/json-text.ts';
import { optionsObject } from '../io/shown.ts';
import { boolean, expected, formatPath, int } from '../schema/fields.ts';
import { nearestName } from '../schema/suggest.ts';

/** The schema of one option or argument. */
export type OptionSchema = z.ZodType;

/** A value `test` accepts, else `expected <what>, got ...`. */
function is<T>(test: (value: unknown) => boolean, what: string): z.ZodType<T> {
  return z.custom<T>(test, { error: expected(what) });
}

export const abortSignal = is<AbortSignal>((value) => value instanceof AbortSignal, 'an AbortSignal');
export const text = z.string({ error: expected('a string') });
export const fileName = z.string({ error: expected('a file name') });
export const flag = boolean();
export const object = is<Record<string, unknown>>(isPlainObject, 'an object');
export const list = is<unknown[]>(Array.isArray, 'a list');
export const number = is<number>((value) => typeof value === 'number', 'a number');
export const positiveInteger = int(1);
export const nonNegativeInteger = int(0);
export const callback = is<(...args: never[]) => unknown>((value) => typeof value === 'function', 'a function');
export const texts = is<string[]>((value) => Array.isArray(value) && value.every((item) => typeof item === 'string'), 'a list of strings');
/** Any value: the call checks it in its own words. */
export const anything = z.unknown();

/** `joinCluster`'s hosts: the islands they offer and their launcher. */
export const islandHosts = is<IslandHosts>(
  (value) =>
    isPlainObject(value) &&
    Number.isInteger(value.islands) &&
    (value.islands as number) >= 1 &&
    isPlainObject(value.launcher) &&
    typeof value.launcher.launch === 'function',
  "the hosts joinCluster gives (from 'nqueens-islands/cluster')",
);

/**
 * The options of a call (or of an object option, `checkpoint: { file, everySeconds }`): each of
 * `optional` may be absent or undefined, each of `required` must be given; any other key is
 * refused as `unknown option "x"; did you mean "y"?`.
 */
export function options(optional: Record<string, OptionSchema>, required: Record<string, OptionSchema> = {}): OptionSchema {
  const known = [...Object.keys(required), ...Object.keys(optional)];
  const shape = { ...Object.fromEntries(Object.entries(optional).map(([key, schema]) => [key, schema.optional()])), ...required };
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? unknownOption(iss.keys[0], known) : expected('an object')(iss)),
  });
}

function unknownOption(key: string, known: readonly string[]): string {
  const near = nearestName(key, known);
  return `unknown option "${key}"; ${near ? `did you mean "${near}"?` : `expected one of ${known.join(', ')}`}`;
}

/**
 * `given` (undefined: none) as a library call's options, each key known and of its type.
 * @throws ConfigError naming the option (`what: key: expected ..., got ...`).
 */
export function checkedOptions<T extends object>(given: T | null | undefined, what: string, schema: OptionSchema): Partial<T> {
  return checkedArgument(
    optionsObject(given, what, (message) => new ConfigError(message)),
    what,
    schema,
  );
}

/** One argument of a library call, checked: `value` as it is, or a ConfigError (`what: expected ..., got ...`). */
export function checkedArgument<T>(value: T, what: string, schema: OptionSchema): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return value;
  const issue = parsed.error.issues[0];
  throw new ConfigError(`${what}: ${issue.path.length > 0 ? `${formatPath(issue.path)}: ` : ''}${issue.message}`);
}
