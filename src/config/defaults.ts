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
  migration: { lag: 2, interval: 1, migrants: '2%', rejectDuplicates: false },
  limits: { maxIterations: null, maxEvaluations: null, timeLimit: null },
  output: { file: null },
  cluster: { prefix: 'nqi', wait: 30 },
} as const;

/** Seconds between checkpoints when none is given (`--checkpoint-every`, the library's `checkpoint.everySeconds`). */
export const DEFAULT_CHECKPOINT_EVERY = 60;
