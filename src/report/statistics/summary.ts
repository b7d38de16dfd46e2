/**
 * The numbers of a study, as data: per cell the success rate with its interval, ERT with its
 * bootstrap interval, the quartiles of time, evaluations and iterations to solution, and the
 * paired comparison with its baseline cell at the comparison's common budget (censoring.ts).
 * Each measure has one estimand (the paired ratio, ratio.ts) and one family of tests
 * (FAMILIES), and its intervals are at that family's Bonferroni level, so a verdict and its
 * interval always agree. The terminal table, the CSV and the HTML page are all rendered from this.
 */
import { isRepeatable } from '../../archipelago/modes/registry.ts';
import { hasOwnFitness } from '../../ga/create-evolver.ts';
import type { RunRecord } from '../../experiment/records.ts';
import type { SweepValue } from '../../experiment/sweep.ts';
import {
  cellLimits,
  censoredValue,
  censoringPlan,
  limitIn,
  METRICS,
  observe,
  testedValue,
  type CellLimits,
  type CensoringPlan,
  type Metric,
} from './censoring.ts';
import { ertWithin, pairedRatio, type RatioEstimate } from './ratio.ts';
import { signedRankTest, smallestP, type SignedRankTest } from './signed-rank.ts';
import {
  ERT_BOOTSTRAP,
  ertInterval,
  expectedRunningTime,
  fisherExact,
  median,
  quartiles,
  varghaDelaneyA12,
  wilson,
  type Interval,
  type Quartiles,
} from './stats.ts';
import type { StudyData } from '../data/study-data.ts';
import { ertAtTargets, type TargetErt } from './target-ert.ts';
import { anytimeRange, meanFitnessOver } from './anytime.ts';
import { placementNote } from './placement.ts';

export { METRICS, type Metric };

/** The families of tests, each adjusted on its own: evaluations (the primary), wall time and success. Iterations are descriptive. */
export const FAMILIES = ['evaluations', 'seconds', 'success'] as const;
export type Family = (typeof FAMILIES)[number];

/** The family-wise error rate of each family: a verdict needs Bonferroni's p = min(1, m p) below it. */
export const ALPHA = 0.05;

/**
 * Wall times below this (a cell's median run, as run) get a caution: thread start-up, garbage
 * collection and other load on shared cores move a run by tens of milliseconds. The test is
 * made all the same: the machine's speed never changes which tests a family holds.
 */
export const TIME_NOISE_FLOOR_SECONDS = 0.5;

export interface Comparison extends Omit<SignedRankTest, 'pairs'>, CensoringPlan {
  /** Pairs compared (seeds present in both cells). */
  pairs: number;
  /** Pairs with a non-zero log ratio (the ones the test rests on), and those where the cell was lower / higher. */
  informative: number;
  lower: number;
  higher: number;
  /** Vargha-Delaney A12 of min(x, B) against min(y, B), pairs ignored: P(cell > baseline), 0.5 = no tendency. NaN when not compared. */
  a12: number;
  /** log(min(x, B) / min(y, B)) per seed, in seed order. */
  logRatios: number[];
  /** The paired ratio with its interval at the family's level (the estimate alone for iterations); null when not compared. */
  ratio: RatioEstimate | null;
  /** ERT(cell) / ERT(baseline) within B: the cost with restarts, its own column; NaN when either solved nothing within B. */
  ertRatio: number;
  /** Why no test or no ratio was made ("not tested: ..."); null when compared. */
  notRun: string | null;
  /** The family the test is in; null for a descriptive or untested comparison. */
  family: Family | null;
  /** Bonferroni-adjusted p, min(1, m p) over the family's m tests. */
  pAdjusted: number;
  /** 'lower' / 'higher': the interval leaves 1 out (p adjusted < ALPHA) on that side; 'none' otherwise. */
  verdict: 'lower' | 'higher' | 'none';
  /** A warning that goes with the verdict (wall times below the noise floor, with the real medians); null when none. */
  caution: string | null;
}

/** The cell's success rate against the baseline's, each under its own limits. */
export interface SuccessComparison {
  /** Two-sided Fisher's exact test on successes / runs of both cells; NaN when not tested. */
  pValue: number;
  pAdjusted: number;
  /** The smallest p the test can give with these runs (all of one cell solved, none of the other). */
  smallestP: number;
  /** Why not tested (both solved every run, or neither any); null when tested. */
  notRun: string | null;
}

/** One family of tests: how many it holds, the level of its intervals, and the smallest adjusted p its pairs can reach. */
export interface FamilySize {
  tests: number;
  /** 1 - ALPHA / tests: the level of the family's intervals. */
  level: number;
  /** min(1, tests x the smallest p the family's smallest comparison can give): at or above ALPHA, no verdict was possible. */
  smallestAdjustedP: number;
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
  /** The area over its convergence curve: its runs' mean best fitness over [0, StudySummary.anytimeUpTo] evaluations (anytime.ts; descriptive). */
  anytime: number;
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
  /** The families of tests (FAMILIES), each as large as the tests the terminal table shows in it. */
  families: Record<Family, FamilySize>;
  /** Why wall-time verdicts are confounded (a sharded study whose pairs ran on different shards); null when not. */
  placement: string | null;
  cells: CellSummary[];
  /** Cells whose runs a seed does not repeat (async migration): their comparisons pair initial populations only. */
  notRepeatable: string[];
  /** The evaluations over which `CellSummary.anytime` is taken, one for every cell (null: some run has no trajectory). */
  anytimeUpTo: number | null;
  /** Cells whose GA mode scores members by its own fitness (takeover), not the paper's: no target ERT, no IOH export. */
  ownFitness: string[];
}

/** Value of a run's metric "to solution": +Infinity when unsolved. */
export function toSolution(run: RunRecord, metric: Metric): number {
  return run.solved ? run[metric] : Infinity;
}

/** Why a comparison of `metric` is not made, before looking at its values; null when it is. */
function notComparable(metric: Metric, islands: [number, number]): string | null {
  if (metric === 'iterations' && islands[0] !== islands[1])
    return `${islands[0]} vs ${islands[1]} islands: an iteration of more islands is more work`;
  return null;
}

/** Why the paired values give no test; null when they do. */
function untested(x: readonly number[], y: readonly number[], test: SignedRankTest): string | null {
  if (x.length < 2) return `${x.length} seed${x.length === 1 ? '' : 's'} in both cells, at least 2 needed`;
  if ([...x, ...y].some((v) => !(v > 0))) return 'a run solved at 0: no ratio';
  if (test.method === 'none') return `every one of ${x.length} pairs equal (the runs are identical, seed for seed)`;
  return null;
}

/** A comparison not made. */
function notMade(plan: CensoringPlan, pairs: number, why: string): Comparison {
  const none = { zeros: 0, statistic: NaN, rankBiserial: NaN, pValue: NaN, method: 'none' as const };
  return {
    ...none,
    ...plan,
    pairs,
    informative: 0,
    lower: 0,
    higher: 0,
    a12: NaN,
    logRatios: [],
    ratio: null,
    ertRatio: NaN,
    notRun: why,
    family: null,
    pAdjusted: NaN,
    verdict: 'none',
    caution: null,
  };
}

/** The wall-time caution, with the runs' real median times (not cut at B). */
function timeCaution(mine: readonly RunRecord[], theirs: readonly RunRecord[]): string | null {
  const medians = [mine, theirs].map((runs) => median(runs.map((r) => r.seconds)));
  if (!medians.some((m) => m < TIME_NOISE_FLOOR_SECONDS)) return null;
  return `median times ${medians.map((m) => m.toPrecision(3)).join(' s vs ')} s, below the noise floor of ${TIME_NOISE_FLOOR_SECONDS} s: load on the machine moves runs this short`;
}

/** Compares a cell's runs with the baseline's on `metric`, seed by seed, at their common budget (censoring.ts). */
function compareOn(
  metric: Metric,
  mine: readonly RunRecord[],
  theirs: readonly RunRecord[],
  cells: [CellLimits, CellLimits],
  islands: [number, number],
): Comparison {
  const x = mine.map((r) => observe(r, metric, cells[0]));
  const y = theirs.map((r) => observe(r, metric, cells[1]));
  const plan = censoringPlan(
    [...x, ...y],
    metric,
    cells.map((c) => limitIn(c, metric)),
  );
  const skip = notComparable(metric, islands);
  if (skip !== null) return notMade(plan, x.length, skip);
  const tx = x.map((o) => testedValue(o, plan));
  const ty = y.map((o) => testedValue(o, plan));
  const logRatios = tx.map((v, i) => Math.log(v / ty[i]));
  const test = signedRankTest(logRatios.every(Number.isFinite) ? logRatios : []);
  const why = untested(tx, ty, test);
  if (why !== null) return notMade(plan, x.length, why);
  const within = [x, y].map((obs) => obs.map((o) => censoredValue(o, plan)));
  const budget = plan.budget ?? Infinity;
  const ertRatio = ertWithin(within[0], budget) / ertWithin(within[1], budget);
  return {
    ...test,
    ...plan,
    informative: x.length - test.zeros,
    lower: logRatios.filter((d) => d < 0).length,
    higher: logRatios.filter((d) => d > 0).length,
    a12: varghaDelaneyA12(tx, ty),
    logRatios,
    ratio: null,
    ertRatio: Number.isFinite(ertRatio) ? ertRatio : NaN,
    notRun: null,
    family: metric === 'iterations' ? null : metric,
    pAdjusted: NaN,
    verdict: 'none',
    caution: metric === 'seconds' ? timeCaution(mine, theirs) : null,
  };
}

/** The success rates compared by Fisher's exact test, unless both cells solved every run or neither solved one. */
function compareSuccess(solved: number, runs: number, baseSolved: number, baseRuns: number): SuccessComparison {
  const smallest = Math.min(fisherExact(runs, runs, 0, baseRuns), fisherExact(0, runs, baseRuns, baseRuns));
  const none = { pValue: NaN, pAdjusted: NaN, smallestP: smallest };
  if (solved === runs && baseSolved === baseRuns) return { ...none, notRun: 'both solved every run' };
  if (solved === 0 && baseSolved === 0) return { ...none, notRun: 'neither solved a run' };
  return { ...none, pValue: fisherExact(solved, runs, baseSolved, baseRuns), notRun: null };
}

/** One test of a family: its p, the smallest p its pairs can give, and what to record once the family's size m is known. */
interface FamilyTest {
  p: number;
  floor: number;
  settle: (m: number) => void;
}

/** A comparison's adjusted p, its interval at level 1 - ALPHA / m and its verdict, which that interval decides. */
function settle(c: Comparison, m: number): void {
  c.pAdjusted = Math.min(1, m * c.pValue);
  c.ratio = pairedRatio(c.logRatios, ALPHA / m);
  c.verdict = !c.ratio.excludesOne ? 'none' : c.rankBiserial < 0 ? 'lower' : 'higher';
}

function familyTests(compared: readonly CellSummary[], family: Family): FamilyTest[] {
  if (family === 'success')
    return compared.flatMap(({ success }) =>
      success!.notRun !== null
        ? []
        : [
            {
              p: success!.pValue,
              floor: success!.smallestP,
              settle: (m: number) => (success!.pAdjusted = Math.min(1, m * success!.pValue)),
            },
          ],
    );
  return compared.flatMap((cell) => {
    const c = cell.comparison![family];
    return c.family === null ? [] : [{ p: c.pValue, floor: smallestP(c.pairs), settle: (m: number) => settle(c, m) }];
  });
}

/**
 * Bonferroni's adjustment within each family, each interval at its family's level
 * 1 - ALPHA / m, so that an interval leaves 1 out exactly when p adjusted < ALPHA
 * (docs/experiments.md, "Families": why Bonferroni and not Holm). Iterations get their
 * estimate alone (descriptive).
 */
function adjustFamilies(compared: readonly CellSummary[]): Record<Family, FamilySize> {
  const families = {} as Record<Family, FamilySize>;
  for (const family of FAMILIES) {
    const tests = familyTests(compared, family);
    const m = tests.length;
    for (const t of tests) t.settle(m);
    const floor = Math.max(...tests.map((t) => t.floor));
    families[family] = { tests: m, level: 1 - ALPHA / Math.max(1, m), smallestAdjustedP: m === 0 ? NaN : Math.min(1, m * floor) };
  }
  for (const cell of compared) {
    const c = cell.comparison!.iterations;
    if (c.notRun === null) c.ratio = { ...pairedRatio(c.logRatios, ALPHA), lower: NaN, upper: NaN, level: NaN, excludesOne: false };
  }
  return families;
}

/**
 * Summarises a study. `baselineOf` maps a cell id to its baseline id (the manifest's, or `report --baseline`'s).
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
  const islandsOf = new Map(manifest.cells.map((c) => [c.id, Number((c.config as { islands?: number }).islands ?? 1)]));
  const ownFitness = manifest.cells.filter((cell) => hasOwnFitness(cell.config.ga.mode)).map((cell) => cell.id);
  // Cells scored by their GA mode's own fitness are not on the paper's scale: left out of the range (and shown n/a).
  const anytimeUpTo = anytimeRange(study.runs.filter((r) => !ownFitness.includes(r.cell)));

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
      const pair = <T>(of: Map<string, T>): [T, T] => [of.get(cell.id)!, of.get(base)!];
      const [a, b] = [seeds.map((s) => mine.get(s)!), seeds.map((s) => theirs.get(s)!)];
      comparison = Object.fromEntries(METRICS.map((m) => [m, compareOn(m, a, b, pair(limitsOf), pair(islandsOf))])) as Record<
        Metric,
        Comparison
      >;
      const baseRuns = [...theirs.values()];
      success = compareSuccess(solved, runs.length, baseRuns.filter((r) => r.solved).length, baseRuns.length);
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
      anytime: meanFitnessOver(runs, anytimeUpTo),
      solvedQuartiles: sq,
      quartiles: q,
      limits: limitsOf.get(cell.id)!,
      comparison,
      success,
      startupSeconds: median(runs.flatMap((r) => (r.startupSeconds === undefined ? [] : [r.startupSeconds]))),
    };
  });
  const families = adjustFamilies(cells.filter((c) => c.comparison !== null));
  return {
    name: manifest.name,
    keys: manifest.keys,
    seeds: manifest.seeds,
    expectedRuns: manifest.seeds.length * manifest.cells.length,
    finishedRuns: study.runs.length,
    failedRuns: study.failed.map((r) => `${r.cell}@${r.seed}: ${r.error}`),
    baseline,
    bootstrap: ERT_BOOTSTRAP,
    families,
    placement: placementNote(manifest),
    cells,
    notRepeatable: manifest.cells.filter((cell) => !isRepeatable(String(cell.config.migration?.mode))).map((cell) => cell.id),
    anytimeUpTo,
    ownFitness,
  };
}
