import type { Population } from '../ga/population.ts';

/** How many members the diversity estimate compares. */
export const DIVERSITY_SAMPLE = 16;

/**
 * Mean pairwise Hamming distance (genes that differ, 0..N) over up to 16 members at evenly
 * spaced ranks, best to worst. Draws no random numbers, so measuring it leaves the GA's
 * stream untouched.
 */
export function sampleDiversity(pop: Population): number {
  const s = Math.min(DIVERSITY_SAMPLE, pop.size);
  if (s < 2) return 0;
  const n = pop.n;
  const genes = pop.genes;
  let total = 0;
  for (let a = 0; a < s; a++) {
    const sa = pop.order[Math.floor((a * (pop.size - 1)) / (s - 1))] * n;
    for (let b = a + 1; b < s; b++) {
      const sb = pop.order[Math.floor((b * (pop.size - 1)) / (s - 1))] * n;
      for (let i = 0; i < n; i++) if (genes[sa + i] !== genes[sb + i]) total++;
    }
  }
  return total / ((s * (s - 1)) / 2);
}
