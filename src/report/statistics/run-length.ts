/**
 * The data of the run-length figures, read from each run's trajectory (the one source of a
 * run's course): the fixed-target ECDF and the fixed-budget curves per cell. Kept apart from
 * their Vega-Lite specs (study-charts.ts) so the library's report types need no chart types.
 */
import type { RunRecord } from '../../experiment/records.ts';
import type { Trajectory } from '../../archipelago/trajectory.ts';
import { quantile } from './stats.ts';

/** Short names of the cells in manifest order: c1, c2, ... */
export function shortNames(cells: readonly string[]): Map<string, string> {
  return new Map(cells.map((id, i) => [id, `c${i + 1}`]));
}

/**
 * The evaluations at which a run first reached fitness <= `target`, read from its
 * trajectory (the one source of a run's course); null when it did not. A record without a
 * trajectory (before 0.2) answers the target 0 only, from its end.
 */
export function hitAt(run: RunRecord, target: number): number | null {
  const t = run.trajectory;
  if (t === undefined || t.length === 0) return run.solved && target >= 0 ? run.evaluations : null;
  for (const [x, f] of t) if (f <= target) return x;
  return null;
}

export interface EcdfPoint {
  cell: string;
  evaluations: number;
  /** Share of the cell's runs that reached the target within `evaluations`. */
  solved: number;
  /** True at the cell's cut-off: the last budget every one of its runs was watched to. */
  cutoff: boolean;
}

/**
 * The fixed-target ECDF per cell for fitness <= `target` (0: a solution): for each run that
 * reached it, the share of all the cell's runs that had by then. A cell's line stops at its
 * own cut-off, the fewest evaluations at which one of its runs that missed the target was
 * stopped (past that its share is unknown), marked there; a cell whose every run reached the
 * target ends at its last. Every line starts at 0 at the study's first hit.
 */
export function ecdfPoints(
  runs: readonly RunRecord[],
  cells: readonly string[],
  names: ReadonlyMap<string, string> = shortNames(cells),
  target = 0,
): EcdfPoint[] {
  const hits = runs.map((r) => hitAt(r, target)).filter((h): h is number => h !== null);
  if (hits.length === 0) return [];
  const lo = least(hits);
  return cells.flatMap((id) => {
    const own = runs.filter((r) => r.cell === id);
    const missed = own.filter((r) => hitAt(r, target) === null).map((r) => r.evaluations);
    const cut = missed.length > 0 ? least(missed) : null;
    const values = own
      .map((r) => hitAt(r, target))
      .filter((h): h is number => h !== null && (cut === null || h <= cut))
      .sort((a, b) => a - b);
    const cell = names.get(id)!;
    const points: EcdfPoint[] = [{ cell, evaluations: lo, solved: 0, cutoff: false }];
    values.forEach((v, k) => points.push({ cell, evaluations: v, solved: (k + 1) / own.length, cutoff: false }));
    if (cut !== null) points.push({ cell, evaluations: Math.max(cut, lo), solved: values.length / own.length, cutoff: true });
    return points;
  });
}

/** Best fitness of a trajectory within `budget`: its last point at or below it; undefined before its first point or, for an unsolved run, past its end. */
export function fitnessWithin(trajectory: Trajectory, solved: boolean, budget: number): number | undefined {
  return fitnessesWithin(trajectory, solved, [budget])[0];
}

/** fitnessWithin at each of `budgets` (ascending), read in one pass over the trajectory, not one per budget. */
export function fitnessesWithin(trajectory: Trajectory, solved: boolean, budgets: readonly number[]): (number | undefined)[] {
  // The last point of the longest prefix at or below the budget (the scan's stop), carried on to the next, larger budget.
  let at = 0;
  let previous = -Infinity;
  return budgets.map((budget) => {
    if (budget < previous) at = 0; // budgets out of order: scan again from the start
    previous = budget;
    if (trajectory.length === 0 || budget < trajectory[0][0]) return undefined;
    if (budget > trajectory[trajectory.length - 1][0]) return solved ? 0 : undefined;
    while (at + 1 < trajectory.length && trajectory[at + 1][0] <= budget) at++;
    return trajectory[at][1];
  });
}

export interface BudgetPoint {
  cell: string;
  evaluations: number;
  /** Median over the cell's runs of the best fitness reached within `evaluations`. */
  median: number;
}

/** Budgets at which the fixed-budget curves are read: 12 per decade of the study's range, log-spaced. */
const BUDGETS_PER_DECADE = 12;

/**
 * Fixed-budget curves: per cell, the median over its runs of the best fitness reached within
 * each budget (log-spaced), from the records' trajectories. A cell's line is drawn only over
 * budgets at which every one of its runs has a value: from its runs' first samples to the
 * smallest budget at which one of its unsolved runs was stopped (past that, the run's value is unknown).
 */
export function fixedBudgetPoints(
  runs: readonly RunRecord[],
  cells: readonly string[],
  names: ReadonlyMap<string, string> = shortNames(cells),
): BudgetPoint[] {
  const traced = runs.filter((r) => r.trajectory !== undefined && r.trajectory.length > 0);
  if (traced.length === 0) return [];
  const lo = least(traced.map((r) => r.trajectory![0][0]));
  const hi = -least(traced.map((r) => -r.trajectory![r.trajectory!.length - 1][0]));
  const steps = Math.max(1, Math.ceil(Math.log10(Math.max(hi, lo + 1) / Math.max(lo, 1)) * BUDGETS_PER_DECADE));
  const budgets = Array.from({ length: steps + 1 }, (_, k) => Math.max(lo, 1) * (Math.max(hi, lo + 1) / Math.max(lo, 1)) ** (k / steps));
  return cells.flatMap((id) => {
    const own = traced.filter((r) => r.cell === id);
    if (own.length === 0 || own.length < runs.filter((r) => r.cell === id).length) return [];
    const rows = own.map((r) => fitnessesWithin(r.trajectory!, r.solved, budgets));
    return budgets.flatMap((budget, k) => {
      const values = rows.map((row) => row[k]);
      if (values.some((v) => v === undefined)) return [];
      return [{ cell: names.get(id)!, evaluations: budget, median: quantile(values as number[], 0.5) }];
    });
  });
}

/** The least of `values` (Infinity for none): a loop, where Math.min(...values) overflows the stack past about 100,000 runs. */
function least(values: readonly number[]): number {
  let min = Infinity;
  for (const v of values) if (v < min) min = v;
  return min;
}
