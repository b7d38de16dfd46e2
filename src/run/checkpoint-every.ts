/** Seconds between checkpoints when none is given (`--checkpoint-every`, the library's `checkpoint.everySeconds`). Its own module: `solve --help` loads it without the run's threads. */
export const DEFAULT_CHECKPOINT_EVERY = 60;
