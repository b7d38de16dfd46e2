import type { ReplacementPolicy } from '../../ga/migration-policy.ts';
import { plusSelection } from '../../ga/survival.ts';
import { optionlessPolicy } from '../define.ts';

/**
 * The default, and exactly the GA's own survival: immigrants compete like children, each
 * replacing the worst member only when strictly fitter (ties keep the resident).
 */
export const replaceWorstIfBetter: ReplacementPolicy = (pop, _rng, genes, fitness, count, scratch) =>
  plusSelection(pop, genes, fitness, count, scratch);

export const worstIfBetterReplacement = optionlessPolicy(
  'worst-if-better',
  "an immigrant replaces the worst member if strictly fitter, as the GA's own survival does",
  replaceWorstIfBetter,
);
