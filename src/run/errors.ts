/**
 * Errors of a run's own edges (the run's failure itself is RunFailedError, start-run.ts).
 */
import type { SolveRecord } from './result-record.ts';

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
