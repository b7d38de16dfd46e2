/**
 * Where a bad value came from: builds the one-line messages, naming the flag for
 * overridden keys and the file otherwise (`--interval: ...`, `config/x.yaml: migration.interval: ...`).
 */
import type { z } from 'zod';
import { formatPath } from '../schema/fields.ts';
import { ConfigError } from './errors.ts';
import { isPlainObject } from '../io/json-text.ts';
import { flagForPath, RUN_FLAGS } from './flags.ts';
import type { ConfigOverrides } from './overrides.ts';

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const key of path) node = isPlainObject(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[key] : undefined;
  return node;
}

/** Keys a flag sets as one JSON value (`--island-groups`): the flag is named for anything inside them. */
const JSON_FLAG_PATHS: ReadonlySet<string> = new Set(RUN_FLAGS.filter((f) => f.value === 'json').map((f) => f.path));

function leafPaths(overrides: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (!isPlainObject(overrides) || JSON_FLAG_PATHS.has(prefix)) {
    out.add(prefix);
    return out;
  }
  for (const [key, value] of Object.entries(overrides)) leafPaths(value, prefix === '' ? key : `${prefix}.${key}`, out);
  return out;
}

/** Builds the one-line messages, naming the flag for overridden keys and the file otherwise. */
export class Locator {
  private readonly overridden: Set<string>;
  constructor(
    private readonly source: string,
    overrides: ConfigOverrides,
  ) {
    this.overridden = leafPaths(overrides);
    this.overridden.delete('');
  }

  private flagFor(path: readonly PropertyKey[]): string | undefined {
    const keys: string[] = [];
    for (const key of path) {
      keys.push(String(key));
      const dotted = keys.join('.');
      // Inside a flag's JSON value, the flag and the key within it (`--island-groups hot.islands`).
      if (this.overridden.has(dotted)) return flagForPath(path.map(String).join('.')) ?? flagForPath(dotted) ?? `override ${dotted}`;
    }
    return undefined;
  }

  /**
   * `config/x.yaml: migration.interval: <message>`, or `--interval: <message>` when a flag set
   * the key. A cross-field problem lists the other keys involved (`related`): when only one
   * of those came from a flag, the message names that flag and the key it upset.
   */
  message(path: readonly PropertyKey[], message: string, related: readonly string[] = []): string {
    const own = this.flagFor(path);
    if (own !== undefined) return `${own}: ${message}`;
    for (const other of related) {
      const flag = this.flagFor(other.split('.'));
      if (flag !== undefined) return `${flag}: ${formatPath(path)}: ${message}`;
    }
    return path.length === 0 ? `${this.source}: ${message}` : `${this.source}: ${formatPath(path)}: ${message}`;
  }

  fail(path: string | readonly PropertyKey[], message: string, related: readonly string[] = []): never {
    throw new ConfigError(this.message(typeof path === 'string' ? path.split('.') : path, message, related));
  }

  fromZod(error: z.ZodError, input: unknown): never {
    const issue = error.issues[0];
    // Unknown-key messages already name the full key path; a key a flag set (`--best-island` in
    // paper mode) is the flag's doing, not the file's.
    if (issue.code === 'unrecognized_keys') {
      const flag = issue.keys.map((key) => this.flagFor([...issue.path, key])).find((f) => f !== undefined);
      throw new ConfigError(`${flag ?? this.source}: ${issue.message}`);
    }
    const flag = flagForPath(issue.path.join('.'));
    const missing = valueAt(input, issue.path) === undefined;
    // A key missing inside a flag's JSON value (`--island-groups '{"a": {}}'`) is missing there, not in the file.
    if (missing && flag?.includes(' '))
      this.fail(issue.path, `missing; ${issue.message === 'Invalid input' ? 'a required key' : issue.message}`);
    this.fail(issue.path, missing && flag !== undefined ? `${issue.message} (set it in the file or pass ${flag})` : issue.message);
  }
}
