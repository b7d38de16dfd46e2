import { InputError } from '../io/errors.ts';

/**
 * The error type of the config edge. Its message is a single line meant for people
 * (`config/x.yaml: migration.interval: expected an integer >= 1, got "ten"`): the CLI
 * prints it as is and exits with code 2 (an InputError). Never a stack trace, never a zod dump.
 */
export class ConfigError extends InputError {
  override name = 'ConfigError';
}

/** A URL that does not read; `problem` is the message without the flag (a config key's check words it its own way). */
export class NatsUrlError extends ConfigError {
  constructor(
    flag: string,
    readonly problem: string,
  ) {
    super(`${flag}: ${problem}`);
  }
}

/** A JSON text that does not parse; `where` is the file name, with `:line:col` when known. */
export function invalidJson(where: string, problem: string): ConfigError {
  return new ConfigError(`${where}: invalid JSON: ${problem}`);
}
