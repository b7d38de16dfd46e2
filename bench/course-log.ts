/**
 * What the islands' course logs cost (src/archipelago/course-log.ts, issue 34: at most 1% of
 * evaluations/s at N = 1000). One paper island at N = 1000, M = 1000 steps `iterations`
 * times; its (iteration, evaluations, best) after each step are kept, then replayed through
 * fresh course logs enough times to time them well. The ratio is the log's time per
 * iteration over the island's time per iteration, both in this process, so a busy machine,
 * which slows both alike, moves it little.
 */
import { CourseLog } from '../src/archipelago/course-log.ts';
import { Island } from '../src/ga/island.ts';
import { paperParams } from '../src/ga/params.ts';
import { Rng } from '../src/ga/rng.ts';

export interface CourseLogCost {
  n: number;
  iterations: number;
  /** Per seed: seconds logging an iteration / seconds stepping one. */
  ratios: number[];
  median: number;
}

function run(n: number, iterations: number, seed: number): number {
  const island = new Island({ params: paperParams(n), rng: Rng.forStream(seed, 0) });
  const course = new Float64Array(3 * (iterations + 1));
  const keep = (t: number) => {
    course[3 * t] = t;
    course[3 * t + 1] = island.evaluations;
    course[3 * t + 2] = island.bestFitness();
  };
  keep(0);
  let steps = 0;
  const start = performance.now();
  for (let t = 1; t <= iterations; t++, steps++) {
    if (island.step()) break;
    keep(t);
  }
  const stepMs = (performance.now() - start) / Math.max(1, steps);
  const repeats = 2000;
  const logStart = performance.now();
  for (let r = 0; r < repeats; r++) {
    const log = new CourseLog();
    for (let i = 0; i <= steps; i++) log.note(course[3 * i], course[3 * i + 1], course[3 * i + 2]);
    log.entries();
  }
  const logMs = (performance.now() - logStart) / (repeats * (steps + 1));
  return logMs / stepMs;
}

export function benchCourseLog(n = 1000, iterations = 200, seeds = [1, 2, 3]): CourseLogCost {
  run(n, 10, 99); // warm-up
  const ratios = seeds.map((seed) => run(n, iterations, seed));
  const median = [...ratios].sort((a, b) => a - b)[ratios.length >> 1];
  return { n, iterations, ratios, median };
}
