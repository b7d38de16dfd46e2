/**
 * What every registry shares (topologies, emigrant selections, replacements): an entry is
 * one module exporting its kind, a one-line help, its options as zod fields built from the
 * `Fields` kit it is handed (so the modules worker threads load never load zod), optional
 * CLI flags and an optional `resolve`; each family adds its own `build`. The config
 * schema, the JSON Schema, the flags and `--help` are built from the registries.
 */
import { z } from 'zod';
import type { Fields } from './fields.ts';
import type { FlagValue } from './flag-value.ts';

/** A CLI flag for one of an entry's options: `--NAME` sets that option. */
export interface OptionFlag {
  name: string;
  value: FlagValue;
  describe: string;
}

export interface RegistryEntry<K extends string, S extends z.ZodRawShape, O extends object, C> {
  kind: K;
  /** One line for `--help`, the JSON Schema and the docs. */
  help: string;
  /** The entry's options, as zod fields built from `f` (each optional or defaulted: a file may leave them out). */
  options(f: Fields): S;
  /** Flags for some options (by option name). */
  flags?: { readonly [option: string]: OptionFlag };
  /**
   * Checks that need the rest of the run (island count, population size) and defaults that
   * depend on it: gives the options as `build` takes them. Without it the parsed options are used.
   */
  resolve?(options: z.output<z.ZodObject<S>>, ctx: C): O;
}

/** The resolved spec of an entry: its kind and its resolved options (a kind without options is just the kind). */
export type SpecOf<D> =
  D extends RegistryEntry<infer K, infer _S, infer O, infer _C> ? (string extends keyof O ? { kind: K } : { kind: K } & O) : never;

export type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * An option as a section holds it beside other entries' options: optional, its default left
 * to `ownOptions`, which applies it once the entry is chosen.
 */
export function optionalOption(schema: z.ZodType, fallbackDescription: string): z.ZodType {
  const field = schema instanceof z.ZodDefault ? (schema.unwrap() as z.ZodType) : schema;
  return field.optional().describe(schema.description ?? fallbackDescription);
}

/** The chosen entry's options with its defaults filled (the section already checked them field by field). */
export function ownOptions(shape: z.ZodRawShape, given: Record<string, unknown>): Record<string, unknown> {
  return z.object(shape).parse(given);
}

/**
 * The kind a section without one gets: the registry's named default (its defaults.ts), or,
 * in a registry of extensions that leaves the built-in default out, its first entry.
 */
export function defaultKind(kinds: readonly string[], named: string): string {
  return kinds.includes(named) ? named : kinds[0];
}

/**
 * Which entry owns each key; a key two entries define is a programming error caught at
 * start-up, as a misspelt option would otherwise be read by the wrong entry.
 */
export function keyOwners(owned: Iterable<readonly [owner: string, keys: readonly string[]]>, what: string): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [owner, keys] of owned) {
    for (const key of keys) {
      const other = owners.get(key);
      if (other !== undefined) throw new Error(`${what} "${key}" is defined by both ${other} and ${owner}; names must be unique`);
      owners.set(key, owner);
    }
  }
  return owners;
}
