import type { EmigrantSelection } from '../../ga/migration-policy.ts';
import type { Population } from '../../ga/population.ts';
import type { Rng } from '../../ga/rng.ts';
import { MigrationPolicyError } from '../errors.ts';

/**
 * Emigrant selections (DEAP style: plain functions). Contract of `EmigrantSelection`: write
 * `k` DISTINCT slots of `pop` into `slots[0..k)`, k ≤ pop.size; `pop.order` is current.
 */

/** The k best members (ranks 0..k-1). Draws nothing from `rng`. */
export const selectBest: EmigrantSelection = (pop, _rng, k, slots) => {
  for (let r = 0; r < k; r++) slots[r] = pop.order[r];
};

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

/**
 * k tournaments of `size` members drawn uniformly (with replacement); the fittest (lowest
 * rank) wins. To keep the k slots distinct, a winner already chosen gives way to the next
 * unchosen rank below it (wrapping to the best), which costs no extra draws.
 */
export function selectTournament(size: number): EmigrantSelection {
  if (!Number.isInteger(size) || size < 1) {
    throw new MigrationPolicyError(`emigrantSelection.size must be a positive integer, got ${size}`);
  }
  return (pop: Population, rng: Rng, k: number, slots: Int32Array) => {
    const m = pop.size;
    const ranks = slots; // ranks first, slots at the end: no scratch array
    for (let i = 0; i < k; i++) {
      let best = m;
      for (let t = 0; t < size; t++) {
        const r = rng.int(m);
        if (r < best) best = r;
      }
      while (contains(ranks, i, best)) best = (best + 1) % m;
      ranks[i] = best;
    }
    for (let i = 0; i < k; i++) slots[i] = pop.order[ranks[i]];
  };
}

function contains(values: Int32Array, count: number, v: number): boolean {
  for (let i = 0; i < count; i++) if (values[i] === v) return true;
  return false;
}

export type EmigrantSelectionSpec = { kind: 'best' } | { kind: 'random' } | { kind: 'tournament'; size: number };

export const EMIGRANT_SELECTION_KINDS = ['best', 'random', 'tournament'] as const;

/** The selection function a spec names. */
export function emigrantSelectionFor(spec: EmigrantSelectionSpec): EmigrantSelection {
  switch (spec?.kind) {
    case 'best': return selectBest;
    case 'random': return selectRandom;
    case 'tournament': return selectTournament(spec.size);
    default:
      throw new MigrationPolicyError(
        `emigrantSelection.kind must be one of ${EMIGRANT_SELECTION_KINDS.join(', ')}, got ${String((spec as { kind?: unknown })?.kind)}`,
      );
  }
}
