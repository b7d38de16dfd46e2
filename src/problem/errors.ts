import { InputError } from '../io/errors.ts';

/** A tuple that cannot be read as numbers at all (not a question of N-Queens validity). */
export class TupleSyntaxError extends InputError {
  override name = 'TupleSyntaxError';
}
