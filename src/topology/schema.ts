/**
 * The `topology` section of a run config, built from the topology registry: one strict
 * mapping with `kind` and every kind's options (a file may name only its own kind's), and
 * the resolution that applies the kind's defaults and island-count checks. The config
 * layer uses both; `buildTopology` is the checked entry for code that has a spec of its own.
 */
import { z } from 'zod';
import { expectedName, fields, formatPath, type Fields } from '../schema/fields.ts';
import { summaries } from '../schema/plug-in.ts';
import { defaultKind, keyOwners, optionalOption, optionNames, ownOptions, type UnionToIntersection } from '../schema/registry.ts';
import { TopologyError } from './errors.ts';
import {
  edgesOf,
  MAX_ISLANDS,
  TOPOLOGY_KINDS,
  topologyDefinition,
  type Edge,
  type TopologyKind,
  type TopologyRegistry,
  type TopologySpec,
} from './topology.ts';
import { TOPOLOGY_DEFAULTS } from './kinds/defaults.ts';
import type { TopologyContext } from './kinds/define.ts';
import { TOPOLOGY_REGISTRY } from './kinds/registry.ts';

/** Which kind owns each option name. */
function optionOwners(registry: TopologyRegistry): Map<string, string> {
  return keyOwners(
    registry.map((d) => [d.kind, optionNames(d)] as const),
    'topology option',
  );
}

type Registered = (typeof TOPOLOGY_REGISTRY)[number];
type OptionsOf<D> = D extends { options(f: Fields): infer S extends z.ZodRawShape } ? S : never;

/** What a file's `topology` may hold: a registered kind and any registered kind's options (for library users' types). */
export type TopologyInput = { kind?: TopologyKind } & Partial<z.input<z.ZodObject<UnionToIntersection<OptionsOf<Registered>>>>>;

/** A parsed `topology` section: the kind and whatever options the file gave. */
export type TopologySectionValue = { kind: string } & Record<string, unknown>;

/** The `topology` section: `kind` (default: TOPOLOGY_DEFAULTS.kind) and every kind's options, all optional here. */
export function topologySection(registry: TopologyRegistry = TOPOLOGY_REGISTRY): z.ZodType<TopologySectionValue, TopologyInput> {
  const kinds = registry.map((d) => d.kind) as [string, ...string[]];
  const shape: Record<string, z.ZodType> = {
    kind: fields
      .oneOf(kinds)
      .default(defaultKind(kinds, TOPOLOGY_DEFAULTS.kind))
      .describe(`who sends migrants to whom: ${summaries(registry)}`),
  };
  for (const d of registry) {
    // Defaults belong to the option's own kind: `resolveTopology` applies them once the kind is known.
    for (const [option, schema] of Object.entries(d.options(fields))) shape[option] = optionalOption(schema as z.ZodType, option);
  }
  return fields.section(shape) as unknown as z.ZodType<TopologySectionValue, TopologyInput>;
}

/**
 * The resolved spec: refuses another kind's options, applies the kind's own schema (its
 * defaults) and its `resolve` (island-count checks and defaults).
 */
export function resolveTopology(
  section: TopologySectionValue,
  ctx: TopologyContext,
  registry: TopologyRegistry = TOPOLOGY_REGISTRY,
): TopologySpec {
  const { kind, ...given } = section;
  const owners = optionOwners(registry);
  for (const [option, value] of Object.entries(given)) {
    const owner = owners.get(option);
    if (value !== undefined && owner !== kind)
      ctx.fail(option, `only used with topology.kind "${owner}", not "${kind}"; remove it`, ['topology.kind']);
  }
  const definition = topologyDefinition(kind, registry);
  const options = ownOptions(definition.options(fields), given);
  const resolved = definition.resolve ? definition.resolve(options, ctx) : options;
  return { kind, ...resolved } as TopologySpec;
}

/**
 * The directed edges of a topology given as a config file would give it (`{ kind: 'grid',
 * rows: 2 }`), checked as the config checks it. @throws TopologyError naming the option.
 */
export function buildTopology(spec: unknown, islands: number, seed: number, registry: TopologyRegistry = TOPOLOGY_REGISTRY): Edge[] {
  if (!Number.isInteger(islands) || islands < 1)
    throw new TopologyError(`topology needs a positive integer island count, got ${String(islands)}`);
  // Refused before any edge is made: a fully connected topology of a million islands would fill the heap.
  if (islands > MAX_ISLANDS) throw new TopologyError(`topology: at most ${MAX_ISLANDS} islands, got ${islands}`);
  const parsed = topologySection(registry).safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const kinds = registry === TOPOLOGY_REGISTRY ? TOPOLOGY_KINDS : registry.map((d) => d.kind);
    const at = issue.path.length > 0 ? `topology.${formatPath(issue.path)}: ` : 'topology: ';
    throw new TopologyError(
      issue.path[0] === 'kind'
        ? `topology.kind: ${expectedName(`one of ${kinds.join(', ')}`, kinds)({ ...issue, input: (spec as { kind?: unknown } | null)?.kind } as never) as string}`
        : `${at}${issue.message}`,
    );
  }
  const fail = (key: string | readonly (string | number)[], message: string): never => {
    const path = typeof key === 'string' ? (key.startsWith('/') ? [key.slice(1)] : ['topology', key]) : ['topology', ...key];
    throw new TopologyError(`${formatPath(path)}: ${message}`);
  };
  const resolved = resolveTopology(parsed.data, { islands, islandsText: String(islands), fail }, registry);
  return edgesOf(resolved, islands, seed, registry);
}
