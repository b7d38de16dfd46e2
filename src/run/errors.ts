import type { IslandFailedError } from '../archipelago/errors.ts';
import type { SolveRecord } from './result-record.ts';
import type { RunResult } from './run-result.ts';

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

/**
 * The run finished but its `output.file` could not be written (a full disk, a folder gone):
 * the finished record is not lost with it, it is `record` here (as `solve` keeps it on
 * stdout and exits 4). The message names the file and why, in one line.
 */
export class OutputNotWrittenError extends Error {
  override name = 'OutputNotWrittenError';
  constructor(
    message: string,
    /** The finished run's record, as it would have been written. */
    readonly record: SolveRecord,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
