/**
 * The schema of a resolved run config (`RunConfig` with its seed: every default filled, every
 * policy a spec). What crosses a process or the network (a checkpoint file, a study's run
 * order, a host's island order) carries the resolved config itself, with
 * `RESOLVED_CONFIG_VERSION`, and is checked against this on arrival: never written back in
 * the file shape and resolved again. Built from the registries, as the file schema is: a
 * registry entry's options are its resolved spec's fields; a GA mode's parameters are its
 * `params` fields, or its options when it has none.
 */
import { z } from 'zod';
import type { RunSpec } from '../archipelago/island-options.ts';
import { fields, formatPath } from '../schema/fields.ts';
import { REGISTRIES, type Registries } from './registries.ts';
import type { RunConfig } from './run-config.ts';
import { MAX_ISLANDS } from '../topology/topology.ts';
import { MAX_THREADS } from './defaults.ts';
import { clusterSchema, ON_ISLAND_ERROR } from './schema.ts';
import { MAX_TIME_LIMIT_SECONDS } from './defaults.ts';

/** Bump when the resolved config changes shape or meaning (what checkpoints and bus orders carry). */
export const RESOLVED_CONFIG_VERSION = 1;

const { int, oneOf, boolean, section } = fields;
const count = (min: number) => int(min, { max: Number.MAX_SAFE_INTEGER });

type Entry = { kind: string; options(f: typeof fields): z.ZodRawShape };

/** One strict branch per entry: its kind and its options' fields. */
function specOf<E extends Entry>(
  registry: readonly E[],
  key: 'kind' | 'mode' = 'kind',
  shapeOf: (d: E) => z.ZodRawShape = (d) => d.options(fields),
): z.ZodType {
  const branches = registry.map((d) => section({ [key]: z.literal(d.kind), ...shapeOf(d) }));
  return branches.length === 1 ? branches[0] : z.discriminatedUnion(key, branches as unknown as [z.ZodObject, z.ZodObject]);
}

function runSpecShape(registries: Registries) {
  const { gaModes, migrationModes, topologies, emigrantSelections, replacements } = registries;
  const ga = specOf(gaModes, 'mode', (mode) => (mode.params ? mode.params(fields) : mode.options(fields)));
  const policies = {
    emigrantSelection: specOf(emigrantSelections),
    // A replacement without options may be named by its kind alone.
    replacement: z.union([oneOf(replacements.map((d) => d.kind) as [string, ...string[]]), specOf(replacements)]),
  };
  return {
    n: count(1),
    seed: count(0),
    ga,
    islands: int(1, { max: MAX_ISLANDS }),
    topology: specOf(topologies),
    migration: section({
      mode: oneOf(migrationModes.map((m) => m.kind) as [string, ...string[]]),
      lag: int(0),
      interval: int(1),
      migrants: int(0),
      ...policies,
      rejectDuplicates: boolean(),
    }),
    // An island id out of range names no island; one listed twice runs its first group's (islandRunOf).
    islandGroups: z
      .array(section({ name: z.string(), islands: z.array(int(0, { max: MAX_ISLANDS - 1 })), ga, migrants: int(0), ...policies }))
      .optional(),
    limits: section({
      maxIterations: count(1).nullable(),
      maxEvaluations: count(1).nullable(),
      timeLimit: z.number().gt(0).max(MAX_TIME_LIMIT_SECONDS).nullable(),
    }),
    onIslandError: oneOf(ON_ISLAND_ERROR),
    lineage: boolean().optional(),
  };
}

/** A resolved run as islands take it (an island task's `run`). */
export function runSpecSchema(registries: Registries = REGISTRIES): z.ZodType<RunSpec> {
  return section(runSpecShape(registries)) as unknown as z.ZodType<RunSpec>;
}

/** A resolved run config with its seed decided (a checkpoint's, a study's run order's). */
export function seededRunConfigSchema(registries: Registries = REGISTRIES): z.ZodType<RunConfig & { seed: number }> {
  return section({
    ...runSpecShape(registries),
    output: section({ file: z.string().min(1).nullable() }),
    cluster: clusterSchema.nullable(),
    // Absent from what versions before threads wrote: the default placement.
    threads: int(1, { max: MAX_THREADS }).nullable().default(null),
  }) as unknown as z.ZodType<RunConfig & { seed: number }>;
}

/**
 * Each registries' schemas, made once: zod compiles a schema on its first parse, so a schema
 * made per call (a host checks every order it gets) costs milliseconds each time.
 */
const schemasOf = new WeakMap<Registries, { run: z.ZodType<RunSpec>; seeded: z.ZodType<RunConfig & { seed: number }> }>();

/**
 * Checks a resolved config that arrived from outside. Returns it, or one line saying what
 * is wrong (the first problem, by its key path).
 */
export function checkResolved<K extends 'run' | 'seeded'>(
  kind: K,
  value: unknown,
  registries: Registries = REGISTRIES,
): { config: K extends 'run' ? RunSpec : RunConfig & { seed: number } } | { problem: string } {
  let schemas = schemasOf.get(registries);
  if (!schemas) {
    schemas = { run: runSpecSchema(registries), seeded: seededRunConfigSchema(registries) };
    schemasOf.set(registries, schemas);
  }
  const schema = schemas[kind];
  const parsed = schema.safeParse(value);
  if (parsed.success) return { config: parsed.data as K extends 'run' ? RunSpec : RunConfig & { seed: number } };
  const issue = parsed.error.issues[0];
  const at = issue.path.length ? formatPath(issue.path) : 'the config';
  return { problem: `${at}: ${issue.message}` };
}
