import { InputError } from '../io/errors.ts';

/** A bad topology: one line naming the option and what was expected (an InputError: exit 2 in the CLI). */
export class TopologyError extends InputError {
  override name = 'TopologyError';
}
