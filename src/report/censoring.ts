/**
 * Unsolved runs are censored data: a run stopped by a limit says only that its time to
 * solution exceeds what it reached. Ranking such runs as +Infinity ("slower than every
 * solved run") is right only when every unsolved run of a comparison was cut off at the same
 * value of the measure and no run was solved past that value. Otherwise (an iteration limit
 * is a different evaluation budget for 1 and 2 islands) +Infinity can put a run cut off
 * early after runs that solved later, and the sign of an effect can come out wrong. Then the
 * comparison is made at the common budget: every run is read as "solved within the smallest
 * cut-off of the comparison, at this value" or "not", a question every run answers exactly.
 */
import type { RunRecord } from '../experiment/records.ts';
import type { Metric } from './summary.ts';

/** A cell's limits in each measure (from its resolved run config); null = none. */
export interface CellLimits {
  maxIterations: number | null;
  maxEvaluations: number | null;
  timeLimit: number | null;
}

/** The limits of a resolved run config (`maxEvaluations` is absent from the configs of studies before 0.2: no limit). */
export function cellLimits(config: {
  limits: { maxIterations: number | null; maxEvaluations?: number | null; timeLimit: number | null };
}): CellLimits {
  const { limits } = config;
  return { maxIterations: limits.maxIterations, maxEvaluations: limits.maxEvaluations ?? null, timeLimit: limits.timeLimit };
}

/** One run in one measure: its value, whether it solved, and for an unsolved run where it was cut off. */
export interface Observation {
  solved: boolean;
  /** The value to solution when solved; what the run reached when not. */
  value: number;
  /** Unsolved: the value past which its time to solution lies (the cell's limit in this measure, or what it reached before another limit stopped it). */
  cutoff: number;
}

/** A run as an observation of `metric`: an unsolved run is cut off at the cell's limit in that measure, or earlier where another limit stopped it. */
export function observe(run: RunRecord, metric: Metric, limits: CellLimits): Observation {
  const value = run[metric];
  if (run.solved) return { solved: true, value, cutoff: value };
  const limit = metric === 'iterations' ? limits.maxIterations : metric === 'evaluations' ? limits.maxEvaluations : limits.timeLimit;
  return { solved: false, value, cutoff: limit === null ? value : Math.min(value, limit) };
}

/**
 * How a comparison treats its unsolved runs:
 * - `all-solved`: none unsolved, the values are compared as they are;
 * - `infinity-rank`: every unsolved run cut off at one value that no solved run exceeds, so
 *   +Infinity ranks each run exactly as its unknown value would;
 * - `common-budget`: otherwise; every run is compared as min(time to solution, budget), with
 *   budget the smallest cut-off of the comparison (runs not solved within it tie, above
 *   every run solved within it): what Gehan's generalised Wilcoxon does with one censoring time.
 */
export type CensoringTest = 'all-solved' | 'infinity-rank' | 'common-budget';

export interface CensoringPlan {
  test: CensoringTest;
  /** Runs not solved within this value rank as tied above every run that was; null when all solved. */
  budget: number | null;
  /** Why +Infinity is not valid here, for the report; null when it is (or nothing is unsolved). */
  why: string | null;
}

function short(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toPrecision(3);
}

/** Decides the treatment of unsolved runs for one comparison (every observation of every cell compared). */
export function censoringPlan(observations: readonly Observation[], metric: Metric): CensoringPlan {
  const cutoffs = [...new Set(observations.filter((o) => !o.solved).map((o) => o.cutoff))].sort((a, b) => a - b);
  if (cutoffs.length === 0) return { test: 'all-solved', budget: null, why: null };
  const budget = cutoffs[0];
  if (cutoffs.length > 1) {
    const listed = cutoffs.length > 3 ? `${short(cutoffs[0])} to ${short(cutoffs[cutoffs.length - 1])}` : cutoffs.map(short).join(', ');
    return { test: 'common-budget', budget, why: `unsolved runs were cut off at different ${metric} (${listed})` };
  }
  const past = observations.filter((o) => o.solved && o.value > budget).map((o) => o.value);
  if (past.length > 0) {
    return {
      test: 'common-budget',
      budget,
      why: `${past.length} run${past.length === 1 ? '' : 's'} solved past ${short(budget)} ${metric}, where unsolved runs were cut off`,
    };
  }
  return { test: 'infinity-rank', budget, why: null };
}

/** An observation within the plan's budget: its value when solved within it, else +Infinity ("not within"; ties with every such run). */
export function censoredValue(o: Observation, plan: CensoringPlan): number {
  return o.solved && (plan.budget === null || o.value <= plan.budget) ? o.value : Infinity;
}

/**
 * The value the signed-rank test compares: for the budget test min(time to solution, B), so
 * a run not solved within B counts B (the documented test, which scipy and R redo on these
 * numbers); for the ∞ rank test and all-solved comparisons, censoredValue.
 */
export function testedValue(o: Observation, plan: CensoringPlan): number {
  const v = censoredValue(o, plan);
  return plan.test === 'common-budget' && v === Infinity ? plan.budget! : v;
}
