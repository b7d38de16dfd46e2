import { InputError } from '../io/errors.ts';

/** A command-line mistake the parser cannot see (flags that go together, a missing tuple): exit 2, like every InputError. */
export class UsageError extends InputError {
  override name = 'UsageError';
}

/** `flag` given an empty string where a value was wanted. */
export function emptyFlagValue(flag: string): UsageError {
  return new UsageError(`${flag}: expected a value, got an empty string`);
}

/** Exit codes, as the README documents them. */
export const EXIT = {
  ok: 0,
  /** Not solved within the limits, or a tuple that is not a solution. */
  notSolved: 1,
  badInput: 2,
  /** An island failed under `--on-island-error fail`, or every island failed (also used for internal errors). */
  islandFailed: 3,
  /** The work finished and its result is on stdout, but an output file could not be written. */
  notSaved: 4,
} as const;
