/**
 * The one table from CLI flags to run-config keys. `solve` and `config print` build their
 * yargs options from it, `overridesFromArgv` turns parsed flags into a partial config input,
 * and error messages name the flag a bad value came from (`--interval: expected ...`).
 *
 * Flags reach the schema as raw as possible: yargs parses every value as a string (its
 * number coercion would turn "ten" into NaN), and `overridesFromArgv` only turns strings
 * that look like numbers into numbers. The schema is the one place that checks them.
 */
import type { PolicyRegistries } from '../migration-policy/lookup.ts';
import { optionKey, policyFamilies, policyNames } from '../migration-policy/names.ts';
import type { TopologyRegistry } from '../topology/topology.ts';
import type { GaModeRegistry } from '../ga/create-evolver.ts';
import type { MigrationModeRegistry } from '../archipelago/modes/define.ts';
import { summaries, type OptionFlag } from '../schema/plug-in.ts';
import { REGISTRIES, type Registries } from './registries.ts';
import { ConfigError } from './errors.ts';
import { setPath, type ConfigOverrides } from './overrides.ts';
import { jsonTextProblem } from '../io/json-text.ts';
import { MAX_ISLANDS } from '../topology/topology.ts';
import { MAX_THREADS } from './defaults.ts';
import { lastValue, numberInHelp, numberLiteral, type FlagValue, type FlagOptions } from '../schema/flag-value.ts';

export interface FlagSpec {
  /** Flag name without dashes; a one-letter name is written `-n`. */
  readonly name: string;
  /** Dotted config key the flag sets. */
  readonly path: string;
  readonly value: FlagValue;
  readonly describe: string;
  /** What `--help` shows as the type when yargs' own word would mislead (`number or percent`). */
  readonly accepts?: string;
}

/** Where the registries' flags go in the list. */
const GA_MODE_FLAGS = Symbol('GA mode flags');
const TOPOLOGY_FLAGS = Symbol('topology flags');
const POLICY_FLAGS = Symbol('migration policy flags');
const MIGRATION_MODE_FLAG = Symbol('migration mode flag');

/** The flags of a run config, with the registries' flags in place of the symbols. */
const BASE_FLAGS: readonly (FlagSpec | typeof GA_MODE_FLAGS | typeof TOPOLOGY_FLAGS | typeof POLICY_FLAGS | typeof MIGRATION_MODE_FLAG)[] =
  [
    { name: 'n', path: 'n', value: 'number', describe: 'board size N (1 to 2^31)' },
    { name: 'seed', path: 'seed', value: 'number', describe: 'random seed (non-negative integer; absent = random)' },
    GA_MODE_FLAGS,
    { name: 'islands', path: 'islands', value: 'number', describe: `number of islands, 1..${MAX_ISLANDS} (null = available cores)` },
    {
      name: 'threads',
      path: 'threads',
      value: 'number',
      describe: `worker threads the islands share, 1..${MAX_THREADS} (null = one per island up to the cores, one for a small run: N <= 100, at most 2 paper-GA islands; placement only)`,
    },
    TOPOLOGY_FLAGS,
    MIGRATION_MODE_FLAG,
    { name: 'interval', path: 'migration.interval', value: 'number', describe: 'iterations between migrations' },
    {
      name: 'migrants',
      path: 'migration.migrants',
      value: 'number',
      describe: 'emigrants per migration: a count, a fraction in (0, 1) or "5%"',
      accepts: 'number or percent',
    },
    POLICY_FLAGS,
    {
      name: 'island-groups',
      path: 'islandGroups',
      value: 'json',
      describe:
        'islands with settings of their own, as JSON: {"NAME": {"islands": [ids] or a count, "ga": {...}, "migration": {...}}, ...} (docs/heterogeneous.md)',
    },
    {
      name: 'reject-duplicates',
      path: 'migration.rejectDuplicates',
      value: 'boolean',
      describe: 'refuse immigrants already in the population',
    },
    {
      name: 'lineage',
      path: 'lineage',
      value: 'boolean',
      describe: "track each member's island of origin (the live view's lineage bars, the record's between[].lineage); --no-lineage: off",
    },
    { name: 'max-iterations', path: 'limits.maxIterations', value: 'number', describe: 'iteration limit per island (null = none)' },
    {
      name: 'max-evaluations',
      path: 'limits.maxEvaluations',
      value: 'number',
      describe: 'evaluation budget of the run: sync and lagged record the run without it, censored within it (null = none)',
    },
    { name: 'time-limit', path: 'limits.timeLimit', value: 'number', describe: 'time limit in seconds (null = none)' },
    {
      name: 'on-island-error',
      path: 'onIslandError',
      value: 'string',
      describe: 'continue (default: the run goes on without a failed island) | fail (stop, exit 3)',
    },
    {
      name: 'out',
      path: 'output.file',
      value: 'string',
      describe: 'write the result to this file: JSON, one row per line for a .txt name, 32-bit rows for .bin (docs/large-n.md)',
    },
  ];

/** One flag per option an entry gives a flag; `path` places the option in the config. */
function optionFlags(entry: { flags?: { readonly [option: string]: OptionFlag } }, path: (option: string) => string): FlagSpec[] {
  return Object.entries(entry.flags ?? {}).map(([option, flag]) => ({
    name: flag.name,
    path: path(option),
    value: flag.value,
    describe: flag.describe,
  }));
}

/**
 * `--mode` and one flag per option a GA mode gives a flag, from `registry`; modes that share
 * an option (`populationSize`) share its flag, described by the first mode that gives it.
 */
export function gaModeFlags(registry: GaModeRegistry): FlagSpec[] {
  const options = new Map<string, FlagSpec>();
  for (const d of registry)
    for (const flag of optionFlags(d, (option) => `ga.${option}`)) if (!options.has(flag.name)) options.set(flag.name, flag);
  return [{ name: 'mode', path: 'ga.mode', value: 'string', describe: summaries(registry, ' | ') }, ...options.values()];
}

/** `--topology` and one flag per option a topology kind gives a flag, from `registry`. */
export function topologyFlags(registry: TopologyRegistry): FlagSpec[] {
  return [
    { name: 'topology', path: 'topology.kind', value: 'string', describe: registry.map((d) => d.kind).join(' | ') },
    ...registry.flatMap((d) => optionFlags(d, (option) => `topology.${option}`)),
  ];
}

/** `--migration` and one flag per option a migration mode gives a flag (`--lag`), from `registry`. */
export function migrationModeFlags(registry: MigrationModeRegistry): FlagSpec[] {
  return [
    { name: 'migration', path: 'migration.mode', value: 'string', describe: registry.map((d) => d.kind).join(' | ') },
    ...registry.flatMap((d) => optionFlags(d, (option) => `migration.${option}`)),
  ];
}

const POLICY_FLAG_NAMES = { emigrantSelection: 'emigrant-selection', replacement: 'replacement' } as const;

/** `--emigrant-selection`, `--replacement` and one flag per option a policy gives a flag, from the registries. */
export function policyFlags(registries: PolicyRegistries): FlagSpec[] {
  const families = policyFamilies(registries);
  return [
    ...families.map(([key, registry]): FlagSpec => ({
      name: POLICY_FLAG_NAMES[key],
      path: `migration.${key}`,
      value: 'string',
      describe: policyNames(registry).join(' | '),
    })),
    ...families.flatMap(([, registry]) => registry.flatMap((d) => optionFlags(d, (option) => `migration.${optionKey(d.kind, option)}`))),
  ];
}

/** Every run flag, the registries' parts built from `registries` (a test passes a copy with more). */
export function runFlags(registries: Registries = REGISTRIES): readonly FlagSpec[] {
  return BASE_FLAGS.flatMap((flag): readonly FlagSpec[] => {
    if (flag === GA_MODE_FLAGS) return gaModeFlags(registries.gaModes);
    if (flag === TOPOLOGY_FLAGS) return topologyFlags(registries.topologies);
    if (flag === MIGRATION_MODE_FLAG) return migrationModeFlags(registries.migrationModes);
    return flag === POLICY_FLAGS ? policyFlags(registries) : [flag];
  });
}

export const RUN_FLAGS = runFlags();

/** The flag as a person types it: `-n`, `--interval`. */
export function flagSpelling(flag: FlagSpec): string {
  return flag.name.length === 1 ? `-${flag.name}` : `--${flag.name}`;
}

/** The flag that sets a config key, if any (for error messages); a key inside a flag's JSON mapping is named after the flag. */
export function flagForPath(path: string): string | undefined {
  const flag = RUN_FLAGS.find((f) => f.path === path);
  if (flag !== undefined) return flagSpelling(flag);
  const outer = RUN_FLAGS.find((f) => f.value === 'json' && path.startsWith(`${f.path}.`));
  return outer === undefined ? undefined : `${flagSpelling(outer)} ${path.slice(outer.path.length + 1)}`;
}

/** `--config`: shared by every command that reads a run config. */
export const CONFIG_FILE_OPTION = {
  config: { alias: 'c', type: 'string', requiresArg: true, coerce: lastValue, describe: 'run config file (YAML or JSON)' },
} as const satisfies Record<string, FlagOptions>;

/** yargs options for `flags`, grouped so `--help` lists them together. */
export function flagOptions(flags: readonly FlagSpec[]): Record<string, FlagOptions> {
  return Object.fromEntries(
    flags.map((flag): [string, FlagOptions] => [
      flag.name,
      flag.value === 'boolean'
        ? { type: 'boolean', describe: flag.describe, group: 'Run config overrides:' }
        : flag.accepts !== undefined
          ? // No yargs type, so no yargs label: ours goes where the label would be.
            { requiresArg: true, describe: `${flag.describe}  [${flag.accepts}]`, group: 'Run config overrides:' }
          : {
              type: 'string',
              ...numberInHelp(flag.value === 'number'),
              requiresArg: true,
              describe: flag.describe,
              group: 'Run config overrides:',
            },
    ]),
  );
}

/** yargs options for every run flag. */
export const RUN_FLAG_OPTIONS: Record<string, FlagOptions> = flagOptions(RUN_FLAGS);

function flagValue(raw: unknown, flag: FlagSpec): unknown {
  const value = lastValue(raw);
  const kind = flag.value;
  if (kind === 'json' && typeof value === 'string') return jsonOrText(value, flag);
  if (kind !== 'number' || typeof value !== 'string') return value;
  const text = value.trim();
  if (text === 'null' || text === 'none') return null;
  const number = numberLiteral(text);
  return Number.isNaN(number) ? value : number;
}

/**
 * The JSON value `text` holds, or `text` itself (the schema then refuses it, naming the flag).
 * @throws ConfigError naming the flag for what JSON.parse lets through: a key twice, a reserved key.
 */
function jsonOrText(text: string, flag: FlagSpec): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return text;
  }
  const problem = jsonTextProblem(text);
  if (problem !== null) throw new ConfigError(`${flagSpelling(flag)}: ${problem}`);
  return value;
}

/** The config keys the given flags set, nested like a config file. Absent flags set nothing. */
export function overridesFromArgv(argv: Readonly<Record<string, unknown>>): ConfigOverrides {
  const overrides: ConfigOverrides = {};
  for (const flag of RUN_FLAGS) {
    const raw = argv[flag.name];
    if (raw !== undefined) setPath(overrides, flag.path, flagValue(raw, flag));
  }
  return overrides;
}
