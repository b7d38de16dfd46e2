/**
 * The experiment file: which run config to start from, what to sweep, how many seeds, and
 * which cell is the baseline. Validated once here; the messages name the file and the key
 * path (`study.yaml: sweep.migration.interval: expected a non-empty list of values`).
 */
import { z } from 'zod';
import { ConfigError } from '../config/errors.ts';
import { describeDocument, describeValue, formatPath } from '../schema/fields.ts';
import { formatValue } from './sweep.ts';

/** One path segment: not empty, not `.` or `..`, no separator or control character. */
export function isFolderName(name: string): boolean {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\\')) return false;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

/** A sweep key is a dotted run-config path such as `migration.interval`. */
const CONFIG_PATH = /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*$/;

/** Values a sweep may take: what a YAML/JSON scalar can be, or a mapping (e.g. a whole topology). */
const sweepValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.record(z.string(), z.unknown())], {
  error: 'expected a string, number, boolean, null or mapping',
});

const seedValue = z
  .number({ error: 'expected a non-negative integer seed' })
  .int({ error: 'expected a non-negative integer seed' })
  .min(0, { error: 'expected a non-negative integer seed' })
  .max(0xffffffff, { error: 'expected a seed below 2^32' });

const baseSchema = z.union(
  [
    z.string().min(1),
    z.strictObject({
      /** Run-config file, relative to the experiment file. */
      file: z.string({ error: 'expected a path to a run-config file' }).min(1).optional(),
      /** Run-config keys, nested as in a run-config file; they win over `file`. */
      overrides: z.record(z.string(), z.unknown(), { error: 'expected a mapping of run-config keys' }).optional(),
    }),
  ],
  { error: 'expected a run-config path or a mapping with file and/or overrides' },
);

/** Most cells a study may have: beyond this a grid is almost surely a mistake, and its manifest alone would be tens of MB. */
export const MAX_CELLS = 10_000;
/** Most runs (cells × seeds) a study may have. */
export const MAX_RUNS = 1_000_000;

/** Why a study is too large (cells, or cells × seeds), counted from the value lists alone; null when it is not. */
function sizeProblem(e: { sweep: Record<string, readonly unknown[]>; seeds?: readonly number[]; repeats?: number }): string | null {
  const counts = Object.values(e.sweep).map((values) => values.length);
  const cells = counts.reduce((a, b) => a * b, 1);
  if (cells > MAX_CELLS)
    return `${cells} cells (${counts.join(' × ')}); expected at most ${MAX_CELLS} cells in one study (split it into several studies)`;
  const seeds = e.seeds?.length ?? e.repeats ?? 1;
  if (cells * seeds > MAX_RUNS)
    return `${cells} cells × ${seeds} seeds = ${cells * seeds} runs; expected at most ${MAX_RUNS} runs in one study (split it into several studies)`;
  return null;
}

export const experimentSchema = z
  .strictObject({
    // The default result folder is results/<name>: one folder name, never a path out of results/.
    name: z
      .string({ error: 'expected a string' })
      .refine(isFolderName, {
        error: 'expected a folder name (no /, \\, control characters, and not . or ..), as results/<name> is the default --out',
      })
      .optional(),
    description: z.string({ error: 'expected a string' }).optional(),
    base: baseSchema.optional(),
    sweep: z
      .record(
        z.string().regex(CONFIG_PATH, { error: 'expected a dotted run-config path such as migration.interval' }),
        z.array(sweepValue, { error: 'expected a non-empty list of values' }).min(1, { error: 'expected a non-empty list of values' }),
        {
          // A bad key is reported at its own path: say what a key must be, not what the mapping must be.
          error: (issue) =>
            issue.code === 'invalid_key'
              ? 'expected a dotted run-config path such as migration.interval'
              : 'expected a mapping from run-config paths to lists of values',
        },
      )
      .default({}),
    baseline: z.record(z.string(), sweepValue, { error: 'expected a mapping from sweep paths to one value each' }).optional(),
    repeats: z
      .number({ error: 'expected an integer from 1 to 10000' })
      .int({ error: 'expected an integer from 1 to 10000' })
      .min(1, { error: 'expected an integer from 1 to 10000' })
      .max(10000, { error: 'expected an integer from 1 to 10000' })
      .optional(),
    seed: seedValue.optional(),
    seeds: z
      .array(seedValue, { error: 'expected a list of non-negative integer seeds' })
      .min(1, { error: 'expected at least one seed' })
      .optional(),
  })
  .superRefine((e, ctx) => {
    // Counted before any cell is built, so a study far too large is refused at once.
    const tooLarge = sizeProblem(e);
    if (tooLarge !== null) return void ctx.addIssue({ code: 'custom', path: ['sweep'], message: tooLarge });
    if (e.seed !== undefined && e.seeds !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['seeds'], message: 'give either seed (a base seed) or seeds (a list), not both' });
    }
    if (e.seeds !== undefined && e.repeats !== undefined && e.repeats !== e.seeds.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['repeats'],
        message: `expected ${e.seeds.length} (the number of seeds) or nothing, got ${e.repeats}`,
      });
    }
    if (e.seeds !== undefined) {
      const dup = e.seeds.findIndex((s, i) => e.seeds!.indexOf(s) !== i);
      if (dup >= 0) ctx.addIssue({ code: 'custom', path: ['seeds', dup], message: `seed ${e.seeds[dup]} appears twice` });
    }
    const keys = Object.keys(e.sweep);
    for (const key of keys) {
      if (key === 'seed')
        ctx.addIssue({ code: 'custom', path: ['sweep', key], message: 'the seeds of a study are set by seed/seeds, not swept' });
      const outer = keys.find((other) => other !== key && key.startsWith(`${other}.`));
      if (outer) ctx.addIssue({ code: 'custom', path: ['sweep', key], message: `overlaps the sweep key ${outer}` });
      // Compared as they appear in cell ids, so 10 and "10" cannot make two cells with one id.
      const values = e.sweep[key].map((v) => formatValue(v));
      const seen = new Set<string>();
      const dup = values.findIndex((v) => seen.size === seen.add(v).size);
      if (dup >= 0) ctx.addIssue({ code: 'custom', path: ['sweep', key, dup], message: `value ${values[dup]} appears twice` });
    }
    for (const [key, value] of Object.entries(e.baseline ?? {})) {
      if (!Object.hasOwn(e.sweep, key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['baseline', key],
          message: `expected a sweep key (${keys.join(', ') || 'the sweep is empty'})`,
        });
      } else if (!e.sweep[key].some((v) => JSON.stringify(v) === JSON.stringify(value))) {
        ctx.addIssue({
          code: 'custom',
          path: ['baseline', key],
          message: `expected one of the swept values ${e.sweep[key].map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(value)}`,
        });
      }
    }
  });

export type ExperimentFile = z.infer<typeof experimentSchema>;
/** What an experiment file may hold (the library takes it as an object). */
export type ExperimentInput = z.input<typeof experimentSchema>;

/** Walks down `input` along `path` to quote back what the person wrote. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

const TOP_KEYS = Object.keys(experimentSchema.shape ?? {});

/** One zod issue as one line: `file: key.path: what was expected`. */
function issueLine(file: string, issue: z.core.$ZodIssue, input: unknown): string {
  const path = formatPath(issue.path);
  const where = path === '' ? file : `${file}: ${path}`;
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0];
      const full = formatPath([...issue.path, key]);
      const allowed = issue.path.length === 0 ? TOP_KEYS : issue.path[0] === 'base' ? ['file', 'overrides'] : [];
      return `${file}: ${full}: unknown key${allowed.length > 0 ? ` (expected one of ${allowed.join(', ')})` : ''}`;
    }
    case 'invalid_key': {
      // The path ends with the key itself; its value (a list) is not what is wrong.
      const key = String(issue.path[issue.path.length - 1]);
      return `${file}: ${formatPath(issue.path.slice(0, -1))}: key ${JSON.stringify(key)}: ${issue.message}`;
    }
    case 'custom':
      return `${where}: ${issue.message}`;
    default: {
      const got = valueAt(input, issue.path);
      return `${where}: ${issue.message}, got ${describeValue(got)}`;
    }
  }
}

/** The parsed experiment, or a ConfigError naming the file and the first bad key. */
export function parseExperiment(input: unknown, file: string): ExperimentFile {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ConfigError(`${file}: expected a mapping with base, sweep, repeats, seed(s) and baseline, got ${describeDocument(input)}`);
  }
  const parsed = experimentSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ConfigError(issueLine(file, parsed.error.issues[0], input));
}

/**
 * JSON Schema (draft 2020-12) of the experiment-file shape, for editors (`config schema
 * --study`; config/experiment.schema.json). The zod schema stays the authority: its
 * cross-key checks (seed and seeds, the baseline's values, study size) are not in here.
 */
export function experimentJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(experimentSchema, { io: 'input', target: 'draft-2020-12' }),
    title: 'nqueens-islands experiment (study) file',
  };
}
