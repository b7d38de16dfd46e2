/**
 * What the config layer builds from any registry of plug-ins (plug-in.ts, the one contract):
 * a plug-in's resolved spec type, its options as a section holds them beside other plug-ins'
 * options, its own options with their defaults, the default name, and the owner of each key.
 */
import { z } from 'zod';
import { fields } from './fields.ts';
import type { PlugIn } from './plug-in.ts';

/** The resolved spec of an entry: its kind and its resolved options (a kind without options is just the kind). */
export type SpecOf<D> =
  D extends PlugIn<infer K, infer _S, infer O, infer _C> ? (string extends keyof O ? { kind: K } : { kind: K } & O) : never;

/** The names of a plug-in's options. */
export function optionNames(plugIn: Pick<PlugIn, 'options'>): string[] {
  return Object.keys(plugIn.options(fields));
}

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
