import type { ArchipelagoResult } from '../archipelago/events.ts';
import type { RunConfig } from '../config/run-config.ts';

/** A run's result: the archipelago's, plus what identifies the run. */
export interface RunResult extends ArchipelagoResult {
  n: number;
  seed: number;
  /** Iterations to the solution on the island that found it; when unsolved, the most any island ran. */
  iterations: number;
}

/** A config with its seed decided (`withSeed` draws one when the user gave none). */
export type SeededRunConfig = RunConfig & { seed: number };
