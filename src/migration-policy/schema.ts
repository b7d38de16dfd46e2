/**
 * The `migration` section's policy keys, built from the policy registries: which names
 * `emigrantSelection` and `replacement` accept (and `kind(VALUE)` for a policy with an
 * inline option), every policy's options as `migration` keys, the resolution of a parsed
 * section into specs, and the way back to the file shape. The config layer uses all of them.
 */
import { z } from 'zod';
import { describeValue, expectedName, fields, oneOf } from '../schema/fields.ts';
import { numberLiteral } from '../schema/flag-value.ts';
import { summaries } from '../schema/plug-in.ts';
import { optionalOption, ownOptions } from '../schema/registry.ts';
import type { PolicyDefinition } from './define.ts';
import type { PolicyRegistries } from './lookup.ts';
import { optionKey, policyFamilies, policyNames, type PolicyKey } from './names.ts';

type AnyPolicy = PolicyDefinition<unknown>;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const inlinePattern = (kind: string) => new RegExp(`^${escaped(kind)}\\(\\s*([^()]+?)\\s*\\)$`);

/** The zod field of a policy key: a registered name, or `kind(VALUE)` for a policy with an inline option. */
export function policyField(registry: readonly AnyPolicy[], what: string): z.ZodType<string> {
  const names = registry.map((d) => d.kind) as [string, ...string[]];
  const withInline = registry.filter((d) => d.argument);
  const help = `${what}: ${summaries(registry)}`;
  if (withInline.length === 0) return oneOf(names).describe(help);
  const error = { error: expectedName(policyNames(registry).join(' | '), names) };
  const inline = withInline.map((d) => z.string(error).regex(inlinePattern(d.kind), error));
  const forms = withInline.map((d) => `${d.kind}(${d.argument!.placeholder})`).join(', ');
  return z.union([z.enum(names, error), ...inline], error).describe(`${help}; or ${forms} with the option inline`);
}

/** Every policy's options as `migration` keys (optional here: the chosen policy's own parse applies its defaults). */
export function policyOptionFields(registries: PolicyRegistries): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [, registry] of policyFamilies(registries)) {
    for (const d of registry) {
      for (const [option, schema] of Object.entries(d.options(fields)))
        shape[optionKey(d.kind, option)] = optionalOption(schema as z.ZodType, option);
    }
  }
  return shape;
}

export interface ResolvePolicyContext {
  populationSize: number;
  /** Refuses the config at a `migration` key. */
  fail: (key: string, message: string, related?: readonly string[]) => never;
}

/**
 * The spec a parsed `migration` section names at `key`: the policy, its inline option
 * checked, its options gathered from their keys with its defaults, and its `resolve`.
 */
export function resolvePolicy(
  key: PolicyKey,
  registry: readonly AnyPolicy[],
  migration: Record<string, unknown>,
  ctx: ResolvePolicyContext,
): { kind: string } {
  const raw = String(migration[key]);
  const given: Record<string, unknown> = {};
  let definition = registry.find((d) => d.kind === raw);
  let inline: string | undefined;
  if (definition === undefined) {
    // The schema let only a name or `kind(VALUE)` through.
    definition = registry.find((d) => d.argument && inlinePattern(d.kind).test(raw))!;
    const { option, placeholder } = definition.argument!;
    const text = inlinePattern(definition.kind).exec(raw)![1];
    const value = Number.isNaN(numberLiteral(text)) ? text : numberLiteral(text);
    const checked = (definition.options(fields)[option] as z.ZodType).safeParse(value);
    if (!checked.success) ctx.fail(key, `${placeholder} in ${describeValue(raw)}: ${checked.error.issues[0].message}`);
    given[option] = value;
    inline = option;
  }
  const { kind } = definition;
  for (const option of Object.keys(definition.options(fields))) {
    const value = migration[optionKey(kind, option)];
    if (value === undefined) continue;
    if (option === inline && value !== given[option])
      ctx.fail(optionKey(kind, option), `${describeValue(value)} contradicts ${key} ${describeValue(raw)}; give it once`);
    given[option] = value;
  }
  const options = ownOptions(definition.options(fields), given);
  const fail = (option: string, message: string, related?: readonly string[]): never =>
    ctx.fail(option === inline ? key : optionKey(kind, option), message, related);
  const resolved = definition.resolve ? definition.resolve(options, { populationSize: ctx.populationSize, fail }) : options;
  return { kind, ...resolved };
}

/**
 * A resolved spec written back as `migration` keys: the name (or `kind(VALUE)` for the
 * inline option) and the other options under their keys. Reading it back gives the same spec.
 */
export function policyFileShape(key: PolicyKey, registry: readonly AnyPolicy[], spec: { kind: string }): Record<string, unknown> {
  const { kind, ...options } = spec;
  const inline = registry.find((d) => d.kind === kind)?.argument?.option;
  const out: Record<string, unknown> = { [key]: kind };
  for (const [option, value] of Object.entries(options)) {
    if (option === inline) out[key] = `${kind}(${String(value)})`;
    else out[optionKey(kind, option)] = value;
  }
  return out;
}
