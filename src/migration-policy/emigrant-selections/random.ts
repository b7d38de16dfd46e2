import type { EmigrantSelection } from '../../ga/migration-policy.ts';
import { optionlessPolicy } from '../define.ts';
import { contains } from './distinct.ts';

/** k distinct members uniformly at random (Floyd's algorithm: exactly k draws, no scratch). */
export const selectRandom: EmigrantSelection = (pop, rng, k, slots) => {
  const size = pop.size;
  let filled = 0;
  for (let j = size - k; j < size; j++) {
    const t = rng.int(j + 1);
    slots[filled] = contains(slots, filled, t) ? j : t;
    filled++;
  }
};

export const randomSelection = optionlessPolicy('random', 'k distinct members uniformly at random', selectRandom);
