/**
 * The run config: one zod schema for the file shape (with defaults, strict sections), and
 * `resolveRunConfig`, which merges CLI overrides into a file's content, validates it once,
 * fills every default that depends on other values (islands, pairs, bad repository,
 * migrants as a count, ...), runs the cross-field checks and returns a `RunConfig`.
 * Nothing downstream re-checks. Every failure is one `ConfigError` line naming the file
 * (or flag), the key path and what was expected.
 */
import os from 'node:os';
import { z } from 'zod';
import type { EmigrantSelectionSpec } from '../archipelago/policies/emigrant-selection.ts';
import { REPLACEMENT_KINDS } from '../archipelago/policies/replacement.ts';
import { nearSquareRows } from '../archipelago/topologies/grid.ts';
import { TOPOLOGY_KINDS, type TopologyKind } from '../archipelago/topology.ts';
import { hybridParams, type HybridOperators, type HybridParams } from '../ga/hybrid/params.ts';
import { bytesPerGene } from '../problem/genes.ts';
import { nearestName } from './suggest.ts';
import { ConfigError, describeValue, formatPath } from './errors.ts';
import { flagForPath, type ConfigOverrides } from './flags.ts';
// Topology and replacement names come from their registries in src/archipelago, so adding
// a topology or a policy there is the only change needed for configs to accept it.

export const MIGRATION_MODES = ['async', 'sync'] as const;
/** What a run does when an island's worker throws or exits: go on without it, or stop and fail. */
export const ON_ISLAND_ERROR = ['continue', 'fail'] as const;

/** Each island is a worker thread; far past the core count, threads only add switching and copying. */
export const MAX_ISLANDS = 256;
/** Share of physical memory a run may plan to use for its chromosomes. */
export const MEMORY_SHARE = 0.75;

// ---------------------------------------------------------------------------------------
// Leaf schemas. Each one carries a single "what was expected" text that all its checks
// report, so a message reads `expected an integer >= 1, got "ten"` whatever check failed.

type ErrorMap = z.core.$ZodErrorMap;

/** `expected <what>, got <value>[; <why>]`; all checks of one leaf share it. */
function expected(what: string, why?: string): ErrorMap {
  const tail = why === undefined ? '' : `; ${why}`;
  return (iss) => (iss.input === undefined ? `missing; expected ${what}${tail}` : `expected ${what}, got ${describeValue(iss.input)}${tail}`);
}

interface IntOptions {
  max?: number;
  /** Allows null, and says what it means: `floor(sqrt(n))` gives "or null (= floor(sqrt(n)))". */
  nullMeans?: string;
  /** Why the range is what it is, appended to the message. */
  why?: string;
}

function int(min: number, { max, nullMeans, why }: IntOptions = {}) {
  const range = max === undefined ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  const error = expected(`${range}${nullMeans ? ` or null (= ${nullMeans})` : ''}`, why);
  const base = z.number({ error }).int({ error }).min(min, { error });
  return max === undefined ? base : base.max(max, { error });
}

function probability() {
  const error = expected('a number in [0, 1]');
  return z.number({ error }).min(0, { error }).max(1, { error });
}

function oneOf<const T extends readonly string[]>(values: T) {
  return z.enum(values, { error: expected(`one of ${values.join(' | ')}`) });
}

/**
 * A strict mapping: an unknown key is an error that suggests the nearest known key, since
 * a misspelt key silently falling back to its default is the worst kind of config bug.
 */
function section<S extends z.ZodRawShape>(shape: S) {
  const known = Object.keys(shape);
  const error: ErrorMap = (iss) => {
    if (iss.code !== 'unrecognized_keys') return expected('a mapping')(iss);
    const path = iss.path ?? [];
    const key = iss.keys[0];
    const near = nearestName(key, known);
    const hint = near !== null
      ? `did you mean "${formatPath([...path, near])}"?`
      : `expected one of ${known.join(', ')}`;
    return `unknown key "${formatPath([...path, key])}"; ${hint}`;
  };
  return z.strictObject(shape, { error });
}

// ---------------------------------------------------------------------------------------
// The file shape. Sections default to `{}` through `prefault`, so their own defaults apply.

const paperGaSchema = section({
  mode: z.literal('paper').default('paper').describe('GA variant: "paper" is Sarkar & Nag as ALGORITHM.md reads it'),
  populationSize: int(2).default(1000).describe('main population M per island'),
  pairsPerIteration: int(1, { nullMeans: 'floor(populationSize / 2)' }).nullable().default(null)
    .describe('rank-selected parent pairs per iteration; null = floor(populationSize / 2) (generational), 1 = steady state'),
  crossoverProbability: probability().default(1.0).describe('probability that a parent pair is crossed'),
  mutationProbability: probability().default(0.8).describe('probability that a child is mutated at all'),
  doubleMutationProbability: probability().default(0.4)
    .describe('probability that a child is mutated twice (part of mutationProbability, so <= it)'),
  badRepositorySize: int(0, { nullMeans: 'floor(sqrt(n))' }).nullable().default(null)
    .describe('size b of the fixed bad-population repository; null = floor(sqrt(n)), 0 turns it off'),
});

// Beyond the paper (docs/hybrid.md): a memetic island GA for large N. Each operator is
// named, and `null` turns it off; unset keys take `hybridParams`' defaults for the board.
const nullableSection = <S extends z.ZodRawShape>(shape: S, describe: string) =>
  section(shape).nullable().optional().describe(`${describe}; null turns it off`);

const hybridGaSchema = section({
  mode: z.literal('hybrid').describe('GA variant: "hybrid" adds the operators below to the paper\'s loop (never on in paper mode)'),
  populationSize: int(2).default(8).describe('members per island (each holds N genes and 4N diagonal counts)'),
  childrenPerGeneration: int(1).default(4).describe('children bred per generation; (mu+lambda) survival'),
  smartStart: nullableSection({ maxTries: int(1).describe('random rows tried per column before giving up') },
    'greedy low-conflict initial permutations (Sosic & Gu); default { maxTries: 128 }'),
  swapDelta: z.boolean({ error: expected('true or false') }).default(true)
    .describe('price a swap in O(1) from per-member diagonal counts (false: full O(N) recount, same result)'),
  conflictMutation: nullableSection({
    probability: probability(),
    moves: int(0),
    partners: int(1),
  }, 'move a queen in conflict to the best of `partners` random swaps, `moves` times per child; default { probability: 0.8, moves: 1, partners: 8 }'),
  localSearch: nullableSection({
    applyTo: oneOf(['children', 'migrants', 'both'] as const),
    maxSteps: int(0),
    triesPerQueen: int(1),
  }, 'bounded QS4-like descent (a memetic GA); default { applyTo: both, maxSteps: 64, triesPerQueen: 128 }'),
  crossoverProbability: probability().nullable().default(null)
    .describe("probability of the paper's order-1 crossover per child; null = 0.1 for n <= 1000, else 0"),
});

// A discriminated union on `mode`; files without `mode` mean 'paper'.
const gaSchema = z.discriminatedUnion('mode', [paperGaSchema, hybridGaSchema], {
  error: (iss) => {
    if (iss.code !== 'invalid_union') return expected('a mapping')(iss);
    const input = iss.input as { mode?: unknown } | undefined;
    return expected('"paper" or "hybrid"')({ ...iss, input: input?.mode });
  },
});

const islandId = int(0);
const edgeSchema = z.tuple([islandId, islandId], { error: expected('a pair [from, to] of 0-based island ids') });

const topologySchema = section({
  kind: oneOf(TOPOLOGY_KINDS).default('ring').describe('who sends migrants to whom'),
  probability: probability().optional().describe('random only: probability of each directed edge; default 0.5'),
  rows: int(1, { nullMeans: 'near-square' }).nullable().optional()
    .describe('grid only: number of rows, a divisor of islands; null = the largest divisor of islands <= sqrt(islands)'),
  edges: z.array(edgeSchema, { error: expected('a list of [from, to] island pairs') }).optional()
    .describe('edges only: directed pairs [from, to] of 0-based island ids'),
});

const MIGRANTS_EXPECTED = 'an integer >= 1, a fraction in (0, 1) or a percentage like "5%"';
const PERCENT = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/;
const migrantsError = { error: expected(MIGRANTS_EXPECTED) };
// zod reports a union failure through the branch closest to the input, so every branch
// and check carries the same message.
const migrantsSchema = z.union(
  [
    z.number(migrantsError).int(migrantsError).min(1, migrantsError),
    z.number(migrantsError).gt(0, migrantsError).lt(1, migrantsError),
    z.string(migrantsError).regex(PERCENT, migrantsError).refine((s) => {
      const percent = Number(PERCENT.exec(s)![1]);
      return percent > 0 && percent < 100;
    }, migrantsError),
  ],
  migrantsError,
);

const TOURNAMENT = /^tournament\(\s*(\d+)\s*\)$/;
const selectionError = { error: expected('best | random | tournament | tournament(K)') };
const emigrantSelectionSchema = z.union(
  [z.enum(['best', 'random', 'tournament'], selectionError), z.string(selectionError).regex(TOURNAMENT, selectionError)],
  selectionError,
);

const migrationSchema = section({
  mode: oneOf(MIGRATION_MODES).default('async')
    .describe('async: islands send and take migrants without waiting; sync: all islands migrate in lockstep'),
  interval: int(1).default(1).describe('iterations between migrations'),
  migrants: migrantsSchema.default(1)
    .describe('emigrants per migration: a count, a fraction in (0, 1) of the population, or "5%"'),
  emigrantSelection: emigrantSelectionSchema.default('best')
    .describe('which members leave: best | random | tournament | tournament(K)'),
  tournamentSize: int(2).optional().describe('tournament size for emigrantSelection "tournament"; default 2'),
  replacement: oneOf(REPLACEMENT_KINDS).default('worst-if-better').describe('how immigrants enter the population'),
  rejectDuplicates: z.boolean({ error: expected('true or false') }).default(false)
    .describe('refuse immigrants equal to a member of the population'),
});

const timeLimitError = expected('a number of seconds > 0 or null (= no limit)');
const limitsSchema = section({
  maxIterations: int(1, { nullMeans: 'no limit' }).nullable().default(null).describe('iteration limit per island; null = none'),
  timeLimit: z.number({ error: timeLimitError }).gt(0, { error: timeLimitError }).nullable().default(null)
    .describe('wall-clock limit in seconds; null = none'),
});

const outputSchema = section({
  file: z.string({ error: expected('a file path or null') }).min(1, { error: expected('a file path or null') })
    .nullable().default(null).describe('where to write the result (JSON); null = nowhere'),
});

const natsError = expected('a nats:// URL (nats://[user:password@]host[:port])');
const prefixError = expected('subject tokens of letters, digits, - and _ separated by dots');
const waitError = expected('a number of seconds > 0');
/** Islands on other machines (docs/distributed.md); the flags --nats, --hosts, --nats-prefix, --wait say the same. */
const clusterSchema = section({
  nats: z.string({ error: natsError }).regex(/^nats:\/\/[^/?#]+$/, { error: natsError }).describe('the NATS broker: nats://[user:password@ | token@]host[:port]'),
  hosts: int(1).describe('hosts to wait for; the run\'s islands are spread over them'),
  prefix: z.string({ error: prefixError }).regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, { error: prefixError }).max(64, { error: prefixError }).default('nqi')
    .describe('subject prefix shared with the hosts (--nats-prefix)'),
  wait: z.number({ error: waitError }).gt(0, { error: waitError }).default(30).describe('seconds to wait for the hosts'),
});

/** The shape of a run-config file (YAML or JSON). */
export const runConfigFileSchema = section({
  n: int(1).describe('board size N'),
  seed: int(0, { max: Number.MAX_SAFE_INTEGER, nullMeans: 'random' }).nullable().optional()
    .describe('random seed; absent or null = random (the CLI chooses one and prints it)'),
  ga: gaSchema.prefault({}),
  islands: int(1, { max: MAX_ISLANDS, nullMeans: 'available cores', why: 'each island is a worker thread, and far more threads than cores only add switching and copying' })
    .nullable().default(null).describe(`number of islands (worker threads), 1..${MAX_ISLANDS}; null = os.availableParallelism()`),
  topology: topologySchema.prefault({}),
  migration: migrationSchema.prefault({}),
  limits: limitsSchema.prefault({}),
  onIslandError: oneOf(ON_ISLAND_ERROR).default('continue')
    .describe('when an island fails: continue without it (the result records the failure), or fail the run (exit 3)'),
  output: outputSchema.prefault({}),
  cluster: clusterSchema.nullable().default(null).describe('run the islands on `host` processes of a NATS broker; null = on this machine'),
});

/** What a config file may contain (everything but `n` optional). */
export type RunConfigInput = z.input<typeof runConfigFileSchema>;
type Parsed = z.output<typeof runConfigFileSchema>;

// ---------------------------------------------------------------------------------------
// The resolved config: every default filled in, no nulls where a default exists.

type PaperGaParsed = Extract<Parsed['ga'], { mode: 'paper' }>;
export type PaperGaConfig = Omit<PaperGaParsed, 'pairsPerIteration' | 'badRepositorySize'> & {
  pairsPerIteration: number;
  badRepositorySize: number;
};
/** The hybrid GA with every default filled in for the board: `HybridParams` without n. */
export type HybridGaConfig = { mode: 'hybrid' } & Omit<HybridParams, 'n'>;
/** One member per GA mode. */
export type GaConfig = PaperGaConfig | HybridGaConfig;

export type TopologyConfig =
  | { kind: Exclude<TopologyKind, 'random' | 'grid' | 'edges'> }
  | { kind: 'random'; probability: number }
  /** A torus of rows × (islands / rows); rows divides islands. */
  | { kind: 'grid'; rows: number }
  /** Directed pairs [from, to] of 0-based island ids, all < islands, no self-loops or repeats. */
  | { kind: 'edges'; edges: Array<[number, number]> };

export type EmigrantSelection = EmigrantSelectionSpec;

export type MigrationConfig = Omit<Parsed['migration'], 'migrants' | 'emigrantSelection' | 'tournamentSize'> & {
  /** Emigrants per migration, as a count in 1..populationSize. */
  migrants: number;
  emigrantSelection: EmigrantSelection;
};

export interface RunConfig {
  n: number;
  /** null: no seed given; the CLI draws one and prints it. */
  seed: number | null;
  ga: GaConfig;
  islands: number;
  topology: TopologyConfig;
  migration: MigrationConfig;
  /** null = no limit. */
  limits: Parsed['limits'];
  onIslandError: Parsed['onIslandError'];
  output: Parsed['output'];
  /** Islands on other machines; null = this machine. */
  cluster: Parsed['cluster'];
}

/** Machine facts the defaults and checks depend on; tests pass their own. */
export interface ResolveEnv {
  availableParallelism: number;
  /** Bytes of physical memory. */
  totalMemory: number;
}

export function systemEnv(): ResolveEnv {
  return { availableParallelism: os.availableParallelism(), totalMemory: os.totalmem() };
}

// ---------------------------------------------------------------------------------------
// Overrides and where a value came from.

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Overrides win; a file value that is not a mapping is kept so that its error names the
 * file, except null, which a nullable section (`localSearch: null`) may legitimately hold.
 */
function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(over)) return over;
  if (base === undefined || base === null) return over;
  if (!isPlainObject(base)) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = deepMerge(base[key], value);
  return out;
}

/**
 * A flag that changes a section's kind drops the file's options for that section: they
 * belong to the old kind (`--topology ring` over a random-topology file must not fail on
 * `topology.probability`; `--mode hybrid` over a paper file must not fail on `ga.pairsPerIteration`).
 */
const KIND_KEYS = [['topology', 'kind', 'ring'], ['ga', 'mode', 'paper']] as const;

/**
 * A config file's content with overrides merged in (overrides win), dropping a section's
 * options when an override changes its kind. `resolveRunConfig` merges flags with it, and
 * experiments merge their base overrides and each cell's sweep values with it.
 */
export function applyOverrides(input: unknown, overrides: ConfigOverrides): unknown {
  if (!isPlainObject(input)) return input;
  const base: Record<string, unknown> = { ...input };
  for (const [section, key, fallback] of KIND_KEYS) {
    const wanted = isPlainObject(overrides[section]) ? overrides[section][key] : undefined;
    const file = base[section];
    if (wanted !== undefined && isPlainObject(file) && (file[key] ?? fallback) !== wanted) base[section] = {};
  }
  return deepMerge(base, overrides);
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const key of path) node = isPlainObject(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[key] : undefined;
  return node;
}

function leafPaths(overrides: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (!isPlainObject(overrides)) {
    out.add(prefix);
    return out;
  }
  for (const [key, value] of Object.entries(overrides)) leafPaths(value, prefix === '' ? key : `${prefix}.${key}`, out);
  return out;
}

/** Builds the one-line messages, naming the flag for overridden keys and the file otherwise. */
class Locator {
  private readonly overridden: Set<string>;
  constructor(private readonly source: string, overrides: ConfigOverrides) {
    this.overridden = leafPaths(overrides);
    this.overridden.delete('');
  }

  private flagFor(path: readonly PropertyKey[]): string | undefined {
    const keys: string[] = [];
    for (const key of path) {
      if (typeof key !== 'string') break;
      keys.push(key);
      const dotted = keys.join('.');
      if (this.overridden.has(dotted)) return flagForPath(dotted) ?? `override ${dotted}`;
    }
    return undefined;
  }

  /**
   * `config/x.yaml: migration.interval: <message>`, or `--interval: <message>` when a flag set
   * the key. A cross-field problem lists the other keys involved (`related`): when only one
   * of those came from a flag, the message names that flag and the key it upset.
   */
  message(path: readonly PropertyKey[], message: string, related: readonly string[] = []): string {
    const own = this.flagFor(path);
    if (own !== undefined) return `${own}: ${message}`;
    for (const other of related) {
      const flag = this.flagFor(other.split('.'));
      if (flag !== undefined) return `${flag}: ${formatPath(path)}: ${message}`;
    }
    return path.length === 0 ? `${this.source}: ${message}` : `${this.source}: ${formatPath(path)}: ${message}`;
  }

  fail(path: string | readonly PropertyKey[], message: string, related: readonly string[] = []): never {
    throw new ConfigError(this.message(typeof path === 'string' ? path.split('.') : path, message, related));
  }

  fromZod(error: z.ZodError, input: unknown): never {
    const issue = error.issues[0];
    // Unknown-key messages already name the full key path.
    if (issue.code === 'unrecognized_keys') throw new ConfigError(`${this.source}: ${issue.message}`);
    const flag = flagForPath(issue.path.join('.'));
    const missing = flag !== undefined && valueAt(input, issue.path) === undefined;
    this.fail(issue.path, missing ? `${issue.message} (set it in the file or pass ${flag})` : issue.message);
  }
}

// ---------------------------------------------------------------------------------------
// Resolution and cross-field checks.

const GB = 1e9;
const gb = (bytes: number): string => `${(bytes / GB).toFixed(1)} GB`;

/**
 * Bytes of chromosomes a run allocates. Paper: main population, bad repository and
 * children. Hybrid: members and children, each with 4N Int32 diagonal counts besides its genes.
 */
export function estimateMemoryBytes(n: number, islands: number, ga: GaConfig): number {
  if (ga.mode === 'hybrid') return islands * (ga.populationSize + ga.childrenPerGeneration + 1) * n * (bytesPerGene(n) + 16);
  return islands * (ga.populationSize + ga.badRepositorySize + 2 * ga.pairsPerIteration + 4) * n * bytesPerGene(n);
}

function memoryParts(ga: GaConfig, n: number): string {
  const perGene = `${bytesPerGene(n)} bytes per gene`;
  return ga.mode === 'hybrid'
    ? `hybrid population ${ga.populationSize}, ${ga.childrenPerGeneration} children, ${perGene} + 16 bytes of diagonal counts`
    : `population ${ga.populationSize}, bad repository ${ga.badRepositorySize}, ${ga.pairsPerIteration} pairs per iteration, ${perGene}`;
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

const TOPOLOGY_OPTIONS = { probability: 'random', rows: 'grid', edges: 'edges' } as const;

function resolveTopology(topology: Parsed['topology'], islands: number, islandsGiven: boolean, at: Locator): TopologyConfig {
  const { kind } = topology;
  for (const [option, owner] of Object.entries(TOPOLOGY_OPTIONS)) {
    if (topology[option as keyof typeof TOPOLOGY_OPTIONS] !== undefined && owner !== kind) {
      at.fail(`topology.${option}`, `only used with topology.kind "${owner}", not "${kind}"; remove it`, ['topology.kind']);
    }
  }
  const islandsText = islandsGiven ? `${islands}` : `${islands} (the available cores, as islands is null)`;
  switch (kind) {
    case 'random':
      return { kind, probability: topology.probability ?? 0.5 };
    case 'grid': {
      const rows = topology.rows ?? nearSquareRows(islands);
      if (islands % rows !== 0) at.fail('topology.rows', `${rows} rows do not divide the ${islandsText} islands into full rows; expected a divisor of ${islands}`, ['islands']);
      return { kind, rows };
    }
    case 'hypercube':
      if ((islands & (islands - 1)) !== 0) {
        at.fail('islands', `${islandsText} is not a power of two, which topology.kind "hypercube" needs; expected 1, 2, 4, 8, ...`, ['topology.kind']);
      }
      return { kind };
    case 'edges': {
      const { edges } = topology;
      if (edges === undefined) at.fail('topology.edges', 'missing; topology.kind "edges" needs a list of [from, to] island pairs', ['topology.kind']);
      const seen = new Set<string>();
      edges.forEach(([from, to], i) => {
        const bad = from >= islands ? from : to >= islands ? to : undefined;
        if (bad !== undefined) at.fail(['topology', 'edges', i], `island ${bad} does not exist; with ${islandsText} islands, ids are 0..${islands - 1}`, ['islands']);
        if (from === to) at.fail(['topology', 'edges', i], `[${from}, ${to}] sends island ${from} its own migrants; expected two different islands`);
        const id = `${from},${to}`;
        if (seen.has(id)) at.fail(['topology', 'edges', i], `[${from}, ${to}] is listed twice`);
        seen.add(id);
      });
      return { kind, edges: edges.map(([from, to]): [number, number] => [from, to]) };
    }
    default:
      return { kind };
  }
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
    topology: resolveTopology(p.topology, islands, islandsGiven, at),
    migration: resolveMigration(p.migration, ga.populationSize, at),
    limits: p.limits,
    onIslandError: p.onIslandError,
    output: p.output,
    cluster: p.cluster,
  };
}

function gaFileShape(ga: GaConfig): RunConfigInput['ga'] {
  if (ga.mode === 'paper') return { ...ga };
  const { crossover, ...operators } = ga.operators;
  return { mode: ga.mode, populationSize: ga.populationSize, childrenPerGeneration: ga.childrenPerGeneration, ...operators, crossoverProbability: crossover.probability };
}

/**
 * The resolved config written back in the file shape (what `config print` shows). Reading
 * it back gives the same `RunConfig`, so a printed config reproduces a run.
 */
export function toFileShape(config: RunConfig): RunConfigInput {
  const selection = config.migration.emigrantSelection;
  return {
    n: config.n,
    seed: config.seed,
    ga: gaFileShape(config.ga),
    islands: config.islands,
    topology: { ...config.topology },
    migration: {
      mode: config.migration.mode,
      interval: config.migration.interval,
      migrants: config.migration.migrants,
      emigrantSelection: selection.kind === 'tournament' ? `tournament(${selection.size})` : selection.kind,
      replacement: config.migration.replacement,
      rejectDuplicates: config.migration.rejectDuplicates,
    },
    limits: { ...config.limits },
    onIslandError: config.onIslandError,
    output: { ...config.output },
    ...(config.cluster ? { cluster: { ...config.cluster } } : {}),
  };
}
