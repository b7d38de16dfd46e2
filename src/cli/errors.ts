/**
 * Input the user can fix: printed as one line on stderr, exit code 2. Every module
 * that validates input at the edge throws an error the CLI recognises as this kind.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Exit codes, as the README documents them. */
export const EXIT = {
  ok: 0,
  /** Not solved within the limits, or a tuple that is not a solution. */
  notSolved: 1,
  badInput: 2,
  /** An island failed under `--on-island-error fail` (also used for internal errors). */
  islandFailed: 3,
} as const;
