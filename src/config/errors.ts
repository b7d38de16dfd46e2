import { InputError } from '../io/errors.ts';

/**
 * The error type of the config edge. Its message is a single line meant for people
 * (`config/x.yaml: migration.interval: expected an integer >= 1, got "ten"`): the CLI
 * prints it as is and exits with code 2 (an InputError). Never a stack trace, never a zod dump.
 */
export class ConfigError extends InputError {
  override name = 'ConfigError';
}
