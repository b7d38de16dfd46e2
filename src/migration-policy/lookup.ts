/**
 * The policy a resolved spec names, from a registry (an island's worker calls these). Specs
 * come from the checked run config, so the options are trusted; an unknown kind means a
 * registry the worker was not given (an extension module missing from `extensions`).
 */
import type { EmigrantSelection, ReplacementPolicy } from '../ga/migration-policy.ts';
import { plugInNamed, type Registry } from '../schema/plug-in.ts';
import type { SpecOf } from '../schema/registry.ts';
import { MigrationPolicyError } from './errors.ts';
import type { EmigrantSelectionDefinition, PolicyDefinition, ReplacementDefinition } from './define.ts';
import { EMIGRANT_SELECTION_REGISTRY } from './emigrant-selections/registry.ts';
import { REPLACEMENT_REGISTRY } from './replacements/registry.ts';

/** Any list of emigrant selections: the registry, or one with more (a test's, an extension's). */
export type EmigrantSelectionRegistry = Registry<EmigrantSelectionDefinition>;
export type ReplacementRegistry = Registry<ReplacementDefinition>;

/** A registered emigrant selection with its resolved options (`{ kind: 'tournament', size: 3 }`). */
export type EmigrantSelectionSpec = SpecOf<(typeof EMIGRANT_SELECTION_REGISTRY)[number]>;
/** A registered replacement with its resolved options. */
export type ReplacementSpec = SpecOf<(typeof REPLACEMENT_REGISTRY)[number]>;
export type ReplacementKind = ReplacementSpec['kind'];

/** The policies an island may be given: the registries, or copies with more (`../extension.ts`). */
export interface PolicyRegistries {
  emigrantSelections: EmigrantSelectionRegistry;
  replacements: ReplacementRegistry;
}

export const POLICY_REGISTRIES: PolicyRegistries = Object.freeze({
  emigrantSelections: EMIGRANT_SELECTION_REGISTRY,
  replacements: REPLACEMENT_REGISTRY,
});

/** A spec of some registry: its kind and options (a bare name is a kind without options). */
export type AnyPolicySpec = { kind: string; [option: string]: unknown } | string;

function policyFor<F>(key: string, registry: readonly PolicyDefinition<F>[], spec: AnyPolicySpec): F {
  const { kind, ...options } = typeof spec === 'string' ? { kind: spec } : spec;
  return plugInNamed(registry, kind, key, (message) => new MigrationPolicyError(message)).build(options);
}

/** The selection function a spec names. */
export function emigrantSelectionFor(
  spec: AnyPolicySpec,
  registry: EmigrantSelectionRegistry = EMIGRANT_SELECTION_REGISTRY,
): EmigrantSelection {
  return policyFor('migration.emigrantSelection', registry, spec);
}

/** The replacement policy a spec (or, for one without options, its name) picks. */
export function replacementFor(spec: AnyPolicySpec, registry: ReplacementRegistry = REPLACEMENT_REGISTRY): ReplacementPolicy {
  return policyFor('migration.replacement', registry, spec);
}
