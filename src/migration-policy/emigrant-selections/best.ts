import type { EmigrantSelection } from '../../ga/migration-policy.ts';
import { optionlessPolicy } from '../define.ts';

/** The k best members (ranks 0..k-1). Draws nothing from `rng`. */
export const selectBest: EmigrantSelection = (pop, _rng, k, slots) => {
  for (let r = 0; r < k; r++) slots[r] = pop.order[r];
};

export const bestSelection = optionlessPolicy('best', 'the k best members', selectBest);
