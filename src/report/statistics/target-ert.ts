/**
 * ERT at intermediate targets: how many evaluations a cell needs, on the ERT's terms, to bring
 * the best fitness down to f <= target, for a few targets on the way to a solution (f = 0). It
 * shows where a setting gains or loses: in the descent, or in the last conflicts. Read from
 * each run's trajectory (exact and evaluation-counted, the one record of a run's course that
 * the ECDF and the fixed-budget curves read), with the censoring rule of ERT
 * (docs/experiments.md): a run that never reached the target contributes its whole budget.
 */
import type { RunRecord } from '../../experiment/records.ts';
import { hitAt } from './run-length.ts';
import { ertInterval, expectedRunningTime, type Interval, type RunLength } from './stats.ts';

/**
 * The targets, in the paper's fitness (the sum over diagonals of queens on it - 1, minimised): halvings from 8 down to 1,
 * then a solution. They sit close to 0 at every N: the descent to a few conflicts is quick, and
 * the last conflicts are where runs differ most (at N = 200, 2 or 4 islands, the share of a
 * run's evaluations spent after it reached f <= 1 ranged from 0.3% to 93%, median 6%).
 */
export const ERT_TARGETS = Object.freeze([8, 4, 2, 1, 0] as const);

export interface TargetErt {
  /** Fitness to reach: the best of the run at or below it. */
  target: number;
  /** Runs that reached it. */
  reached: number;
  /** Evaluations of all runs to the target (or to their end, when they missed it) / runs that reached it; +Infinity when none did. */
  ert: number;
  /** Percentile bootstrap 95% interval, as the cell's ERT's (ERT_BOOTSTRAP). */
  interval: Interval;
}

/** A run's length to `target`: the evaluations at its first trajectory point at or below it, or its whole budget when it missed it. */
export function targetRunLength(run: RunRecord, target: number): RunLength {
  const hit = hitAt(run, target);
  return hit === null ? { solved: false, evaluations: run.evaluations } : { solved: true, evaluations: hit };
}

/** ERT with its interval for each target, over a cell's runs. */
export function ertAtTargets(runs: readonly RunRecord[], targets: readonly number[] = ERT_TARGETS): TargetErt[] {
  return targets.map((target) => {
    const lengths = runs.map((r) => targetRunLength(r, target));
    return {
      target,
      reached: lengths.filter((l) => l.solved).length,
      ert: expectedRunningTime(lengths),
      interval: ertInterval(lengths),
    };
  });
}
