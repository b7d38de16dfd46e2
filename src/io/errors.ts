/**
 * The one base class of "your input is wrong": a flag, a file, a key, a tuple, a path. The
 * CLI matches it with `instanceof`, prints its message as one line and exits with code 2;
 * library users catch it to tell bad input from a bug. Subclasses (ConfigError, UsageError,
 * TupleSyntaxError) only say where the input came from.
 */
export class InputError extends Error {
  override name = 'InputError';
  /** Exit code the CLI uses for bad input. */
  readonly exitCode = 2;
}

/** Why a path cannot be written, in words (`is a directory`, `is read-only (mode 444)`): write-file.ts makes it an InputError naming the flag. */
export class OutputRefused extends Error {
  override name = 'OutputRefused';
}
