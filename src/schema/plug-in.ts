/**
 * The one plug-in contract (pagmo2's "user-defined X"), shared by the four families: GA modes,
 * migration modes, topologies and migration policies. A plug-in is its name (`kind`), its
 * docs (a one-line `help`; each option's description), its options as zod fields with their
 * defaults, built from the `Fields` kit it is handed (so the modules worker threads load never
 * load zod), optional CLI flags and `resolve`, and its family's implementation (`build`,
 * `create`, ...). A registry is a frozen list of plug-ins made by `registry`; `plugInNamed`
 * finds one by name and `summaries` lists them for `--help`, the JSON Schema and the docs.
 * This module loads no zod: islands look their plug-ins up with it.
 */
import type { z } from 'zod';
import type { Fields } from './fields.ts';
import type { FlagValue } from './flag-value.ts';
import { nearestName } from './suggest.ts';

/** A CLI flag for one of a plug-in's options: `--NAME` sets that option. */
export interface OptionFlag {
  readonly name: string;
  readonly value: FlagValue;
  readonly describe: string;
}

/**
 * What every plug-in has. `C` is what its family's `resolve` may ask about the run (island
 * count, population size) and how it refuses; `O` is what `resolve` gives (by default the
 * parsed options), which the family's implementation takes and trusts.
 */
export interface PlugIn<K extends string = string, S extends z.ZodRawShape = z.ZodRawShape, O extends object = object, C = never> {
  /** Its name: what a config file, a flag and a resolved spec call it. */
  readonly kind: K;
  /** One line for `--help`, the JSON Schema and the docs. */
  readonly help: string;
  /** Its options as zod fields built from `f`, each with its default (or optional) and described: the option docs. */
  options(f: Fields): S;
  /** Flags for some options (by option name). */
  readonly flags?: { readonly [option: string]: OptionFlag };
  /**
   * Checks that need the rest of the run (island count, population size) and defaults that
   * depend on it: gives the options as the implementation takes them. Without it the parsed options are used.
   */
  resolve?(options: z.output<z.ZodObject<S>>, ctx: C): O;
}

/**
 * The one registry type: the plug-ins of a family in order (`registry` makes the built-in ones,
 * frozen; a test's or an extension's is a copy with more).
 */
export type Registry<P extends { readonly kind: string }> = readonly P[];

/** A plug-in without options. */
export const NO_OPTIONS = () => ({});

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  // Only plain data: a plug-in's flags, rules and lists, never an instance it holds.
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/**
 * A registry: the plug-ins in order, frozen with their flags and rules (an exported registry
 * cannot be changed by a library user; a registry with more is a copy, `[...REGISTRY, mine]`).
 * @throws naming the family and the name when two plug-ins share a name or a help is not one line.
 */
export function registry<const E extends readonly PlugIn<string, z.ZodRawShape, object, never>[]>(family: string, plugIns: E): E {
  const seen = new Set<string>();
  for (const p of plugIns) {
    if (seen.has(p.kind)) throw new Error(`${family} "${p.kind}" is registered twice; names must be unique`);
    if (p.help.includes('\n')) throw new Error(`${family} "${p.kind}": its help must be one line`);
    seen.add(p.kind);
  }
  return deepFreeze([...plugIns] as unknown as E);
}

/** The names of a registry's plug-ins, in order. */
export function namesOf(plugIns: readonly { kind: string }[]): string[] {
  return plugIns.map((p) => p.kind);
}

/** `a (help of a)SEP b (help of b)`: the list `--help`, the JSON Schema and the docs show. */
export function summaries(plugIns: readonly { kind: string; help: string }[], separator = '; '): string {
  return plugIns.map((p) => `${p.kind} (${p.help})`).join(separator);
}

/** How a name that is not registered is quoted back: one short line. */
function quoted(name: unknown): string {
  const text = typeof name === 'string' ? JSON.stringify(name) : String(name);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * The plug-in named `name`. @throws `error(message)` (default: Error) with one line naming
 * `key` and the known names: `migration.mode: expected one of async | sync | lagged, got
 * "synk"; did you mean "sync"?`.
 */
export function plugInNamed<E extends { readonly kind: string }>(
  plugIns: Registry<E>,
  name: unknown,
  key: string,
  error: (message: string) => Error = (message) => new Error(message),
): E {
  const found = plugIns.find((p) => p.kind === name);
  if (found !== undefined) return found;
  const names = namesOf(plugIns);
  const near = typeof name === 'string' ? nearestName(name, names) : null;
  const hint = near === null ? '' : `; did you mean "${near}"?`;
  throw error(`${key}: expected one of ${names.join(' | ')}, got ${quoted(name)}${hint}`);
}
