import type { Population } from '../ga/population.ts';
import { rankSampleSlot, samplePosition } from './observables/sample.ts';

/** How many members the diversity estimate compares. */
export const DIVERSITY_SAMPLE = 16;
/** How many gene positions it compares at most: a fixed scattered sample beyond this. */
export const DIVERSITY_POSITIONS = 1024;

/**
 * Mean pairwise Hamming distance, as a fraction of N (0: all equal, 1: no gene in common),
 * over up to 16 members at evenly spaced ranks, best to worst. Above 1024 genes it compares
 * 1024 fixed scattered positions only, so a progress report stays cheap at N = 10^6. Draws no random
 * numbers, so measuring it leaves the GA's stream untouched.
 */
export function sampleDiversity(pop: Population): number {
  const s = Math.min(DIVERSITY_SAMPLE, pop.size);
  if (s < 2) return 0;
  const n = pop.n;
  const genes = pop.genes;
  const positions = Math.min(n, DIVERSITY_POSITIONS);
  let total = 0;
  for (let a = 0; a < s; a++) {
    const sa = rankSampleSlot(pop, a, s) * n;
    for (let b = a + 1; b < s; b++) {
      const sb = rankSampleSlot(pop, b, s) * n;
      for (let k = 0; k < positions; k++) {
        const i = samplePosition(k, n, positions);
        if (genes[sa + i] !== genes[sb + i]) total++;
      }
    }
  }
  return total / (positions * ((s * (s - 1)) / 2));
}
