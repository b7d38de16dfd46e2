/**
 * The run's trajectory: its best fitness by evaluations, where it improved, combined from
 * the islands' course logs (course-log.ts) on the iteration schedule. At iteration t the
 * run's evaluations are the sum of every island's evaluations through t (so the first point
 * counts every initial population) and its best is the least of the islands' bests. No clock
 * is involved: in sync and lagged modes a seed repeats it bit for bit; in async mode it is
 * exact for the run, the islands' iterations set side by side.
 */
import { COURSE_ENTRY } from './course-log.ts';

/** [evaluations of all islands, best fitness of the run], evaluations rising, fitness falling. */
export type Trajectory = [evaluations: number, bestFitness: number][];

/** One island's log, read back at any iteration. */
class Course {
  /** The entry at or before the iteration last asked for. */
  private at = 0;

  constructor(private readonly log: Float64Array) {}

  /** The island's evaluations through iteration `t` and its best so far; `t` must not decrease between calls. */
  read(t: number): { evaluations: number; best: number } {
    const { log } = this;
    while (this.at + COURSE_ENTRY < log.length && log[this.at + COURSE_ENTRY] <= t) this.at += COURSE_ENTRY;
    const i = this.at;
    const next = i + COURSE_ENTRY;
    if (t <= log[i] || next >= log.length) return { evaluations: log[i + 1], best: log[i + 2] };
    // Between two entries the evaluations grow evenly (exact integers: checked in `valid`).
    const perIteration = (log[next + 1] - log[i + 1]) / (log[next] - log[i]);
    return { evaluations: log[i + 1] + (t - log[i]) * perIteration, best: log[i + 2] };
  }
}

const isCount = (x: number) => Number.isSafeInteger(x) && x >= 0;

/** A log from another host is input: counts, iterations rising, evaluations not falling, evenly between entries, best not rising. */
function valid(log: unknown): log is Float64Array {
  if (!(log instanceof Float64Array) || log.length === 0 || log.length % COURSE_ENTRY !== 0) return false;
  for (let i = 0; i < log.length; i += COURSE_ENTRY) {
    if (!isCount(log[i]) || !isCount(log[i + 1]) || !isCount(log[i + 2])) return false;
    if (i === 0) continue;
    const steps = log[i] - log[i - COURSE_ENTRY];
    const added = log[i + 1] - log[i + 1 - COURSE_ENTRY];
    if (steps <= 0 || added < 0 || added % steps !== 0 || log[i + 2] > log[i + 2 - COURSE_ENTRY]) return false;
  }
  return true;
}

/**
 * The trajectory of a run from its islands' course logs (an island without a valid log is
 * left out), at the iterations before `before` (the winning iteration of a solved run;
 * Infinity otherwise), ending with the run's `end`: its evaluations and fitness as the
 * result counts them. Points at or past the end are dropped, so every point but the last
 * is an improvement.
 */
export function combineCourses(
  logs: readonly (Float64Array | null | undefined)[],
  before: number,
  end: { evaluations: number; fitness: number },
): Trajectory {
  const usable = logs.filter(valid);
  // The run's best can improve only where some island's did.
  const candidates = new Set<number>();
  for (const log of usable) {
    for (let i = 0; i < log.length; i += COURSE_ENTRY) {
      if ((i === 0 || log[i + 2] < log[i + 2 - COURSE_ENTRY]) && log[i] < before) candidates.add(log[i]);
    }
  }
  const courses = usable.map((log) => new Course(log));
  const points: Trajectory = [];
  for (const t of [...candidates].sort((a, b) => a - b)) {
    let evaluations = 0;
    let best = Infinity;
    for (const course of courses) {
      const read = course.read(t);
      evaluations += read.evaluations;
      best = Math.min(best, read.best);
    }
    const last = points[points.length - 1];
    if (last === undefined || best < last[1]) points.push([evaluations, best]);
  }
  const kept = points.filter(([x, f]) => x < end.evaluations && f >= end.fitness && f > 0);
  kept.push([end.evaluations, end.fitness]);
  return kept;
}
