/**
 * `resolveRunConfig`: merges CLI overrides into a file's content, validates it once with
 * the file schema, fills every default that depends on other values (islands, pairs, bad
 * repository, migrants as a count, the topology's island-count defaults), runs the
 * cross-field checks and returns a `RunConfig`. Nothing downstream re-checks. Every failure
 * is one `ConfigError` line naming the file (or flag), the key path and what was expected.
 */
import os from 'node:os';
import type { z } from 'zod';
import { resolveTopology } from '../topology/schema.ts';
import type { ConfigOverrides } from './overrides.ts';
import { Locator } from './locator.ts';
import { gaInitialEvaluations, gaMemory, resolveGaSection } from './ga-section.ts';
import { gaInUse, resolveIslandGroups } from './island-groups.ts';
import { threadsFor } from '../archipelago/threads.ts';
import {
  estimateMemory,
  fitRunSize,
  fittedNote,
  gb,
  noteFitted,
  plannedBytes,
  PLANNED_BYTES_PER_QUEEN,
  PLANNED_FLOOR_BYTES,
  readMemoryLimits,
  runMemoryAdvice,
  runMigrants,
  type MemoryLimits,
  type RunSize,
} from './memory.ts';
import { applyOverrides } from './overrides.ts';
import { defaultMigrationMode, defaultThreads } from './defaults.ts';
import { optionNames } from '../schema/registry.ts';
import { resolveMigrationPolicies } from './migration-policies.ts';
import { REGISTRIES, type Registries } from './registries.ts';
import type { MigrationConfig, RunConfig, TopologyConfig } from './run-config.ts';
import { migrantsCount } from './migrants.ts';
import { MAX_ISLANDS } from '../topology/topology.ts';
import { runConfigFileSchema, runConfigSchemaFor, type ParsedRunConfig } from './schema.ts';

type Parsed = ParsedRunConfig;

/** Machine facts the defaults and checks depend on; tests pass their own. */
export interface ResolveEnv extends MemoryLimits {
  availableParallelism: number;
}

export function systemEnv(): ResolveEnv {
  return { availableParallelism: os.availableParallelism(), ...readMemoryLimits() };
}

function resolveTopologySection(
  topology: Parsed['topology'],
  islands: number,
  islandsGiven: boolean,
  at: Locator,
  registries: Registries,
): TopologyConfig {
  const islandsText = islandsGiven ? `${islands}` : `${islands} (the available cores, as islands is null)`;
  const fail = (key: string | readonly (string | number)[], message: string, related: readonly string[] = []): never => {
    const path = typeof key === 'string' ? (key.startsWith('/') ? key.slice(1).split('.') : ['topology', key]) : ['topology', ...key];
    return at.fail(path, message, related);
  };
  return resolveTopology(topology, { islands, islandsText, fail }, registries.topologies);
}

function resolveMigration(
  migration: Parsed['migration'],
  mode: string,
  populationSize: number,
  at: Locator,
  registries: Registries,
): MigrationConfig {
  const { lag, interval, rejectDuplicates } = migration;
  const migrants = migrantsCount(migration.migrants, populationSize);
  if (migrants > populationSize) {
    at.fail(
      'migration.migrants',
      `${migrants} emigrants is more than ga.populationSize (${populationSize}); expected at most ${populationSize}`,
      ['ga.populationSize'],
    );
  }

  const { emigrantSelection, replacement } = resolveMigrationPolicies(migration, populationSize, at, registries);
  return { mode, lag, interval, migrants, emigrantSelection, replacement, rejectDuplicates };
}

/**
 * The mode a run uses: the one named; else, where a flag sets an option that only one mode
 * reads (`--lag`), that mode (`solve -n 8 --lag 3` is lagged, though the default at n = 8
 * is sync); else the default by board size (docs/defaults.md).
 */
function migrationModeOf(named: string | null, overrides: ConfigOverrides, n: number, registries: Registries): string {
  if (named !== null) return named;
  const given = (overrides.migration ?? {}) as Record<string, unknown>;
  const reading = registries.migrationModes.filter((m) => optionNames(m).some((key) => given[key] !== undefined));
  return reading.length === 1 ? reading[0].kind : defaultMigrationMode(n);
}

/**
 * A flag for an option of another migration mode (`--lag` with `--migration sync`) would be
 * dropped without a word: refused. A file's key is not (a printed config holds every key).
 */
function checkModeOptions(overrides: ConfigOverrides, mode: string, at: Locator, registries: Registries): void {
  const given = overrides.migration ?? {};
  const chosen = registries.migrationModes.find((m) => m.kind === mode);
  const own = chosen === undefined ? [] : optionNames(chosen);
  for (const other of registries.migrationModes) {
    for (const key of optionNames(other)) {
      if ((given as Record<string, unknown>)[key] === undefined || own.includes(key)) continue;
      at.fail(['migration', key], `only for migration mode ${other.kind}; the mode is ${mode}`, ['migration.mode']);
    }
  }
}

/** What the limits' resolution needs of the rest of the run. */
interface LimitsContext {
  islands: number;
  ga: RunConfig['ga'];
  islandGroups?: RunConfig['islandGroups'];
  /** The migration mode: a repeatable one keeps the evaluation ledger (over hosts too). */
  migrationMode: string;
  /** Why the budget is split into equal shares per island (no ledger): `a resumed checkpoint's islands`; undefined: the mode says. */
  shares?: string;
  at: Locator;
  registries: Registries;
}

/** Of the GA settings the run's islands use, the one that costs most by `measure` (its groups may differ). */
function costliestGa(
  run: Pick<LimitsContext, 'islands' | 'ga' | 'islandGroups'>,
  measure: (ga: RunConfig['ga']) => number,
): RunConfig['ga'] {
  return gaInUse(run).reduce((most, ga) => (measure(ga) > measure(most) ? ga : most));
}

/** The limits with the GA mode's default iteration limit (a mode whose runs need not end by themselves, takeover, has one when the config gives none). */
function resolveLimits(limits: Parsed['limits'], ctx: LimitsContext): Parsed['limits'] {
  const defaultMax = ctx.registries.gaModes.find((d) => d.kind === ctx.ga.mode)?.defaultMaxIterations;
  if (limits.maxIterations === null && defaultMax !== undefined) limits = { ...limits, maxIterations: defaultMax };
  return checkBudget(limits, ctx);
}

/** Each island's first population, in evaluations, by island id (a group's islands run its GA). */
function firstPopulations(ctx: LimitsContext): number[] {
  const cost = (ga: RunConfig['ga']) => gaInitialEvaluations(ga, ctx.registries.gaModes);
  const costs = new Array<number>(ctx.islands).fill(cost(ctx.ga));
  for (const group of ctx.islandGroups ?? []) for (const island of group.islands) costs[island] = cost(group.ga);
  return costs;
}

/**
 * A `maxEvaluations` budget must pay for every island's first population, or it could not be
 * kept exactly. Sync and lagged runs on one machine spend it together (the evaluation ledger,
 * archipelago/budget-ledger.ts): it must pay for the populations' sum, groups of other sizes
 * included. Elsewhere each island gets an equal share, which must pay for the largest.
 */
function checkBudget(limits: Parsed['limits'], ctx: LimitsContext): Parsed['limits'] {
  const { islands, at, registries } = ctx;
  const budget = limits.maxEvaluations;
  if (budget === null) return limits;
  const costs = firstPopulations(ctx);
  const ledger = ctx.shares === undefined && registries.migrationModes.find((m) => m.kind === ctx.migrationMode)?.repeatable === true;
  const initial = Math.max(...costs);
  const least = ledger ? costs.reduce((sum, cost) => sum + cost, 0) : islands * initial;
  if (budget >= least) return limits;
  const many = (count: number) => `${count} island${count === 1 ? '' : 's'}`;
  const kinds = [...new Set(costs)];
  const why =
    kinds.length === 1
      ? `${many(islands)} × ${initial} evaluations each`
      : ledger
        ? `their sum, ${kinds.map((c) => `${many(costs.filter((x) => x === c).length)} × ${c}`).join(' + ')} evaluations`
        : `${many(islands)} × ${initial} evaluations each (${ctx.shares ?? `migration mode ${ctx.migrationMode}`} split the budget in equal shares, and each must pay for the largest)`;
  const group = ctx.islandGroups?.find((g) => gaInitialEvaluations(g.ga, registries.gaModes) === initial);
  return at.fail('limits.maxEvaluations', `${budget} does not pay for the first populations: ${why}; expected at least ${least}`, [
    'islands',
    group ? `islandGroups.${group.name}.ga.populationSize` : 'ga.populationSize',
  ]);
}

/**
 * Validates a config file's content (`input`, as parsed from YAML/JSON) with CLI overrides
 * merged in, and returns the fully resolved run config. `source` names the file in messages;
 * `registries` are what the config may name (a test passes a copy with more).
 * @throws ConfigError with a one-line message.
 */
export function resolveRunConfig(
  input: unknown,
  source: string,
  overrides: ConfigOverrides = {},
  env: ResolveEnv = systemEnv(),
  registries: Registries = REGISTRIES,
): RunConfig {
  const at: Locator = new Locator(source, overrides); // annotated so its `never` methods narrow
  const merged = applyOverrides(input ?? {}, overrides);
  const schema = registries === REGISTRIES ? runConfigFileSchema : runConfigSchemaFor(registries);
  const parsed = schema.safeParse(merged);
  if (!parsed.success) at.fromZod(parsed.error, merged);
  if (Object.keys(overrides).length > 0) checkFileValues(input, merged, schema, source);
  const p = parsed.data;

  const islandsGiven = p.islands !== null;
  const rawGa = (merged as { ga?: unknown }).ga;
  const mode = migrationModeOf(p.migration.mode, overrides, p.n, registries);
  const sized = sizeToFit(p, { islandsGiven, rawGa, mode, env, at, registries });
  const { islands, ga, migration } = sized;
  checkModeOptions(overrides, migration.mode, at, registries);
  const groupsContext = { n: p.n, islands, rawGa, ga, migration: { ...p.migration, mode }, at, registries };
  const islandGroups = resolveIslandGroups(p.islandGroups, groupsContext);
  // Memory of each island's own GA, summed; a refusal blames the costliest.
  const heaviest = costliestGa({ islands, ga, islandGroups }, (g) => gaMemory(g, p.n, registries.gaModes).bytes);
  const tooBig = runMemoryAdvice({ n: p.n, islands, ga, migration, threads: p.threads, islandGroups }, env, registries);
  // A group's GA the costliest: its population is named (where it came from: the file or --island-groups), not -n.
  const group = islandGroups?.find((g) => g.ga === heaviest);
  if (tooBig && group) at.fail(['islandGroups', group.name, 'ga', 'populationSize'], tooBig, ['n']);
  if (tooBig) at.fail('n', tooBig, ['islands', 'ga.populationSize']);

  const config: RunConfig = {
    n: p.n,
    seed: p.seed ?? null,
    ga,
    islands,
    topology: resolveTopologySection(p.topology, islands, islandsGiven, at, registries),
    migration,
    ...(islandGroups ? { islandGroups } : {}),
    limits: resolveLimits(p.limits, {
      islands,
      ga,
      islandGroups,
      migrationMode: migration.mode,
      at,
      registries,
    }),
    onIslandError: p.onIslandError,
    // Only `false` is kept: a config that leaves lineage on has the hash it had before the key existed.
    ...(p.lineage ? {} : { lineage: false }),
    output: p.output,
    cluster: p.cluster,
    threads: p.threads,
  };
  if (sized.note !== null) noteFitted(config, sized.note);
  return config;
}

interface SizeContext {
  islandsGiven: boolean;
  rawGa: unknown;
  mode: string;
  env: ResolveEnv;
  at: Locator;
  registries: Registries;
}

/**
 * Islands, GA and migration as the config asks, or, where it leaves the island count or a
 * hybrid population to their defaults and those do not fit (the machine's memory, or for a
 * hybrid population what `plannedBytes` allows), the largest that fit (`fitRunSize`) and a
 * note saying so. Island groups keep their own sizes.
 */
function sizeToFit(p: Parsed, ctx: SizeContext) {
  const { env, at, registries } = ctx;
  const resolveAt = (size: RunSize) => {
    const ga = resolveGaSection({ ...p.ga, populationSize: size.populationSize }, p.n, size.islands, at, registries.gaModes);
    const migration = resolveMigration(p.migration, ctx.mode, ga.populationSize, at, registries);
    return { islands: size.islands, ga, migration };
  };
  const wanted = { islands: p.islands ?? Math.min(env.availableParallelism, MAX_ISLANDS), populationSize: p.ga.populationSize as number };
  const populationFree = p.ga.mode === 'hybrid' && (ctx.rawGa as { populationSize?: unknown } | undefined)?.populationSize === undefined;
  const free = { islands: !ctx.islandsGiven && p.islandGroups == null, population: populationFree && p.islandGroups == null };
  const bytesAt = (size: RunSize) => {
    const run = resolveAt(size);
    const threads = threadsFor(
      run.islands,
      p.threads ?? defaultThreads({ n: p.n, islandGroups: p.islandGroups, ...run }),
      env.availableParallelism,
    );
    return estimateMemory(p.n, run.islands, run.ga, runMigrants(run), registries, threads).bytes;
  };
  const machineFits = (size: RunSize) => {
    const { islands, ga, migration } = resolveAt(size);
    return runMemoryAdvice({ n: p.n, islands, ga, migration, threads: p.threads }, env, registries) === null;
  };
  const planned = plannedBytes(p.n);
  const fits = (size: RunSize) => machineFits(size) && (!free.population || bytesAt(size) <= planned);
  // Past the plan even at its smallest, the smallest run size the machine takes.
  const smallest = { islands: free.islands ? 1 : wanted.islands, populationSize: free.population ? 2 : wanted.populationSize };
  const got =
    !free.islands && !free.population
      ? null
      : fits(wanted)
        ? null
        : (fitRunSize(wanted, free, fits) ?? (machineFits(smallest) ? smallest : fitRunSize(wanted, free, machineFits)));
  if (got === null) return { ...resolveAt(wanted), note: null };
  const limit = machineFits(wanted)
    ? `the ${gb(planned)} a default hybrid run plans at this N (${PLANNED_BYTES_PER_QUEEN} bytes a queen, at least ${gb(PLANNED_FLOOR_BYTES)})`
    : 'what this machine allows';
  const note = fittedNote(p.n, { ...wanted, bytes: bytesAt(wanted) }, { ...got, bytes: bytesAt(got) }, limit);
  return { ...resolveAt(got), note };
}

/** The value at a key path, or undefined. */
function valueOn(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const key of path) node = node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined;
  return node;
}

/**
 * Every value the file holds is checked, also one a flag (or a sweep) overrides or a change
 * of kind drops: `seed: 1.5` with `--seed 1` is the file's fault, named as the file's. A key
 * the file leaves out is not asked for here (a flag may give it), nor a cross-field rule.
 */
function checkFileValues(input: unknown, merged: unknown, schema: z.ZodType, source: string): void {
  if (input === null || input === undefined) return;
  const alone = schema.safeParse(input);
  if (alone.success) return;
  const issue = alone.error.issues.find((i) => {
    const value = valueOn(input, i.path);
    return i.code !== 'custom' && value !== undefined && value !== valueOn(merged, i.path);
  });
  if (issue !== undefined) new Locator(source, {}).fail(issue.path, issue.message);
}

/**
 * Config keys a resumed run may change: how long it runs, what happens on failure, where the
 * result goes, and the threads its islands share (placement only: a sync or lagged record is
 * the same for any count).
 */
export const RESUMABLE_KEYS = [
  'limits.maxIterations',
  'limits.maxEvaluations',
  'limits.timeLimit',
  'onIslandError',
  'output.file',
  'threads',
] as const;
/** Their sections. */
const RESUMABLE_SECTIONS = ['limits', 'onIslandError', 'output', 'threads'] as const satisfies readonly (keyof RunConfig)[];

/**
 * A resolved config (a checkpoint's) with overrides of its resumable keys applied: those
 * values are checked by the file schema's fields and the limits' cross-field checks, and
 * the rest of the config is taken as it is, not resolved again. Overrides of other keys
 * are the caller's to refuse.
 * @throws ConfigError with a one-line message.
 */
export function withResumableOverrides<C extends RunConfig>(
  config: C,
  source: string,
  overrides: ConfigOverrides,
  registries: Registries = REGISTRIES,
): C {
  const at: Locator = new Locator(source, overrides);
  const given = Object.fromEntries(RESUMABLE_SECTIONS.filter((key) => overrides[key] !== undefined).map((key) => [key, overrides[key]]));
  if (Object.keys(given).length === 0) return config;
  const saved = Object.fromEntries(RESUMABLE_SECTIONS.map((key) => [key, config[key]]));
  const merged = applyOverrides(saved, given);
  const schema = (registries === REGISTRIES ? runConfigFileSchema : runConfigSchemaFor(registries)).pick({
    limits: true,
    onIslandError: true,
    output: true,
    threads: true,
  });
  const parsed = schema.safeParse(merged);
  if (!parsed.success) at.fromZod(parsed.error, merged);
  const { limits, onIslandError, output, threads } = parsed.data;
  return {
    ...config,
    // A resumed checkpoint may have run without the ledger (island-runner.ts): its budget is held to equal shares.
    limits: checkBudget(limits, {
      ...config,
      migrationMode: config.migration.mode,
      shares: "a resumed checkpoint's islands",
      at,
      registries,
    }),
    onIslandError,
    output,
    threads,
  };
}
