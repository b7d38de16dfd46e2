import type { ReplacementPolicy } from '../../ga/migration-policy.ts';
import { optionlessPolicy } from '../define.ts';

/** The immigrants replace the `count` worst members whatever their fitness. */
export const replaceWorst: ReplacementPolicy = (pop, _rng, genes, fitness, count) => {
  const k = Math.min(count, pop.size);
  const n = pop.n;
  // Slots are read from `order` before any write, so the k worst are distinct.
  for (let i = 0; i < k; i++) pop.copyIn(pop.order[pop.size - 1 - i], genes, i * n, fitness[i]);
  if (k > 0) pop.rerank();
  return k;
};

export const worstReplacement = optionlessPolicy('worst', 'the immigrants replace the worst members whatever their fitness', replaceWorst);
