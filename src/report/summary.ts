/**
 * The numbers of a study, as data: per cell the success rate with its interval, ERT with its
 * bootstrap interval, the quartiles of time, evaluations and iterations to solution, and the
 * paired comparison with its baseline cell, made with the treatment of unsolved runs that is
 * valid for it (censoring.ts). The terminal table, the CSV and the HTML page are all rendered from this.
 */
import { isRepeatable } from '../archipelago/modes/registry.ts';
import type { RunRecord } from '../experiment/records.ts';
import type { SweepValue } from '../experiment/sweep.ts';
import { cellLimits, censoredValue, censoringPlan, observe, testedValue, type CellLimits, type CensoringPlan } from './censoring.ts';
import { pairedRatio, RATIO_BOOTSTRAP, type RatioEstimate } from './ratio.ts';
import {
  comparePaired,
  ERT_BOOTSTRAP,
  ertInterval,
  expectedRunningTime,
  fisherExact,
  holm,
  median,
  quartiles,
  wilson,
  type Interval,
  type PairedComparison,
  type Quartiles,
} from './stats.ts';
import type { StudyData } from './study-data.ts';
import { ertAtTargets, type TargetErt } from './target-ert.ts';

/** The measures, evaluations first: on shared cores a time says more about the machine than about the setting. */
export const METRICS = ['evaluations', 'iterations', 'seconds'] as const;
export type Metric = (typeof METRICS)[number];

/** p below this (Holm-adjusted) is reported as an effect in the verdict. */
export const ALPHA = 0.05;

/**
 * Time comparisons are not tested when either cell's median search time (on the
 * comparison's scale) is below this: thread start-up, garbage collection and other load on
 * shared cores move a run by tens of milliseconds, a tenth of half a second.
 */
export const TIME_NOISE_FLOOR_SECONDS = 0.5;

export interface Comparison extends PairedComparison, CensoringPlan {
  /** The cell / baseline ratio with its 95% bootstrap interval over seeds (ratio.ts). */
  ratio: RatioEstimate;
  /** Why no test was made (a time below the noise floor); null when tested. */
  notRun: string | null;
  /** Holm-adjusted p-value over the report's family: every test of every cell (see holmFamily). */
  pHolm: number;
  /** 'lower' / 'higher': the cell's values are lower / higher than the baseline's at p Holm < ALPHA; 'none': no effect shown. */
  verdict: 'lower' | 'higher' | 'none';
}

/** The cell's success rate against the baseline's, each under its own limits. */
export interface SuccessComparison {
  /** Two-sided Fisher's exact test on successes / runs of both cells. */
  pValue: number;
  pHolm: number;
}

export interface CellSummary {
  id: string;
  values: Record<string, SweepValue>;
  /** Baseline cell id; null for the baseline itself or without a baseline. */
  baseline: string | null;
  runs: number;
  solved: number;
  successRate: number;
  /** Wilson's 95% score interval of the success rate. */
  successInterval: Interval;
  /** Expected running time in evaluations: evaluations of all runs / successes (+Infinity without a success). */
  ert: number;
  /** Percentile bootstrap 95% interval of ERT (ERT_BOOTSTRAP: 2000 resamples, seed 1). */
  ertInterval: Interval;
  /** ERT to reach f <= target for each of ERT_TARGETS (target-ert.ts), from the runs' trajectories; the last target, 0, is the ERT above. */
  ertAtTargets: TargetErt[];
  /** Quartiles over the solved runs only (NaN when none solved): what a solved run took. */
  solvedQuartiles: Record<Metric, Quartiles>;
  /** Quartiles over all runs, an unsolved run counting as +Infinity (it took longer than its limit). */
  quartiles: Record<Metric, Quartiles>;
  /** The cell's limits in each measure, from its resolved config. */
  limits: CellLimits;
  /** Against the baseline on the seeds both ran; null for the baseline itself. */
  comparison: Record<Metric, Comparison> | null;
  success: SuccessComparison | null;
  /** Median start-up seconds (launch to every island iterating), beside the search time; NaN for records without it. */
  startupSeconds: number;
}

export interface StudySummary {
  name: string;
  keys: string[];
  seeds: number[];
  /** Runs the study plans and runs found. */
  expectedRuns: number;
  finishedRuns: number;
  /** Runs left out because an island failed: `cell@seed: error`. */
  failedRuns: string[];
  baseline: Record<string, SweepValue> | null;
  /** How ERT's interval was made. */
  bootstrap: typeof ERT_BOOTSTRAP;
  /** How the ratios' intervals were made. */
  ratioBootstrap: typeof RATIO_BOOTSTRAP;
  /** Tests in Holm's family: every comparison tested (each cell, each measure, and the success rates). */
  holmFamily: number;
  cells: CellSummary[];
  /** Cells whose runs a seed does not repeat (async migration): their comparisons pair initial populations only. */
  notRepeatable: string[];
}

/** Value of a run's metric "to solution": +Infinity when unsolved. */
export function toSolution(run: RunRecord, metric: Metric): number {
  return run.solved ? run[metric] : Infinity;
}

function verdictOf(c: PairedComparison, pHolm: number): Comparison['verdict'] {
  if (!(pHolm < ALPHA) || Number.isNaN(c.rankBiserial) || c.rankBiserial === 0) return 'none';
  return c.rankBiserial < 0 ? 'lower' : 'higher';
}

/** Compares a cell's runs with the baseline's on `metric`, seed by seed, treating unsolved runs as censoring.ts decides. */
function compareOn(metric: Metric, mine: readonly RunRecord[], theirs: readonly RunRecord[], limits: [CellLimits, CellLimits]): Comparison {
  const x = mine.map((r) => observe(r, metric, limits[0]));
  const y = theirs.map((r) => observe(r, metric, limits[1]));
  const plan = censoringPlan([...x, ...y], metric);
  const within = [x.map((o) => censoredValue(o, plan)), y.map((o) => censoredValue(o, plan))];
  const paired = comparePaired(
    x.map((o) => testedValue(o, plan)),
    y.map((o) => testedValue(o, plan)),
  );
  const ratio = pairedRatio(within[0], within[1], plan.test === 'all-solved' ? null : plan.budget);
  // On the comparison's scale: a budget caps what a time can show.
  const slow = within.map((values) => Math.min(median(values), plan.budget ?? Infinity));
  const notRun =
    metric === 'seconds' && slow.some((m) => m < TIME_NOISE_FLOOR_SECONDS)
      ? `median time ${slow.map((m) => m.toPrecision(2)).join(' s vs ')} s, below the noise floor of ${TIME_NOISE_FLOOR_SECONDS} s`
      : null;
  if (notRun !== null) Object.assign(paired, { statistic: Number.NaN, pValue: Number.NaN, method: 'none' });
  return { ...paired, ...plan, ratio, notRun, pHolm: Number.NaN, verdict: 'none' };
}

/**
 * Holm's adjustment over one family: every test the report makes (each cell against its
 * baseline in every measure tested, and in success rate), so that no claim read off any row
 * of the report, or off its headline, has a family-wise error above ALPHA.
 */
function adjustFamily(compared: readonly CellSummary[]): number {
  const tests: { p: number; set: (p: number) => void }[] = [];
  for (const cell of compared) {
    for (const metric of METRICS) {
      const c = cell.comparison![metric];
      tests.push({ p: c.pValue, set: (p) => ((c.pHolm = p), (c.verdict = verdictOf(c, p))) });
    }
    const success = cell.success!;
    tests.push({ p: success.pValue, set: (p) => (success.pHolm = p) });
  }
  const adjusted = holm(tests.map((t) => t.p));
  tests.forEach((t, i) => t.set(adjusted[i]));
  return adjusted.filter((p) => !Number.isNaN(p)).length;
}

/**
 * Summarises a study. `baselineOf` maps a cell id to its baseline id (from the manifest,
 * or from `report --baseline`).
 */
export function summarise(
  study: StudyData,
  baselineOf: (cell: string) => string | null,
  baseline: Record<string, SweepValue> | null,
): StudySummary {
  const { manifest } = study;
  const byCell = new Map<string, Map<number, RunRecord>>();
  for (const cell of manifest.cells) byCell.set(cell.id, new Map());
  for (const run of study.runs) byCell.get(run.cell)?.set(run.seed, run);
  const limitsOf = new Map(manifest.cells.map((c) => [c.id, cellLimits(c.config)]));

  const cells: CellSummary[] = manifest.cells.map((cell) => {
    const runs = [...byCell.get(cell.id)!.values()];
    const solvedRuns = runs.filter((r) => r.solved);
    const solved = solvedRuns.length;
    const q = Object.fromEntries(METRICS.map((m) => [m, quartiles(runs.map((r) => toSolution(r, m)))])) as Record<Metric, Quartiles>;
    const sq = Object.fromEntries(METRICS.map((m) => [m, quartiles(solvedRuns.map((r) => r[m]))])) as Record<Metric, Quartiles>;
    const base = baselineOf(cell.id);
    let comparison: Record<Metric, Comparison> | null = null;
    let success: SuccessComparison | null = null;
    if (base !== null && base !== cell.id && byCell.has(base)) {
      const mine = byCell.get(cell.id)!;
      const theirs = byCell.get(base)!;
      const seeds = manifest.seeds.filter((s) => mine.has(s) && theirs.has(s));
      const limits: [CellLimits, CellLimits] = [limitsOf.get(cell.id)!, limitsOf.get(base)!];
      comparison = Object.fromEntries(
        METRICS.map((m) => [
          m,
          compareOn(
            m,
            seeds.map((s) => mine.get(s)!),
            seeds.map((s) => theirs.get(s)!),
            limits,
          ),
        ]),
      ) as Record<Metric, Comparison>;
      const baseRuns = [...theirs.values()];
      success = { pValue: fisherExact(solved, runs.length, baseRuns.filter((r) => r.solved).length, baseRuns.length), pHolm: Number.NaN };
    }
    return {
      id: cell.id,
      values: cell.values,
      baseline: base === cell.id ? null : base,
      runs: runs.length,
      solved,
      successRate: runs.length === 0 ? Number.NaN : solved / runs.length,
      successInterval: wilson(solved, runs.length),
      ert: expectedRunningTime(runs),
      ertInterval: ertInterval(runs),
      ertAtTargets: ertAtTargets(runs),
      solvedQuartiles: sq,
      quartiles: q,
      limits: limitsOf.get(cell.id)!,
      comparison,
      success,
      startupSeconds: median(runs.flatMap((r) => (r.startupSeconds === undefined ? [] : [r.startupSeconds]))),
    };
  });
  const holmFamily = adjustFamily(cells.filter((c) => c.comparison !== null));
  return {
    name: manifest.name,
    keys: manifest.keys,
    seeds: manifest.seeds,
    expectedRuns: manifest.seeds.length * manifest.cells.length,
    finishedRuns: study.runs.length,
    failedRuns: study.failed.map((r) => `${r.cell}@${r.seed}: ${r.error}`),
    baseline,
    bootstrap: ERT_BOOTSTRAP,
    ratioBootstrap: RATIO_BOOTSTRAP,
    holmFamily,
    cells,
    notRepeatable: manifest.cells.filter((cell) => !isRepeatable(String(cell.config.migration?.mode))).map((cell) => cell.id),
  };
}
