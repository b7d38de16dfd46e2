/**
 * How the policy registries are named in config keys, flags and help, without zod (the
 * command line's option tables use these on every start; schema.ts builds the zod
 * fields from them).
 */
import type { PolicyDefinition } from './define.ts';
import type { PolicyRegistries } from './lookup.ts';

/** The `migration` keys that name a policy. */
export type PolicyKey = 'emigrantSelection' | 'replacement';
type AnyPolicy = PolicyDefinition<unknown>;

/** Each policy key with its registry. */
export function policyFamilies(registries: PolicyRegistries): readonly (readonly [PolicyKey, readonly AnyPolicy[]])[] {
  return [
    ['emigrantSelection', registries.emigrantSelections],
    ['replacement', registries.replacements],
  ];
}

/** The `migration` key of a policy's option: the kind in camel case, then the option (`tournament`, `size`: `tournamentSize`). */
export function optionKey(kind: string, option: string): string {
  return kind.replace(/-([a-z0-9])/gi, (_, c: string) => c.toUpperCase()) + option.charAt(0).toUpperCase() + option.slice(1);
}

/** What a policy key accepts, as help and messages list it: `best | random | tournament | tournament(K)`. */
export function policyNames(registry: readonly AnyPolicy[]): string[] {
  const inline = registry.flatMap((d) => (d.argument ? [`${d.kind}(${d.argument.placeholder})`] : []));
  return [...registry.map((d) => d.kind), ...inline];
}
