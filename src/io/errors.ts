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

/*
 * The file messages said at several sites, each made in one place (as piscina names its
 * errors): `name` is how the file is named to the user (a flag, a key, a path).
 */

/** `name` given an empty string instead of a file name. */
export function emptyFileName(name: string): InputError {
  return new InputError(`${name}: expected a file name, got an empty string`);
}

/** `name` is a directory where `expected` (what the file should be, in words) was wanted. */
export function isDirectory(name: string, expected: string): InputError {
  return new InputError(`${name}: is a directory; expected ${expected}`);
}

/** `name` could not be read; `reason` is the error code or message. */
export function unreadableFile(name: string, reason: string): InputError {
  return new InputError(`${name}: cannot read the file (${reason})`);
}
