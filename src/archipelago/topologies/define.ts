/**
 * What one topology kind is: the one module per kind in this folder exports one of these,
 * and `registry.ts` lists it on one line. The config schema, the JSON Schema, the CLI flags
 * and `--help` are all built from the registry, so nothing else changes to add a kind
 * (docs/ARCHITECTURE.md, "How to add a topology").
 */
import type { z } from 'zod';
import type { Fields, FlagValue } from '../../schema/fields.ts';
import type { Edge } from './edge.ts';

/** What a kind's `resolve` may ask about the run, and how it refuses. */
export interface TopologyContext {
  islands: number;
  /** The island count as messages quote it ("6", or "4 (the available cores, as islands is null)"). */
  islandsText: string;
  /**
   * Refuses the config: `key` is a path under `topology` (`rows`, `['edges', 3]`) or, starting
   * with `/`, a top-level key (`/islands`); `related` are other keys the problem involves.
   */
  fail: (key: string | readonly (string | number)[], message: string, related?: readonly string[]) => never;
}

/** A CLI flag for one of a kind's options: `--NAME` sets `topology.OPTION`. */
export interface OptionFlag {
  name: string;
  value: FlagValue;
  describe: string;
}

export interface TopologyDefinition<K extends string = string, S extends z.ZodRawShape = z.ZodRawShape, O extends object = object> {
  kind: K;
  /** One line for `--help`, the JSON Schema and the docs. */
  help: string;
  /**
   * The kind's options besides `kind`, as zod fields built from `f` (each optional or
   * defaulted: a file may leave them out). Option names are unique across kinds.
   */
  options(f: Fields): S;
  /** Flags for some options (by option name). */
  flags?: { readonly [option: string]: OptionFlag };
  /**
   * Checks that need the island count, and defaults that depend on it: gives the options
   * as `build` takes them. Without it the parsed options are used as they are.
   */
  resolve?(options: z.output<z.ZodObject<S>>, ctx: TopologyContext): O;
  /** The directed edges for `islands` islands. Trusts its options: the schema checked them. */
  build(islands: number, options: O, seed: number): Edge[];
}

/** Types a definition (the options' types flow from `options` into `resolve` and `build`). */
export function defineTopology<K extends string, S extends z.ZodRawShape, O extends object = z.output<z.ZodObject<S>>>(
  definition: TopologyDefinition<K, S, O>,
): TopologyDefinition<K, S, O> {
  return definition;
}
