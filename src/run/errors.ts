import type { IslandFailedError } from '../archipelago/errors.ts';
import type { RunResult } from './start-run.ts';

/** The run stopped because an island failed under `onIslandError: 'fail'`; `result` is what it reached. */
export class RunFailedError extends Error {
  override name = 'RunFailedError';
  constructor(
    readonly failure: IslandFailedError,
    readonly result: RunResult,
  ) {
    super(failure.message);
  }
}

/** Thrown for N = 2 and 3: nothing to run. */
export class NoSolutionError extends Error {
  override name = 'NoSolutionError';
}
