/**
 * `resolveRunConfig`: merges CLI overrides into a file's content, validates it once with
 * the file schema, fills every default that depends on other values (islands, pairs, bad
 * repository, migrants as a count, the topology's island-count defaults), runs the
 * cross-field checks and returns a `RunConfig`. Nothing downstream re-checks. Every failure
 * is one `ConfigError` line naming the file (or flag), the key path and what was expected.
 */
import os from 'node:os';
import { resolveTopology } from '../archipelago/topology-schema.ts';
import { hybridParams, type HybridOperators } from '../ga/hybrid/params.ts';
import { describeValue } from '../schema/fields.ts';
import type { ConfigOverrides } from './flags.ts';
import { Locator } from './locator.ts';
import { estimateMemoryBytes, gb, memoryParts, MEMORY_SHARE } from './memory.ts';
import { applyOverrides } from './overrides.ts';
import type { EmigrantSelection, GaConfig, HybridGaConfig, MigrationConfig, RunConfig, TopologyConfig } from './run-config.ts';
import { MAX_ISLANDS, PERCENT, runConfigFileSchema, TOURNAMENT, type ParsedRunConfig } from './schema.ts';

type Parsed = ParsedRunConfig;

/** Machine facts the defaults and checks depend on; tests pass their own. */
export interface ResolveEnv {
  availableParallelism: number;
  /** Bytes of physical memory. */
  totalMemory: number;
}

export function systemEnv(): ResolveEnv {
  return { availableParallelism: os.availableParallelism(), totalMemory: os.totalmem() };
}

type HybridGaParsed = Extract<Parsed['ga'], { mode: 'hybrid' }>;

function resolveHybrid(ga: HybridGaParsed, n: number): HybridGaConfig {
  const { mode, populationSize, childrenPerGeneration, crossoverProbability, swapDelta, ...named } = ga;
  const operators: Partial<HybridOperators> = { swapDelta };
  for (const [key, value] of Object.entries(named)) if (value !== undefined) Object.assign(operators, { [key]: value });
  if (crossoverProbability !== null) operators.crossover = { probability: crossoverProbability };
  const { n: _n, ...params } = hybridParams(n, { populationSize, childrenPerGeneration, operators });
  return { mode, ...params };
}

function resolveGa(ga: Parsed['ga'], n: number, at: Locator): GaConfig {
  if (ga.mode === 'hybrid') return resolveHybrid(ga, n);
  if (ga.doubleMutationProbability > ga.mutationProbability) {
    at.fail('ga.doubleMutationProbability', `${ga.doubleMutationProbability} is more than ga.mutationProbability (${ga.mutationProbability}); a double mutation is a kind of mutation, so expected a number <= ${ga.mutationProbability}`, ['ga.mutationProbability']);
  }
  return {
    ...ga,
    pairsPerIteration: ga.pairsPerIteration ?? Math.floor(ga.populationSize / 2),
    badRepositorySize: ga.badRepositorySize ?? Math.floor(Math.sqrt(n)),
  };
}

function resolveTopologySection(topology: Parsed['topology'], islands: number, islandsGiven: boolean, at: Locator): TopologyConfig {
  const islandsText = islandsGiven ? `${islands}` : `${islands} (the available cores, as islands is null)`;
  const fail = (key: string | readonly (string | number)[], message: string, related: readonly string[] = []): never => {
    const path = typeof key === 'string' ? (key.startsWith('/') ? key.slice(1).split('.') : ['topology', key]) : ['topology', ...key];
    return at.fail(path, message, related);
  };
  return resolveTopology(topology, { islands, islandsText, fail });
}

function resolveMigration(migration: Parsed['migration'], populationSize: number, at: Locator): MigrationConfig {
  const { migrants: rawMigrants, emigrantSelection: rawSelection, tournamentSize, ...rest } = migration;
  let migrants: number;
  if (typeof rawMigrants === 'string') migrants = Math.max(1, Math.round((Number(PERCENT.exec(rawMigrants)![1]) / 100) * populationSize));
  else if (rawMigrants < 1) migrants = Math.max(1, Math.round(rawMigrants * populationSize));
  else migrants = rawMigrants;
  if (migrants > populationSize) {
    at.fail('migration.migrants', `${migrants} emigrants is more than ga.populationSize (${populationSize}); expected at most ${populationSize}`, ['ga.populationSize']);
  }

  let emigrantSelection: EmigrantSelection;
  const sized = TOURNAMENT.exec(rawSelection);
  if (rawSelection === 'best' || rawSelection === 'random') {
    emigrantSelection = { kind: rawSelection };
  } else {
    const size = sized ? Number(sized[1]) : (tournamentSize ?? 2);
    if (sized && tournamentSize !== undefined && tournamentSize !== size) {
      at.fail('migration.tournamentSize', `${tournamentSize} contradicts emigrantSelection "${rawSelection}"; give the size once`);
    }
    if (size < 2) at.fail('migration.emigrantSelection', `expected a tournament of size >= 2, got ${describeValue(rawSelection)}`);
    if (size > populationSize) {
      at.fail(sized ? 'migration.emigrantSelection' : 'migration.tournamentSize', `a tournament of ${size} is more than ga.populationSize (${populationSize})`, ['ga.populationSize']);
    }
    emigrantSelection = { kind: 'tournament', size };
  }
  return { ...rest, migrants, emigrantSelection };
}

/**
 * Validates a config file's content (`input`, as parsed from YAML/JSON) with CLI overrides
 * merged in, and returns the fully resolved run config. `source` names the file in messages.
 * @throws ConfigError with a one-line message.
 */
export function resolveRunConfig(
  input: unknown,
  source: string,
  overrides: ConfigOverrides = {},
  env: ResolveEnv = systemEnv(),
): RunConfig {
  const at: Locator = new Locator(source, overrides); // annotated so its `never` methods narrow
  const merged = applyOverrides(input ?? {}, overrides);
  const parsed = runConfigFileSchema.safeParse(merged);
  if (!parsed.success) at.fromZod(parsed.error, merged);
  const p = parsed.data;

  const islandsGiven = p.islands !== null;
  const islands = p.islands ?? Math.min(env.availableParallelism, MAX_ISLANDS);
  const ga = resolveGa(p.ga, p.n, at);

  const bytes = estimateMemoryBytes(p.n, islands, ga);
  const limit = MEMORY_SHARE * env.totalMemory;
  if (bytes > limit) {
    at.fail('n', `${p.n} needs about ${gb(bytes)} for ${islands} island${islands === 1 ? '' : 's'} (${memoryParts(ga, p.n)}), more than the ${gb(limit)} this machine allows (${MEMORY_SHARE * 100}% of ${gb(env.totalMemory)}); lower n, population or islands`, ['islands', 'ga.populationSize', 'ga.pairsPerIteration', 'ga.badRepositorySize']);
  }

  return {
    n: p.n,
    seed: p.seed ?? null,
    ga,
    islands,
    topology: resolveTopologySection(p.topology, islands, islandsGiven, at),
    migration: resolveMigration(p.migration, ga.populationSize, at),
    limits: p.limits,
    onIslandError: p.onIslandError,
    output: p.output,
    cluster: p.cluster,
  };
}

