/**
 * The two migration-policy families of plug-ins (src/schema/plug-in.ts, the one contract;
 * pagmo2's s_policy / r_policy): an emigrant selection in `emigrant-selections/` or a
 * replacement in `replacements/`, one module each, listed on one line in that folder's
 * `registry.ts`. Its implementation is `build` (docs/ARCHITECTURE.md, "How to add a plug-in").
 */
import type { z } from 'zod';
import type { EmigrantSelection, ReplacementPolicy } from '../ga/migration-policy.ts';
import { NO_OPTIONS, type PlugIn } from '../schema/plug-in.ts';

/** What a policy's `resolve` may ask about the run, and how it refuses. */
export interface PolicyContext {
  /** Members per island (`ga.populationSize`). */
  populationSize: number;
  /** Refuses the config, naming one of the policy's options; `related` are other keys involved. */
  fail: (option: string, message: string, related?: readonly string[]) => never;
}

/**
 * A policy: `F` is the function it builds. Its options sit in the `migration` section under
 * the kind's name in camel case followed by the option's (`tournament`'s `size` is
 * `migration.tournamentSize`), so they never clash; a policy that is not chosen ignores its
 * options (a study may sweep selections and keep one `tournamentSize`).
 */
export interface PolicyDefinition<
  F,
  K extends string = string,
  S extends z.ZodRawShape = z.ZodRawShape,
  O extends object = object,
> extends PlugIn<K, S, O, PolicyContext> {
  /** An option that may also be written inline, `kind(VALUE)` (`tournament(3)`); `placeholder` names it in help (`K`). */
  argument?: { option: string; placeholder: string };
  /** The policy function. Trusts its options: the schema and `resolve` checked them. */
  build(options: O): F;
}

export type EmigrantSelectionDefinition<
  K extends string = string,
  S extends z.ZodRawShape = z.ZodRawShape,
  O extends object = object,
> = PolicyDefinition<EmigrantSelection, K, S, O>;
export type ReplacementDefinition<
  K extends string = string,
  S extends z.ZodRawShape = z.ZodRawShape,
  O extends object = object,
> = PolicyDefinition<ReplacementPolicy, K, S, O>;

/** The typing helper of one family: the options' types flow from `options` into `resolve` and `build`. */
function definer<F>() {
  return <K extends string, S extends z.ZodRawShape, O extends object = z.output<z.ZodObject<S>>>(
    definition: PolicyDefinition<F, K, S, O> & { argument?: { option: keyof S & string } },
  ): PolicyDefinition<F, K, S, O> => definition;
}

export const defineEmigrantSelection = definer<EmigrantSelection>();
export const defineReplacement = definer<ReplacementPolicy>();

/** A policy without options: its kind, its help and the one function it always is. */
export function optionlessPolicy<F, K extends string>(
  kind: K,
  help: string,
  policy: F,
): PolicyDefinition<F, K, Record<string, never>, Record<string, never>> {
  return { kind, help, options: NO_OPTIONS, build: () => policy };
}
