/**
 * The topology family of plug-ins (src/schema/plug-in.ts, the one contract): one module per
 * kind in this folder, listed on one line in `registry.ts`. Its implementation is `build`
 * (docs/ARCHITECTURE.md, "How to add a plug-in").
 */
import type { z } from 'zod';
import type { PlugIn } from '../../schema/plug-in.ts';
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

/** A topology kind (option names are unique across kinds; `resolve` gets the island count). */
export interface TopologyDefinition<
  K extends string = string,
  S extends z.ZodRawShape = z.ZodRawShape,
  O extends object = object,
> extends PlugIn<K, S, O, TopologyContext> {
  /** The directed edges for `islands` islands. Trusts its options: the schema checked them. */
  build(islands: number, options: O, seed: number): Edge[];
}

/** Types a definition (the options' types flow from `options` into `resolve` and `build`). */
export function defineTopology<K extends string, S extends z.ZodRawShape, O extends object = z.output<z.ZodObject<S>>>(
  definition: TopologyDefinition<K, S, O>,
): TopologyDefinition<K, S, O> {
  return definition;
}
