import type { EmigrantSelection } from '../../ga/migration-policy.ts';
import type { Population } from '../../ga/population.ts';
import type { Rng } from '../../ga/rng.ts';
import { POLICY_DEFAULTS } from '../defaults.ts';
import { defineEmigrantSelection } from '../define.ts';
import { contains } from './distinct.ts';

/**
 * k tournaments of `size` members drawn uniformly (with replacement); the fittest (lowest
 * rank) wins. To keep the k slots distinct, a winner already chosen gives way to the next
 * unchosen rank below it (wrapping to the best), which costs no extra draws. `size` >= 1.
 */
export function selectTournament(size: number): EmigrantSelection {
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

const SIZE = POLICY_DEFAULTS.tournament.size;

export const tournamentSelection = defineEmigrantSelection({
  kind: 'tournament',
  help: 'k tournaments of K random members, the fittest of each leaves',
  options: (f) => ({
    size: f
      .int(2)
      .default(SIZE)
      .describe(`tournament size K for emigrantSelection "tournament" (tournament(K) gives it inline); default ${SIZE}`),
  }),
  flags: {
    size: {
      name: 'tournament-size',
      value: 'number',
      describe: `tournament size K of the tournament emigrant selection (default ${SIZE})`,
    },
  },
  argument: { option: 'size', placeholder: 'K' },
  resolve: ({ size }, { populationSize, fail }) => {
    if (size > populationSize)
      fail('size', `a tournament of ${size} is more than ga.populationSize (${populationSize})`, ['ga.populationSize']);
    return { size };
  },
  build: ({ size }) => selectTournament(size),
});
