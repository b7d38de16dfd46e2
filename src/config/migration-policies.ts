/**
 * The `migration` section's policies, from the policy registries: the fields of
 * `emigrantSelection`, `replacement` and every policy option, their resolution into specs
 * (and the cross-field checks of each policy's `resolve`), and the way back to the file.
 */
import type { z } from 'zod';
import type { EmigrantSelectionSpec, ReplacementSpec } from '../migration-policy/lookup.ts';
import { EMIGRANT_SELECTION_REGISTRY } from '../migration-policy/emigrant-selections/registry.ts';
import { REPLACEMENT_REGISTRY } from '../migration-policy/replacements/registry.ts';
import type { PolicyRegistries } from '../migration-policy/lookup.ts';
import { POLICY_DEFAULTS } from '../migration-policy/defaults.ts';
import { optionKey, policyFamilies } from '../migration-policy/names.ts';
import { policyField, policyFileShape, policyOptionFields, resolvePolicy } from '../migration-policy/schema.ts';
import { fields as fieldKit, type Fields } from '../schema/fields.ts';
import { defaultKind, keyOwners, type UnionToIntersection } from '../schema/registry.ts';
import type { Locator } from './locator.ts';

const PURPOSE = { emigrantSelection: 'which members leave', replacement: 'how immigrants enter the population' } as const;

/**
 * `emigrantSelection` and `replacement` (defaults: POLICY_DEFAULTS) and every policy
 * option; `taken` are the section's other keys, which no option key may reuse.
 */
export function migrationPolicyFields(registries: PolicyRegistries, taken: readonly string[]): Record<string, z.ZodType> {
  const fields: Record<string, z.ZodType> = {};
  for (const [key, registry] of policyFamilies(registries))
    fields[key] = policyField(registry, PURPOSE[key]).default(
      defaultKind(
        registry.map((d) => d.kind),
        POLICY_DEFAULTS[key],
      ),
    );
  const options = policyOptionFields(registries);
  keyOwners(
    [['migration', [...taken, ...Object.keys(fields)]], ...Object.keys(options).map((k) => ['a policy', [k]] as const)],
    'migration key',
  );
  return { ...fields, ...options };
}

/**
 * An island group's policy keys (`islandGroups.<name>.migration`): the same names and options,
 * none defaulted, since a key the group does not give is the run's.
 */
export function groupPolicyFields(registries: PolicyRegistries): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, registry] of policyFamilies(registries))
    shape[key] = policyField(registry, `${PURPOSE[key]} on these islands; absent = migration.${key}`).optional();
  return { ...shape, ...policyOptionFields(registries) };
}

/**
 * The policy keys an island group runs: the run's (`migration`), with the group's in their
 * place. A group that names a policy takes none of the run's options of that family: its
 * options are its own, or the policy's defaults.
 */
export function groupPolicyKeys(
  migration: Record<string, unknown>,
  group: Record<string, unknown>,
  registries: PolicyRegistries,
): Record<string, unknown> {
  const merged = { ...migration };
  for (const [key, registry] of policyFamilies(registries)) {
    if (group[key] === undefined) continue;
    for (const d of registry) for (const option of Object.keys(d.options(fieldKit))) delete merged[optionKey(d.kind, option)];
  }
  for (const [key, value] of Object.entries(group)) if (value !== undefined) merged[key] = value;
  return merged;
}

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type OptionInputs<D> = D extends { kind: infer K extends string; options(f: Fields): infer S extends z.ZodRawShape }
  ? { [O in keyof S & string as `${Camel<K>}${Capitalize<O>}`]?: z.input<S[O]> }
  : never;
type Registered = (typeof EMIGRANT_SELECTION_REGISTRY)[number] | (typeof REPLACEMENT_REGISTRY)[number];

/**
 * A policy's names as a config may write them: its kind, and `kind(N)` (the inline option:
 * the definitions' types do not say which kinds take one, so the types allow it for every kind
 * and the schema refuses it where it does not fit, as it refuses a value out of range).
 */
type NamesOf<D> = D extends { kind: infer K extends string } ? K | `${K}(${number})` : never;
/**
 * Names of the policies extension modules register, for the types: a library user who
 * registers one augments these beside it, and the names pass the types like the built-in
 * ones while a typo does not:
 *
 *     declare module 'nqueens-islands' { interface ExtraEmigrantSelections { 'my-policy': true } }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ExtraEmigrantSelections {}
/** As ExtraEmigrantSelections, for replacements. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ExtraReplacements {}
/** A registered emigrant selection's name (editors complete these): a built-in one, or one of ExtraEmigrantSelections. */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- never until an extension augments the interface
export type EmigrantSelectionName = NamesOf<(typeof EMIGRANT_SELECTION_REGISTRY)[number]> | (keyof ExtraEmigrantSelections & string);
/** As EmigrantSelectionName, for replacements. */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- never until an extension augments the interface
export type ReplacementName = NamesOf<(typeof REPLACEMENT_REGISTRY)[number]> | (keyof ExtraReplacements & string);

/** What a file's `migration` may say about policies (for library users' types): the names and every registered option. */
export type MigrationPolicyInput = { emigrantSelection?: EmigrantSelectionName; replacement?: ReplacementName } & UnionToIntersection<
  OptionInputs<Registered>
>;

export interface MigrationPolicies {
  emigrantSelection: EmigrantSelectionSpec;
  replacement: ReplacementSpec;
}

/** The specs a parsed `migration` section names, each policy's options checked against the run. */
export function resolveMigrationPolicies(
  migration: Record<string, unknown>,
  populationSize: number,
  at: Pick<Locator, 'fail'>,
  registries: PolicyRegistries,
): MigrationPolicies {
  const ctx = {
    populationSize,
    fail: (key: string, message: string, related?: readonly string[]) => at.fail(['migration', key], message, related),
  };
  return {
    emigrantSelection: resolvePolicy('emigrantSelection', registries.emigrantSelections, migration, ctx) as EmigrantSelectionSpec,
    replacement: resolvePolicy('replacement', registries.replacements, migration, ctx) as ReplacementSpec,
  };
}

/** The specs written back as `migration` keys. */
export function migrationPoliciesFileShape(
  policies: { emigrantSelection: { kind: string }; replacement: { kind: string } },
  registries: PolicyRegistries,
): Record<string, unknown> {
  return {
    ...policyFileShape('emigrantSelection', registries.emigrantSelections, policies.emigrantSelection),
    ...policyFileShape('replacement', registries.replacements, policies.replacement),
  };
}
