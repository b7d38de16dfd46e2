/**
 * Unsolved runs are censored data: a run stopped by a limit says only that its time to
 * solution exceeds what it reached. Every comparison treats them one way: both cells are
 * read at their common budget B, the smallest of their limits in the measure and of the
 * cut-offs of their unsolved runs, and each run counts min(time to solution, B). A run not
 * solved within B counts B; two such runs of a seed tie (a zero difference, which the
 * signed-rank test drops). B is where both cells answer the same question, and scipy and R
 * redo the test on these numbers (docs/experiments.md).
 */
import type { RunRecord } from '../../experiment/records.ts';

/**
 * The measures, evaluations first: on shared cores a time says more about the machine than about the
 * setting. Declared here, where a run is observed in one; summary.ts passes them on to the tables and charts.
 */
export const METRICS = ['evaluations', 'iterations', 'seconds'] as const;
export type Metric = (typeof METRICS)[number];

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
  const limit = limitIn(limits, metric);
  // Stopped by the evaluation budget: it needs more than the budget (docs/experiments.md, "A budget is a prefix"), though it may have spent a little less.
  if (limit !== null && metric === 'evaluations' && run.ended === 'max-evaluations') return { solved: false, value, cutoff: limit };
  return { solved: false, value, cutoff: limit === null ? value : Math.min(value, limit) };
}

/**
 * How a comparison treated its runs: `all-solved`, every run solved within B (or there is no
 * B), so the values are compared as they are; `common-budget`, some run counts B.
 */
export type CensoringTest = 'all-solved' | 'common-budget';

export interface CensoringPlan {
  test: CensoringTest;
  /** The common budget B; null when neither cell has a limit in the measure and every run solved. */
  budget: number | null;
  /** Why some runs count B, for the report; null when none does. */
  why: string | null;
}

function short(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toPrecision(3);
}

/**
 * The common budget of a comparison: the smallest of both cells' limits in the measure and
 * of the cut-offs of their unsolved runs (`observations` of both cells).
 */
export function censoringPlan(observations: readonly Observation[], metric: Metric, limits: readonly (number | null)[]): CensoringPlan {
  const cutoffs = observations.filter((o) => !o.solved).map((o) => o.cutoff);
  const budget = Math.min(...cutoffs, ...limits.map((l) => l ?? Infinity));
  if (budget === Infinity) return { test: 'all-solved', budget: null, why: null };
  const unsolved = cutoffs.length;
  const past = observations.filter((o) => o.solved && o.value > budget).length;
  if (unsolved === 0 && past === 0) return { test: 'all-solved', budget, why: null };
  const parts = [
    ...(unsolved > 0 ? [`${unsolved} run${unsolved === 1 ? '' : 's'} unsolved`] : []),
    ...(past > 0 ? [`${past} solved past ${short(budget)} ${metric}`] : []),
  ];
  return { test: 'common-budget', budget, why: parts.join(', ') };
}

/** An observation within the plan's budget: its value when solved within it, else +Infinity ("not within"; ties with every such run). */
export function censoredValue(o: Observation, plan: CensoringPlan): number {
  return o.solved && (plan.budget === null || o.value <= plan.budget) ? o.value : Infinity;
}

/** The value the test compares: min(time to solution, B). */
export function testedValue(o: Observation, plan: CensoringPlan): number {
  const v = censoredValue(o, plan);
  return v === Infinity ? plan.budget! : v;
}

/** A cell's limit in `metric`. */
export function limitIn(limits: CellLimits, metric: Metric): number | null {
  return metric === 'iterations' ? limits.maxIterations : metric === 'evaluations' ? limits.maxEvaluations : limits.timeLimit;
}
