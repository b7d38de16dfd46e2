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
  /** null = one worker thread per island, up to os.availableParallelism(); one for a small run (SMALL_RUN). */
  threads: null,
  onIslandError: 'continue',
  /** Each member's island of origin tracked (docs/live-view.md, "Lineage"). */
  lineage: true,
  /** mode null = by N (defaultMigrationMode). */
  migration: { mode: null, interval: 1, migrants: '2%', rejectDuplicates: false },
  limits: { maxIterations: null, maxEvaluations: null, timeLimit: null },
  output: { file: null },
  cluster: { prefix: 'nqi', wait: 30 },
} as const;

/** The longest timer Node keeps (2^31 - 1 ms, 24.8 days): a longer one would fire at once. Here (no zod) for the flag tables. */
export const MAX_TIME_LIMIT_SECONDS = 2_147_483;
/** Worker threads of a run (`threads`, 1..MAX_THREADS); far past the core count, threads only add switching and copying. */
export const MAX_THREADS = 256;

/**
 * A small run: at most `islands` islands of the paper's GA, populations of at most
 * `populationSize`, on a board of at most `n`. Its search is far below what a second worker
 * thread costs to start (Node's bootstrap of a thread, ~30 ms of CPU), so by default its
 * islands share one thread. Measured (docs/defaults.md, "Threads of a small run"): 2 islands
 * on 2 cores, N = 8 - 100, one thread takes 0.81 - 0.92x the wall time of two and ~0.8x the
 * CPU; N = 150 already 1.07x. Placement only: a sync or lagged record is the same.
 */
export const SMALL_RUN = { n: 100, islands: 2, populationSize: 1000 } as const;

/** The default threads of a run whose `threads` is null: 1 for a small run (SMALL_RUN), else null (one per island up to the cores). */
export function defaultThreads(run: {
  n: number;
  islands: number;
  ga: { mode: string; populationSize: number };
  /** A run's groups (an array) or a config's (an object by name): any group is not a small run's default. */
  islandGroups?: object | null;
}): 1 | null {
  const groups = run.islandGroups;
  const small =
    run.ga.mode === 'paper' &&
    (groups == null || (Array.isArray(groups) && groups.length === 0)) &&
    run.n <= SMALL_RUN.n &&
    run.islands <= SMALL_RUN.islands &&
    run.ga.populationSize <= SMALL_RUN.populationSize;
  return small ? 1 : null;
}

/** Seconds between checkpoints when none is given (`--checkpoint-every`, the library's `checkpoint.everySeconds`). */
export const DEFAULT_CHECKPOINT_EVERY = 60;

/**
 * The migration mode of a config whose `migration.mode` is null (the default), by board size:
 * each entry covers N up to `upTo` (null: every larger N), from the entry before it. Issue 45's
 * confirmatory rule, committed before its study ran (docs/defaults.md, whose test holds this
 * table, the study folders and the page together), found sync needing fewer evaluations than
 * lagged 2 at every studied size (0.70x - 0.77x, N = 50 - 2000) and no mode-by-N interaction
 * (Kruskal-Wallis p 0.76), so its decision is one mode at every N: sync.
 */
export const MIGRATION_MODE_BY_N: readonly { upTo: number | null; mode: 'sync' | 'lagged' }[] = [{ upTo: null, mode: 'sync' }];

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
