import type { ReplacementPolicy } from '../../ga/migration-policy.ts';
import { optionlessPolicy } from '../define.ts';

/** Each immigrant meets one uniformly random member and replaces it when strictly fitter. */
export const replaceRandomIfBetter: ReplacementPolicy = (pop, rng, genes, fitness, count) => {
  const n = pop.n;
  let accepted = 0;
  for (let i = 0; i < count; i++) {
    const slot = rng.int(pop.size);
    if (fitness[i] < pop.fitness[slot]) {
      pop.copyIn(slot, genes, i * n, fitness[i]);
      accepted++;
    }
  }
  if (accepted > 0) pop.rerank();
  return accepted;
};

export const randomIfBetterReplacement = optionlessPolicy(
  'random-if-better',
  'an immigrant replaces a random member if strictly fitter',
  replaceRandomIfBetter,
);
