import type { ReplacementPolicy } from '../../ga/migration-policy.ts';
import { plusSelection } from '../../ga/survival.ts';
import { MigrationPolicyError } from '../errors.ts';

/**
 * Replacement policies (DEAP style: plain functions). Contract of `ReplacementPolicy`:
 * `count` evaluated immigrants (flat genes, fitness) enter `pop` by some rule; the
 * population is reranked if anything changed; returns how many entered.
 */

/**
 * The default, and exactly the GA's own survival: immigrants compete like children, each
 * replacing the worst member only when strictly fitter (ties keep the resident).
 */
export const replaceWorstIfBetter: ReplacementPolicy = (pop, _rng, genes, fitness, count, scratch) =>
  plusSelection(pop, genes, fitness, count, scratch);

/** The immigrants replace the `count` worst members whatever their fitness. */
export const replaceWorst: ReplacementPolicy = (pop, _rng, genes, fitness, count) => {
  const k = Math.min(count, pop.size);
  const n = pop.n;
  // Slots are read from `order` before any write, so the k worst are distinct.
  for (let i = 0; i < k; i++) pop.copyIn(pop.order[pop.size - 1 - i], genes, i * n, fitness[i]);
  if (k > 0) pop.rerank();
  return k;
};

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

export const REPLACEMENT_KINDS = ['worst-if-better', 'worst', 'random-if-better'] as const;
export type ReplacementKind = (typeof REPLACEMENT_KINDS)[number];

const REPLACEMENTS: Record<ReplacementKind, ReplacementPolicy> = {
  'worst-if-better': replaceWorstIfBetter,
  worst: replaceWorst,
  'random-if-better': replaceRandomIfBetter,
};

/** The replacement policy a name picks. */
export function replacementFor(kind: ReplacementKind): ReplacementPolicy {
  const policy = (REPLACEMENTS as Record<string, ReplacementPolicy | undefined>)[kind];
  if (!policy) throw new MigrationPolicyError(`replacement must be one of ${REPLACEMENT_KINDS.join(', ')}, got ${String(kind)}`);
  return policy;
}
