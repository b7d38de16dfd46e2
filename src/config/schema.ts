/**
 * The run-config file shape: one zod schema (defaults, strict sections) for what a YAML or
 * JSON run config may contain. GA modes, topology kinds, emigrant selections and
 * replacements, with their options, come from their registries (`registries.ts`), so adding
 * one there is the only change configs need. Resolution (defaults that depend on other values, cross-field
 * checks) is `resolve.ts`; the resolved types are `run-config.ts`.
 */
import { z } from 'zod';
import type { PolicyRegistries } from '../migration-policy/lookup.ts';
import { topologySection } from '../topology/schema.ts';
import { MAX_ISLANDS } from '../topology/topology.ts';
import { MAX_N } from '../problem/genes.ts';
import { expected, int, oneOf, section } from '../schema/fields.ts';
import { NatsUrlError } from './errors.ts';
import { parseNatsUrl } from './nats-url.ts';
import { gaSection } from './ga-section.ts';
import { migrantsSchema } from './migrants.ts';
import { islandGroupsField } from './island-groups.ts';
import { migrationPolicyFields, type MigrationPolicyInput } from './migration-policies.ts';
import type { RunConfigDocs } from './run-config-docs.ts';
import { REGISTRIES, type Registries } from './registries.ts';
import type { MigrationModeRegistry } from '../archipelago/modes/define.ts';
import type { MigrationMode } from '../archipelago/modes/registry.ts';
import { migrationModeOptionFields, type MigrationModeOptionsShape } from '../archipelago/modes/schema.ts';
import { MAX_THREADS, MAX_TIME_LIMIT_SECONDS, migrationModeByNText, RUN_DEFAULTS } from './defaults.ts';

/** What a run does when an island's worker throws or exits: go on without it, or stop and fail. */
export const ON_ISLAND_ERROR = ['continue', 'fail'] as const;

// ---------------------------------------------------------------------------------------
// The file shape. Sections default to `{}` through `prefault`, so their own defaults apply.

/** `migration.mode`: a registered migration mode, or null for the default by board size (defaultMigrationMode). */
function migrationModeField(modes: MigrationModeRegistry) {
  return oneOf(modes.map((m) => m.kind) as [string, ...string[]])
    .nullable()
    .default(RUN_DEFAULTS.migration.mode)
    .describe(`${modes.map((m) => `${m.kind}: ${m.help}`).join('; ')}; null = by board size: ${migrationModeByNText()} (docs/defaults.md)`);
}

const migrationBase = {
  interval: int(1).default(RUN_DEFAULTS.migration.interval).describe('iterations between migrations'),
  migrants: migrantsSchema
    .default(RUN_DEFAULTS.migration.migrants)
    .describe('emigrants per migration: a count, a fraction in (0, 1) of the population, or "5%"'),
};
const rejectDuplicates = z
  .boolean({ error: expected('true or false') })
  .default(RUN_DEFAULTS.migration.rejectDuplicates)
  .describe('refuse immigrants equal to a member of the population');

/** A parsed `migration` section: the policy names as written, and whatever policy options the file gave. */
export type MigrationSectionValue = z.output<z.ZodObject<typeof migrationBase & MigrationModeOptionsShape>> & {
  mode: string | null;
  emigrantSelection: string;
  replacement: string;
  rejectDuplicates: boolean;
} & Record<string, unknown>;
type MigrationInput = z.input<z.ZodObject<typeof migrationBase & MigrationModeOptionsShape>> & {
  mode?: string | null;
  rejectDuplicates?: boolean;
} & MigrationPolicyInput;

/** The `migration` section: its mode and the modes' options, its own keys, and the policy keys and options from the policy registries. */
function migrationSchema(registries: PolicyRegistries & { migrationModes: MigrationModeRegistry }) {
  const modeOptions = migrationModeOptionFields(registries.migrationModes);
  const shape = {
    mode: migrationModeField(registries.migrationModes),
    ...modeOptions,
    ...migrationBase,
    ...migrationPolicyFields(registries, ['mode', ...Object.keys(modeOptions), ...Object.keys(migrationBase), 'rejectDuplicates']),
    rejectDuplicates,
  };
  return section(shape) as unknown as z.ZodType<MigrationSectionValue, MigrationInput>;
}

const timeLimitError = expected(`a number of seconds > 0 or null (= no limit), at most ${MAX_TIME_LIMIT_SECONDS} (24.8 days)`);
const limitsSchema = section({
  maxIterations: int(1, { nullMeans: 'no limit' })
    .nullable()
    .default(RUN_DEFAULTS.limits.maxIterations)
    .describe('iteration limit per island; null = none'),
  maxEvaluations: int(1, { max: Number.MAX_SAFE_INTEGER, nullMeans: 'no limit' })
    .nullable()
    .default(RUN_DEFAULTS.limits.maxEvaluations)
    .describe(
      'evaluation budget of the whole run (sync, lagged: the run without it, censored at the last iteration within it; async: each island stops at its share); null = none',
    ),
  timeLimit: z
    .number({ error: timeLimitError })
    .gt(0, { error: timeLimitError })
    .max(MAX_TIME_LIMIT_SECONDS, { error: timeLimitError })
    .nullable()
    .default(RUN_DEFAULTS.limits.timeLimit)
    .describe('wall-clock limit in seconds; null = none'),
});

const outputSchema = section({
  file: z
    .string({ error: expected('a file path or null') })
    .min(1, { error: expected('a file path or null') })
    .nullable()
    .default(RUN_DEFAULTS.output.file)
    .describe('where to write the result (JSON); null = nowhere'),
});

const natsError = expected('a nats:// or tls:// URL (nats://[user:password@]host[:port])');
const prefixError = expected('subject tokens of letters, digits, - and _ separated by dots');
const waitError = expected(`a number of seconds > 0, at most ${MAX_TIME_LIMIT_SECONDS} (24.8 days)`);
/** Islands on other machines (docs/distributed.md); the flags --nats, --hosts, --nats-prefix, --wait say the same. */
export const clusterSchema = section({
  // Read as --nats reads it; a message shows the URL with its secrets as ***, never as given.
  nats: z
    .string({ error: natsError })
    .superRefine((url, ctx) => {
      try {
        parseNatsUrl(url);
      } catch (error) {
        if (!(error instanceof NatsUrlError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.problem });
      }
    })
    .describe(
      'the NATS broker: (nats|tls)://[user:password@ | token@]host[:port]; better without the password (NQI_NATS_PASSWORD, --nats-creds)',
    ),
  hosts: int(1).describe("hosts to wait for; the run's islands are spread over them"),
  prefix: z
    .string({ error: prefixError })
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, { error: prefixError })
    .max(64, { error: prefixError })
    .default(RUN_DEFAULTS.cluster.prefix)
    .describe('subject prefix shared with the hosts (--nats-prefix)'),
  wait: z
    .number({ error: waitError })
    .gt(0, { error: waitError })
    .max(MAX_TIME_LIMIT_SECONDS, { error: waitError })
    .default(RUN_DEFAULTS.cluster.wait)
    .describe('seconds to wait for the hosts'),
});

/** The shape of a run-config file (YAML or JSON), built from `registries` (a test passes a copy with more). */
export function runConfigSchemaFor(registries: Registries) {
  return section({
    n: int(1, { max: MAX_N }).describe('board size N (at most 2^31: rows are 32-bit integers)'),
    seed: int(0, { max: Number.MAX_SAFE_INTEGER, nullMeans: 'random' })
      .nullable()
      .optional()
      .describe('random seed; absent or null = random (the CLI chooses one and prints it)'),
    ga: gaSection(registries.gaModes).prefault({}),
    islands: int(1, { max: MAX_ISLANDS, nullMeans: 'available cores' })
      .nullable()
      .default(RUN_DEFAULTS.islands)
      .describe(`number of islands, 1..${MAX_ISLANDS}; null = os.availableParallelism()`),
    threads: int(1, {
      max: MAX_THREADS,
      nullMeans: 'one per island up to the cores, one for a small run',
      why: 'far more threads than cores only add switching and copying',
    })
      .nullable()
      .default(RUN_DEFAULTS.threads)
      .describe(
        `worker threads the islands run on, 1..${MAX_THREADS} (islands share them; placement only: sync and lagged records are the same for any count); null = one per island up to os.availableParallelism(), one for a small run (paper GA, N <= 100, at most 2 islands of at most 1000: docs/defaults.md)`,
      ),
    topology: topologySection(registries.topologies).prefault({}),
    migration: migrationSchema(registries).prefault({}),
    islandGroups: islandGroupsField(registries),
    limits: limitsSchema.prefault({}),
    onIslandError: oneOf(ON_ISLAND_ERROR)
      .default(RUN_DEFAULTS.onIslandError)
      .describe('when an island fails: continue without it (the result records the failure), or fail the run (exit 3)'),
    lineage: z
      .boolean({ error: expected('true or false') })
      .default(RUN_DEFAULTS.lineage)
      .describe(
        "track each member's island of origin (the live view's lineage bars, the record's between[].lineage); false: not tracked, the same search (--no-lineage)",
      ),
    output: outputSchema.prefault({}),
    cluster: clusterSchema
      .nullable()
      .default(null)
      .describe('run the islands on `host` processes of a NATS broker; null = on this machine'),
  });
}

/** The shape of a run-config file (YAML or JSON). */
export const runConfigFileSchema = runConfigSchemaFor(REGISTRIES);

/**
 * `migration.mode` as the registry's names: the schema's field is built from any registry, so
 * its type is `string`, and `mode: 'synch'` would pass the type check (ga modes, topology kinds
 * and policies are typed from their registries already).
 */
type WithMigrationModeNames<T> = T extends { migration?: infer M }
  ? Omit<T, 'migration'> & { migration?: M extends object ? Omit<M, 'mode'> & { mode?: MigrationMode | null } : M }
  : T;

/** What a config file may contain (everything but `n` optional); each key's description shows on hover (RunConfigDocs). */
export type RunConfigInput = WithMigrationModeNames<z.input<typeof runConfigFileSchema>> & RunConfigDocs;
/** A config file's content as the schema gives it (defaults applied, nothing resolved). */
export type ParsedRunConfig = z.output<typeof runConfigFileSchema>;
