/**
 * The numbers of a study, as data: per cell the success rate and the quartiles of time,
 * evaluations and iterations to solution, and the paired comparison with its baseline cell.
 * The terminal table, the CSV and the HTML page are all rendered from this.
 */
import { isRepeatable } from '../archipelago/migration-modes.ts';
import type { RunRecord } from '../experiment/records.ts';
import type { SweepValue } from '../experiment/sweep.ts';
import { comparePaired, holm, median, quartiles, type PairedComparison, type Quartiles } from './stats.ts';
import type { StudyData } from './study-data.ts';

export const METRICS = ['seconds', 'evaluations', 'iterations'] as const;
export type Metric = (typeof METRICS)[number];

export interface Comparison extends PairedComparison {
  /** Holm-adjusted p-value over all cells compared on this metric. */
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
  /** Quartiles over all runs, an unsolved run counting as +Infinity (it took longer than any limit). */
  quartiles: Record<Metric, Quartiles>;
  /** Against the baseline on the seeds both ran; null for the baseline itself. */
  comparison: Record<Metric, Comparison> | null;
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
  cells: CellSummary[];
  /** Cells whose runs a seed does not repeat (async migration): their comparisons pair initial populations only. */
  notRepeatable: string[];
}

/** Value of a run's metric "to solution": +Infinity when unsolved. */
export function toSolution(run: RunRecord, metric: Metric): number {
  return run.solved ? run[metric] : Infinity;
}

/**
 * Summarises a study. `baselineOf` maps a cell id to its baseline id (from the manifest,
 * or from `report --baseline`).
 */
export function summarise(study: StudyData, baselineOf: (cell: string) => string | null, baseline: Record<string, SweepValue> | null): StudySummary {
  const { manifest } = study;
  const byCell = new Map<string, Map<number, RunRecord>>();
  for (const cell of manifest.cells) byCell.set(cell.id, new Map());
  for (const run of study.runs) byCell.get(run.cell)?.set(run.seed, run);

  const cells: CellSummary[] = manifest.cells.map((cell) => {
    const runs = [...byCell.get(cell.id)!.values()];
    const solved = runs.filter((r) => r.solved).length;
    const q = Object.fromEntries(METRICS.map((m) => [m, quartiles(runs.map((r) => toSolution(r, m)))])) as Record<Metric, Quartiles>;
    const base = baselineOf(cell.id);
    let comparison: Record<Metric, Comparison> | null = null;
    if (base !== null && base !== cell.id && byCell.has(base)) {
      const mine = byCell.get(cell.id)!;
      const theirs = byCell.get(base)!;
      const seeds = manifest.seeds.filter((s) => mine.has(s) && theirs.has(s));
      comparison = Object.fromEntries(
        METRICS.map((m) => [
          m,
          { ...comparePaired(seeds.map((s) => toSolution(mine.get(s)!, m)), seeds.map((s) => toSolution(theirs.get(s)!, m))), pHolm: Number.NaN },
        ]),
      ) as Record<Metric, Comparison>;
    }
    return {
      id: cell.id,
      values: cell.values,
      baseline: base === cell.id ? null : base,
      runs: runs.length,
      solved,
      successRate: runs.length === 0 ? Number.NaN : solved / runs.length,
      quartiles: q,
      comparison,
      startupSeconds: median(runs.flatMap((r) => (r.startupSeconds === undefined ? [] : [r.startupSeconds]))),
    };
  });
  for (const metric of METRICS) {
    const compared = cells.filter((c) => c.comparison !== null);
    const adjusted = holm(compared.map((c) => c.comparison![metric].pValue));
    compared.forEach((c, i) => (c.comparison![metric].pHolm = adjusted[i]));
  }
  return {
    name: manifest.name,
    keys: manifest.keys,
    seeds: manifest.seeds,
    expectedRuns: manifest.seeds.length * manifest.cells.length,
    finishedRuns: study.runs.length,
    failedRuns: study.failed.map((r) => `${r.cell}@${r.seed}: ${r.error}`),
    baseline,
    cells,
    notRepeatable: manifest.cells.filter((cell) => !isRepeatable(String(cell.config.migration?.mode))).map((cell) => cell.id),
  };
}
