/**
 * The run-config file shape: one zod schema (defaults, strict sections) for what a YAML or
 * JSON run config may contain. Topology kinds and their options come from the topology
 * registry, replacement names from the replacement registry, so adding one there is the
 * only change configs need. Resolution (defaults that depend on other values, cross-field
 * checks) is `resolve.ts`; the resolved types are `run-config.ts`.
 */
import { z } from 'zod';
import type { PolicyRegistries } from '../archipelago/policies/lookup.ts';
import { topologySection } from '../archipelago/topology-schema.ts';
import { HYBRID_DEFAULTS } from '../ga/hybrid/params.ts';
import { PAPER_DEFAULTS } from '../ga/params.ts';
import { expected, int, oneOf, probability, section } from '../schema/fields.ts';
import { migrationPolicyFields, type MigrationPolicyInput } from './migration-policies.ts';
import { REGISTRIES, type Registries } from './registries.ts';

export const MIGRATION_MODES = ['async', 'sync'] as const;
/** What a run does when an island's worker throws or exits: go on without it, or stop and fail. */
export const ON_ISLAND_ERROR = ['continue', 'fail'] as const;

/** Each island is a worker thread; far past the core count, threads only add switching and copying. */
export const MAX_ISLANDS = 256;

// ---------------------------------------------------------------------------------------
// The file shape. Sections default to `{}` through `prefault`, so their own defaults apply.

const paperGaSchema = section({
  mode: z.literal('paper').default('paper').describe('GA variant: "paper" is Sarkar & Nag as ALGORITHM.md reads it'),
  populationSize: int(2).default(PAPER_DEFAULTS.populationSize).describe('main population M per island'),
  pairsPerIteration: int(1, { nullMeans: 'floor(populationSize / 2)' }).nullable().default(null)
    .describe('rank-selected parent pairs per iteration; null = floor(populationSize / 2) (generational), 1 = steady state'),
  crossoverProbability: probability().default(PAPER_DEFAULTS.crossoverProbability).describe('probability that a parent pair is crossed'),
  mutationProbability: probability().default(PAPER_DEFAULTS.mutationProbability).describe('probability that a child is mutated at all'),
  doubleMutationProbability: probability().default(PAPER_DEFAULTS.doubleMutationProbability)
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
  populationSize: int(2).default(HYBRID_DEFAULTS.populationSize).describe('members per island (each holds N genes and 4N diagonal counts)'),
  childrenPerGeneration: int(1).default(HYBRID_DEFAULTS.childrenPerGeneration).describe('children bred per generation; (mu+lambda) survival'),
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

const MIGRANTS_EXPECTED = 'an integer >= 1, a fraction in (0, 1) or a percentage like "5%"';
export const PERCENT = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/;
const migrantsError = { error: expected(MIGRANTS_EXPECTED) };
// zod reports a union failure through the branch closest to the input, so every branch
// and check carries the same message.
const migrantsSchema = z.union(
  [
    z.number(migrantsError).int(migrantsError).min(1, migrantsError),
    z.number(migrantsError).gt(0, migrantsError).lt(1, migrantsError),
    // zod runs a refinement even after the regex failed: it must not assume a match.
    z.string(migrantsError).regex(PERCENT, migrantsError).refine((s) => {
      const match = PERCENT.exec(s);
      return match !== null && Number(match[1]) > 0 && Number(match[1]) < 100;
    }, migrantsError),
  ],
  migrantsError,
);

const migrationBase = {
  mode: oneOf(MIGRATION_MODES).default('async')
    .describe('async: islands send and take migrants without waiting; sync: all islands migrate in lockstep'),
  interval: int(1).default(1).describe('iterations between migrations'),
  migrants: migrantsSchema.default(1)
    .describe('emigrants per migration: a count, a fraction in (0, 1) of the population, or "5%"'),
};
const rejectDuplicates = z.boolean({ error: expected('true or false') }).default(false)
  .describe('refuse immigrants equal to a member of the population');

/** A parsed `migration` section: the policy names as written, and whatever policy options the file gave. */
export type MigrationSectionValue = z.output<z.ZodObject<typeof migrationBase>> & { emigrantSelection: string; replacement: string; rejectDuplicates: boolean } & Record<string, unknown>;
type MigrationInput = z.input<z.ZodObject<typeof migrationBase>> & { rejectDuplicates?: boolean } & MigrationPolicyInput;

/** The `migration` section: its own keys, and the policy keys and options from the policy registries. */
function migrationSchema(registries: PolicyRegistries) {
  const shape = { ...migrationBase, ...migrationPolicyFields(registries, [...Object.keys(migrationBase), 'rejectDuplicates']), rejectDuplicates };
  return section(shape) as unknown as z.ZodType<MigrationSectionValue, MigrationInput>;
}

/** The longest timer Node keeps (2^31 - 1 ms, 24.8 days): a longer one would fire at once. */
const MAX_TIME_LIMIT_SECONDS = 2_147_483;
const timeLimitError = expected(`a number of seconds > 0 or null (= no limit), at most ${MAX_TIME_LIMIT_SECONDS} (24.8 days)`);
const limitsSchema = section({
  maxIterations: int(1, { nullMeans: 'no limit' }).nullable().default(null).describe('iteration limit per island; null = none'),
  timeLimit: z.number({ error: timeLimitError }).gt(0, { error: timeLimitError }).max(MAX_TIME_LIMIT_SECONDS, { error: timeLimitError }).nullable().default(null)
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

/** The shape of a run-config file (YAML or JSON), built from `registries` (a test passes a copy with more). */
export function runConfigSchemaFor(registries: Registries) {
  return section({
  n: int(1).describe('board size N'),
  seed: int(0, { max: Number.MAX_SAFE_INTEGER, nullMeans: 'random' }).nullable().optional()
    .describe('random seed; absent or null = random (the CLI chooses one and prints it)'),
  ga: gaSchema.prefault({}),
  islands: int(1, { max: MAX_ISLANDS, nullMeans: 'available cores', why: 'each island is a worker thread, and far more threads than cores only add switching and copying' })
    .nullable().default(null).describe(`number of islands (worker threads), 1..${MAX_ISLANDS}; null = os.availableParallelism()`),
  topology: topologySection(registries.topologies).prefault({}),
  migration: migrationSchema(registries).prefault({}),
  limits: limitsSchema.prefault({}),
  onIslandError: oneOf(ON_ISLAND_ERROR).default('continue')
    .describe('when an island fails: continue without it (the result records the failure), or fail the run (exit 3)'),
  output: outputSchema.prefault({}),
  cluster: clusterSchema.nullable().default(null).describe('run the islands on `host` processes of a NATS broker; null = on this machine'),
  });
}

/** The shape of a run-config file (YAML or JSON). */
export const runConfigFileSchema = runConfigSchemaFor(REGISTRIES);

/** What a config file may contain (everything but `n` optional). */
export type RunConfigInput = z.input<typeof runConfigFileSchema>;
/** A config file's content as the schema gives it (defaults applied, nothing resolved). */
export type ParsedRunConfig = z.output<typeof runConfigFileSchema>;
