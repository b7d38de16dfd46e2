import { InputError } from '../io/input-error.ts';

/**
 * The error type of the config edge. Its message is a single line meant for people
 * (`config/x.yaml: migration.interval: expected an integer >= 1, got "ten"`): the CLI
 * prints it as is and exits with code 2 (an InputError). Never a stack trace, never a zod dump.
 */
export class ConfigError extends InputError {
  override name = 'ConfigError';
}

/** How a value a person wrote is quoted back in a message: short, one line. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'a mapping';
  // What is left after lists and mappings: a scalar (a function cannot come from a file).
  const scalar = value as string | number | boolean | bigint | symbol | null;
  const text = typeof scalar === 'string' ? JSON.stringify(scalar) : String(scalar);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Dotted key path as people read it: `topology.edges[1][0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
