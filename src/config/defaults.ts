/**
 * The run config's own defaults, one object per section, in one place: the schema
 * (schema.ts) applies them, so `config print`, `--help` and `config schema` (the JSON Schema,
 * generated from the schema) all say these values, and a test can hold docs to them.
 * The defaults of a registry entry's options (a GA mode, a topology kind, a migration mode,
 * an emigrant selection or replacement) live in that entry's module, beside its schema.
 */
export const RUN_DEFAULTS = {
  /** null = os.availableParallelism(). */
  islands: null,
  /** null = one worker thread per island, up to os.availableParallelism(). */
  threads: null,
  onIslandError: 'continue',
  /** mode null = by N (defaultMigrationMode). */
  migration: { mode: null, lag: 2, interval: 1, migrants: '2%', rejectDuplicates: false },
  limits: { maxIterations: null, maxEvaluations: null, timeLimit: null },
  output: { file: null },
  cluster: { prefix: 'nqi', wait: 30 },
} as const;

/** Seconds between checkpoints when none is given (`--checkpoint-every`, the library's `checkpoint.everySeconds`). */
export const DEFAULT_CHECKPOINT_EVERY = 60;

/**
 * The migration mode of a config whose `migration.mode` is null (the default), by board size:
 * each entry covers N up to `upTo` (null: every larger N), from the entry before it. Issue 38's
 * rule, written before its studies ran (docs/defaults.md, whose test holds this table and the
 * page together), picked sync at N = 50, 500 and 1000 and kept lagged (lag 2) at N = 100 and
 * 200; N = 2000 had not run, so it keeps lagged. Each N takes the winner of the studied size
 * nearest to it on a log scale (the sizes roughly double): the boundaries are the geometric
 * means of neighbouring sizes, sqrt(50 * 100) = 70.7, sqrt(200 * 500) = 316.2 and
 * sqrt(1000 * 2000) = 1414.2.
 */
export const MIGRATION_MODE_BY_N: readonly { upTo: number | null; mode: 'sync' | 'lagged' }[] = [
  { upTo: 70, mode: 'sync' },
  { upTo: 316, mode: 'lagged' },
  { upTo: 1414, mode: 'sync' },
  { upTo: null, mode: 'lagged' },
];

/** The default migration mode at board size `n` (MIGRATION_MODE_BY_N). */
export function defaultMigrationMode(n: number): 'sync' | 'lagged' {
  return MIGRATION_MODE_BY_N.find((r) => r.upTo === null || n <= r.upTo)!.mode;
}

/** MIGRATION_MODE_BY_N in words, for help texts and docs: `sync for n <= 70, lagged for 71 <= n <= 316, ...`. */
export function migrationModeByNText(): string {
  return MIGRATION_MODE_BY_N.map((r, i) => {
    const from = i === 0 ? null : MIGRATION_MODE_BY_N[i - 1].upTo! + 1;
    if (r.upTo === null) return from === null ? `${r.mode} at every n` : `${r.mode} for n >= ${from}`;
    return from === null ? `${r.mode} for n <= ${r.upTo}` : `${r.mode} for ${from} <= n <= ${r.upTo}`;
  }).join(', ');
}
