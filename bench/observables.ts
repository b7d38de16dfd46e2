/**
 * What the migration observables cost (docs/events.md, "Migration observables"): two paper
 * islands in one thread, N = 1000 and the paper's M = 1000, exchanging the default 20
 * emigrants (2%) every iteration, with the observables as the island loop runs them
 * (survival tracking around every batch, a check every iteration, an observation at every
 * iteration of the progress schedule). The time spent in the observables is measured around
 * their calls and set against the rest of the same run, so a busy machine, which slows both
 * alike, does not move the ratio the way it moves a comparison of two runs.
 */
import { observe } from '../src/archipelago/observables/sample.ts';
import { ImmigrantTracker } from '../src/archipelago/observables/survival.ts';
import { isScheduledIteration } from '../src/archipelago/schedule.ts';
import { replaceWorstIfBetter } from '../src/migration-policy/replacements/worst-if-better.ts';
import { selectBest } from '../src/migration-policy/emigrant-selections/best.ts';
import { Island } from '../src/ga/island.ts';
import { paperParams } from '../src/ga/params.ts';
import { Rng } from '../src/ga/rng.ts';

export interface ObservablesCost {
  n: number;
  iterations: number;
  /** Per seed: seconds in the observables / seconds in everything else, in one run. */
  ratios: number[];
  median: number;
}

/** One run of `iterations` (fewer if an island solves); returns [seconds in the observables, seconds in the rest]. */
function run(n: number, iterations: number, seed: number): [number, number] {
  const islands = [0, 1].map((i) => new Island({ params: paperParams(n), rng: Rng.forStream(seed, i) }));
  const trackers = [0, 1].map((i) => new ImmigrantTracker(i));
  let observing = 0;
  const start = performance.now();
  for (let t = 1; t <= iterations; t++) {
    if (islands.some((island) => island.step())) break;
    const out = islands.map((island) => island.emigrants(20, selectBest));
    islands.forEach((island, i) => {
      const pop = island.population;
      let at = performance.now();
      const mark = trackers[i].mark(pop);
      observing += performance.now() - at;
      const accepted = island.immigrate(out[1 - i], 20, replaceWorstIfBetter);
      at = performance.now();
      trackers[i].taken(pop, mark, 1 - i, 0, t, 20, accepted);
      trackers[i].check(pop, t);
      trackers[i].take();
      if (isScheduledIteration(t)) observe(pop);
      observing += performance.now() - at;
    });
  }
  const total = performance.now() - start;
  return [observing / 1000, (total - observing) / 1000];
}

export function benchObservables(n = 1000, iterations = 300, seeds = [1, 2, 3]): ObservablesCost {
  run(n, 20, 99); // warm-up
  const ratios = seeds.map((seed) => {
    const [observing, rest] = run(n, iterations, seed);
    return observing / rest;
  });
  const median = [...ratios].sort((a, b) => a - b)[ratios.length >> 1];
  return { n, iterations, ratios, median };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  console.log(JSON.stringify(benchObservables()));
}
