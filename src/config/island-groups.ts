/**
 * `islandGroups`: islands with settings of their own (docs/heterogeneous.md). The file shape
 * (a mapping from a group's name to its islands, `ga` keys and migration policy keys, built
 * from the GA mode and policy registries), its resolution into `IslandGroup`s (a group's keys
 * laid over the run's and checked as the run's are, every message naming
 * `islandGroups.<name>...`), and the way back to the file.
 */
import { RESERVED_KEYS, reservedKeyProblem } from '../io/json-text.ts';
import { z } from 'zod';
import type { IslandGroup } from '../archipelago/island-options.ts';
import type { GaConfig, GaModeRegistry } from '../ga/create-evolver.ts';
import { expected, fields, oneOf, section } from '../schema/fields.ts';
import { optionalOption } from '../schema/registry.ts';
import { gaFileShape, gaSection, resolveGaSection } from './ga-section.ts';
import type { Locator } from './locator.ts';
import { groupPolicyFields, groupPolicyKeys, migrationPoliciesFileShape, resolveMigrationPolicies } from './migration-policies.ts';
import { applyOverrides } from './overrides.ts';
import { migrantsCount, migrantsSchema } from './migrants.ts';
import type { Registries } from './registries.ts';

/** Group names are config keys: a dotted sweep path (`islandGroups.hot.ga.mutationProbability`) must reach them. */
const GROUP_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const nameError = { error: expected('a group name: a letter, then letters, digits, - or _') };
const islandsError = { error: expected('a list of 0-based island ids, or a count of islands (an integer >= 1)') };

/** A group as a file holds it. */
export interface IslandGroupInput {
  islands: number | number[];
  ga?: Record<string, unknown>;
  migration?: Record<string, unknown>;
}

/** A group's `ga`: every mode's keys, none defaulted (a key the group does not give is the run's). */
function groupGaSection(registry: GaModeRegistry) {
  const kinds = registry.map((d) => d.kind) as [string, ...string[]];
  const shape: Record<string, z.ZodType> = {
    mode: oneOf(kinds)
      .optional()
      .describe("GA variant on these islands; absent = ga.mode (a different mode takes none of the run's ga keys)"),
  };
  for (const d of registry)
    for (const [key, schema] of Object.entries(d.options(fields)))
      if (!(key in shape)) shape[key] = optionalOption(schema as z.ZodType, key);
  return section(shape);
}

/** The `islandGroups` key of a run config, from `registries`. */
export function islandGroupsField(registries: Registries) {
  const group = section({
    islands: z
      .union([
        z.number(islandsError).int(islandsError).min(1, islandsError),
        z.array(z.number(islandsError).int(islandsError).min(0, islandsError), islandsError).min(1, islandsError),
      ])
      .describe('the islands of the group: a list of 0-based ids, or a count (the lowest islands no list names and no earlier count took)'),
    ga: groupGaSection(registries.gaModes)
      .optional()
      .describe("ga keys for these islands, laid over the run's ga (any key not given is the run's)"),
    migration: section({
      migrants: migrantsSchema
        .optional()
        .describe(
          "emigrants per migration from these islands; absent = migration.migrants (a fraction or percentage is of this group's population)",
        ),
      ...groupPolicyFields(registries),
    })
      .optional()
      .describe("migrants, emigrantSelection, replacement and the policies' options for these islands (any key not given is the run's)"),
  });
  // Not a name every object has a property of (`constructor`): files and flags refuse it as they parse, the library here.
  const name = z
    .string(nameError)
    .regex(GROUP_NAME, nameError)
    .refine((key) => !RESERVED_KEYS.has(key));
  const groups = z.record(name, group, {
    // A bad name is reported at the name (`islandGroups.0x`), in the name's words.
    error: (iss) =>
      iss.code !== 'invalid_key'
        ? expected('a mapping from group names to groups')(iss)
        : RESERVED_KEYS.has(String(iss.path?.at(-1)))
          ? reservedKeyProblem(String(iss.path?.at(-1)))
          : nameError.error({ ...iss, input: iss.path?.at(-1) }),
  }) as unknown as z.ZodType<IslandGroupsValue, IslandGroupsValue>;
  return groups
    .nullable()
    .default(null)
    .describe(
      "islands with settings of their own: { <name>: { islands, ga, migration } }; islands in no group run the run's settings; null = none",
    );
}

/** A parsed `islandGroups` value (null: none). */
export type IslandGroupsValue = Record<string, IslandGroupInput>;

/** What resolving the groups needs of the run. */
export interface IslandGroupsContext {
  n: number;
  islands: number;
  /** The run's `ga` as the file (and flags) gave it, and resolved. */
  rawGa: unknown;
  ga: GaConfig;
  /** The run's parsed `migration` section (its emigrants per migration and policy keys). */
  migration: { migrants: number | string } & Record<string, unknown>;
  at: Locator;
  registries: Registries;
}

/** A locator for keys under `prefix` (a group's `ga.populationSize` is `islandGroups.<name>.ga.populationSize`). */
function within(at: Locator, prefix: readonly PropertyKey[]): Pick<Locator, 'fail'> {
  return {
    fail: (path: string | readonly PropertyKey[], message: string, related?: readonly string[]) =>
      at.fail([...prefix, ...(typeof path === 'string' ? path.split('.') : path)], message, related),
  };
}

/** Each group's islands: lists as given (checked), then counts from the lowest islands left. */
function assignIslands(groups: IslandGroupsValue, islands: number, at: Locator): Map<string, number[]> {
  const owner = new Array<string | undefined>(islands);
  const assigned = new Map<string, number[]>();
  for (const [name, { islands: given }] of Object.entries(groups)) {
    if (typeof given === 'number') continue;
    given.forEach((id, j) => {
      const path = ['islandGroups', name, 'islands', j];
      if (id >= islands) at.fail(path, `island ${id} does not exist; with ${islands} islands, ids are 0..${islands - 1}`, ['islands']);
      const other = owner[id];
      if (other !== undefined)
        at.fail(
          path,
          `island ${id} is already in ${other === name ? 'this group' : `group ${other}`}; expected each island in one group at most`,
        );
      owner[id] = name;
    });
    assigned.set(
      name,
      [...given].sort((a, b) => a - b),
    );
  }
  let next = 0;
  for (const [name, { islands: count }] of Object.entries(groups)) {
    if (typeof count !== 'number') continue;
    const taken: number[] = [];
    for (; taken.length < count && next < islands; next++) if (owner[next] === undefined) taken.push(next);
    if (taken.length < count)
      at.fail(
        ['islandGroups', name, 'islands'],
        `${count} islands, but ${taken.length} of the ${islands} are left (no list names them and no earlier count took them); expected at most ${taken.length}`,
        ['islands'],
      );
    for (const id of taken) owner[id] = name;
    assigned.set(name, taken);
  }
  return assigned;
}

/** A group's GA: its keys over the run's `ga` (a mode of its own drops the run's keys), parsed and resolved as the run's. */
function groupGa(name: string, given: Record<string, unknown>, ctx: IslandGroupsContext): GaConfig {
  const prefix = ['islandGroups', name, 'ga'];
  const registry = ctx.registries.gaModes;
  const { ga: merged } = applyOverrides({ ga: ctx.rawGa ?? {} }, { ga: given }) as { ga: unknown };
  const parsed = gaSection(registry).safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    ctx.at.fail([...prefix, ...issue.path], issue.message);
  }
  const mode = parsed.data.mode;
  const endsAlone = [mode, ctx.ga.mode].find((m) => registry.find((d) => d.kind === m)?.defaultMaxIterations !== undefined);
  if (mode !== ctx.ga.mode && endsAlone !== undefined)
    ctx.at.fail(
      [...prefix, 'mode'],
      `${mode} beside the run's ${ctx.ga.mode}: a ${endsAlone} run needs that mode on every island; expected ${ctx.ga.mode}`,
      ['ga.mode'],
    );
  return resolveGaSection(parsed.data, ctx.n, ctx.islands, within(ctx.at, ['islandGroups', name]), registry);
}

function resolveGroup(name: string, given: IslandGroupsValue[string], islands: number[], ctx: IslandGroupsContext): IslandGroup {
  const ga = groupGa(name, given.ga ?? {}, ctx);
  // A fraction or percentage of the population is of this group's.
  const migrants = migrantsCount((given.migration?.migrants as number | string | undefined) ?? ctx.migration.migrants, ga.populationSize);
  if (migrants > ga.populationSize)
    ctx.at.fail(
      [
        'islandGroups',
        name,
        given.migration?.migrants === undefined ? 'ga' : 'migration',
        given.migration?.migrants === undefined ? 'populationSize' : 'migrants',
      ],
      given.migration?.migrants === undefined
        ? `${ga.populationSize} is less than the ${migrants} emigrants per migration (migration.migrants); expected at least ${migrants}`
        : `${migrants} emigrants is more than this group's populationSize (${ga.populationSize}); expected at most ${ga.populationSize}`,
      ['migration.migrants'],
    );
  const keys = groupPolicyKeys(ctx.migration, given.migration ?? {}, ctx.registries);
  const at = within(ctx.at, ['islandGroups', name]);
  const { emigrantSelection, replacement } = resolveMigrationPolicies(keys, ga.populationSize, at, ctx.registries);
  return { name, islands, ga, migrants, emigrantSelection, replacement };
}

/** The groups a parsed `islandGroups` names, resolved; undefined for none (null or an empty mapping). */
export function resolveIslandGroups(groups: IslandGroupsValue | null, ctx: IslandGroupsContext): IslandGroup[] | undefined {
  if (groups === null || Object.keys(groups).length === 0) return undefined;
  const islands = assignIslands(groups, ctx.islands, ctx.at);
  return Object.entries(groups).map(([name, group]) => resolveGroup(name, group, islands.get(name)!, ctx));
}

/** The GA settings the islands of a run use: the run's (if an island is in no group) and every group's. */
export function gaInUse(run: { islands: number; ga: GaConfig; islandGroups?: readonly IslandGroup[] }): GaConfig[] {
  const groups = run.islandGroups ?? [];
  const grouped = groups.reduce((sum, group) => sum + group.islands.length, 0);
  return [...(grouped < run.islands ? [run.ga] : []), ...groups.map((group) => group.ga)];
}

/** The groups written back as `islandGroups` (every setting explicit: reading it back gives the same groups). */
export function islandGroupsFileShape(groups: readonly IslandGroup[], registries: Registries): Record<string, IslandGroupInput> {
  return Object.fromEntries(
    groups.map(({ name, islands, ga, migrants, emigrantSelection, replacement }) => [
      name,
      {
        islands: [...islands],
        ga: gaFileShape(ga, registries.gaModes),
        migration: {
          migrants,
          ...migrationPoliciesFileShape(
            { emigrantSelection, replacement: typeof replacement === 'string' ? { kind: replacement } : replacement },
            registries,
          ),
        },
      },
    ]),
  );
}
