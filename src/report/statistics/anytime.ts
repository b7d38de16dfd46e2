/**
 * The area over a cell's convergence curve: an anytime measure, read from the runs' exact
 * trajectories, that credits a cell for good fitness early and not only for the end. A run's
 * curve is its best fitness after x evaluations, a step at each trajectory point (before its
 * first point, which counts every initial population: that point's fitness). Over one range
 * [0, X] for every cell of the study, a run's area is (1/X) ∫_0^X f(x) dx, its mean best
 * fitness across the range; the cell's is the mean over its runs. Lower is better; 0 would be
 * solved at once. Descriptive: no test, no interval. X is the fewest evaluations an unsolved
 * run of the study reached (past it some curve is unknown), or with every run solved the most
 * any run needed (a solved curve stays at 0).
 */
import type { RunRecord } from '../../experiment/records.ts';

/** The common range X of a study's runs; null if some run has no trajectory (records before 0.2) or there are none. */
export function anytimeRange(runs: readonly RunRecord[]): number | null {
  if (runs.length === 0 || runs.some((r) => !r.trajectory || r.trajectory.length === 0)) return null;
  const unsolved = runs.filter((r) => !r.solved).map((r) => r.evaluations);
  return unsolved.length > 0 ? Math.min(...unsolved) : Math.max(...runs.map((r) => r.evaluations));
}

/** (1/X) ∫_0^X of one run's best fitness by evaluations (its trajectory: x rising, fitness falling). */
function runArea(trajectory: readonly (readonly [number, number])[], upTo: number): number {
  let area = 0;
  let [from, fitness] = [0, trajectory[0][1]];
  for (const [x, f] of trajectory) {
    if (x >= upTo) break;
    area += fitness * (x - from);
    [from, fitness] = [x, f];
  }
  return (area + fitness * (upTo - from)) / upTo;
}

/** The cell's mean best fitness over [0, upTo]; NaN without a range or runs. */
export function meanFitnessOver(runs: readonly RunRecord[], upTo: number | null): number {
  if (upTo === null || upTo <= 0 || runs.length === 0) return Number.NaN;
  return runs.reduce((sum, r) => sum + runArea(r.trajectory!, upTo), 0) / runs.length;
}
