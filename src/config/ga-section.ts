/**
 * The `ga` section, built from the GA mode registry: one strict branch per mode told apart
 * by `mode` (a file without it means GA_MODE_DEFAULTS.mode), the resolution of a parsed branch into
 * the mode's parameters, the way back to the file shape, and the memory estimate.
 */
import { z } from 'zod';
import { gaModeOf, type GaConfig, type GaModeRegistry } from '../ga/create-evolver.ts';
import { GA_MODE_DEFAULTS } from '../ga/modes/defaults.ts';
import { GA_MODE_REGISTRY } from '../ga/modes/registry.ts';
import { expected, expectedName, fields, section, type Fields } from '../schema/fields.ts';
import { defaultKind } from '../schema/registry.ts';
import type { Locator } from './locator.ts';

type Registered = (typeof GA_MODE_REGISTRY)[number];
type InputOf<D> = D extends { kind: infer K; options(f: Fields): infer S extends z.ZodRawShape }
  ? { mode?: K } & z.input<z.ZodObject<S>>
  : never;

/** What a file's `ga` may hold: one registered mode's keys (for library users' types). */
export type GaInput = InputOf<Registered>;
/** A parsed `ga` section: the mode and its options as the file gave them, defaults applied. */
export type GaSectionValue = { mode: string } & Record<string, unknown>;
/** The resolved `ga` section: a registered mode and its parameters (all but `n`). */
export type { GaConfig };

/** `"paper" or "hybrid"`; `"a", "b" or "c"`. */
function quotedNames(names: readonly string[]): string {
  const quoted = names.map((name) => JSON.stringify(name));
  return quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** The `ga` section: a discriminated union on `mode`, one branch per registered mode. */
export function gaSection(registry: GaModeRegistry = GA_MODE_REGISTRY): z.ZodType<GaSectionValue, GaInput> {
  const kinds = registry.map((d) => d.kind);
  const fallback = defaultKind(kinds, GA_MODE_DEFAULTS.mode);
  const branches = registry.map((d) => {
    const mode = z.literal(d.kind).describe(`GA variant: "${d.kind}": ${d.help}`);
    return section({ mode: d.kind === fallback ? mode.default(d.kind) : mode, ...d.options(fields) });
  });
  const names = quotedNames(kinds);
  const union = z.discriminatedUnion('mode', branches as unknown as [z.ZodObject<{ mode: z.ZodLiteral<string> }>], {
    error: (iss) => {
      if (iss.code !== 'invalid_union') return expected('a mapping')(iss);
      const input = iss.input as { mode?: unknown } | undefined;
      return expectedName(names, kinds)({ ...iss, input: input?.mode });
    },
  });
  return union as unknown as z.ZodType<GaSectionValue, GaInput>;
}

/** The mode's parameters for board size `n`: its defaults that depend on n, and its cross-field checks. */
export function resolveGaSection(
  ga: GaSectionValue,
  n: number,
  islands: number,
  at: Pick<Locator, 'fail'>,
  registry: GaModeRegistry = GA_MODE_REGISTRY,
): GaConfig {
  const { mode, ...options } = ga;
  const fail = (key: string, message: string, related?: readonly string[]) => at.fail(['ga', key], message, related);
  return { mode, ...gaModeOf(mode, registry).resolve(options, { n, islands, fail }) } as GaConfig;
}

/** The resolved section written back as `ga` keys (by default the parameters that are options). */
export function gaFileShape(ga: { mode: string }, registry: GaModeRegistry = GA_MODE_REGISTRY): GaInput {
  const { mode, ...params } = ga;
  const definition = gaModeOf(mode, registry);
  if (definition.fileShape) return { mode, ...definition.fileShape(params) } as GaInput;
  const options = new Set(Object.keys(definition.options(fields)));
  return { mode, ...Object.fromEntries(Object.entries(params).filter(([key]) => options.has(key))) } as GaInput;
}

/** Bytes of chromosomes one island of this mode allocates for board size `n`, and the parts as a message lists them. */
export function gaMemory(
  ga: { mode: string; populationSize: number },
  n: number,
  registry: GaModeRegistry = GA_MODE_REGISTRY,
): { bytes: number; parts: string; released?: number } {
  const { mode, ...params } = ga;
  return gaModeOf(mode, registry).memory(params, n);
}

/** Evaluations one island of this mode spends on its first population. */
export function gaInitialEvaluations(ga: { mode: string; populationSize: number }, registry: GaModeRegistry = GA_MODE_REGISTRY): number {
  const { mode, ...params } = ga;
  return gaModeOf(mode, registry).initialEvaluations(params);
}
