/**
 * The study page's run-length plots (fixed-target ECDF, fixed-budget curves) and the
 * within-island diversity band per cell, as data and as Vega-Lite specs. Cells are drawn
 * under short names (c1, c2, ...) that the page's cell table keys to the full cell labels,
 * so no label is ever cut, whatever the number of cells.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ArchipelagoEvent } from '../archipelago/events.ts';
import type { RunRecord } from '../experiment/records.ts';
import type { Trajectory } from '../experiment/trajectory.ts';
import { quantile } from './stats.ts';

const FONT = { font: 'sans-serif', labelFont: 'sans-serif', titleFont: 'sans-serif' };
const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/** Short names of the cells in manifest order: c1, c2, ... */
export function shortNames(cells: readonly string[]): Map<string, string> {
  return new Map(cells.map((id, i) => [id, `c${i + 1}`]));
}

/**
 * Okabe & Ito's colour-blind-safe palette (Color Universal Design, 2008): eight hues told
 * apart in every common form of colour blindness, black last.
 */
export const OKABE_ITO = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#000000'];

/** One colour and one dash pattern per cell: eight hues, then the same hues dashed (four patterns: 32 cells apart). */
function cellEncoding(names: readonly string[]): Record<string, unknown> {
  const dashes = [
    [1, 0],
    [6, 3],
    [2, 2],
    [8, 2, 2, 2],
  ];
  return {
    color: {
      field: 'cell',
      type: 'nominal',
      sort: [...names],
      title: 'cell',
      scale: { domain: [...names], range: names.map((_, i) => OKABE_ITO[i % OKABE_ITO.length]) },
      legend: { orient: 'bottom', columns: 1, labelLimit: 0, symbolType: 'stroke', symbolStrokeWidth: 2 },
    },
    strokeDash: {
      field: 'cell',
      type: 'nominal',
      sort: [...names],
      title: 'cell',
      scale: { domain: [...names], range: names.map((_, i) => dashes[Math.floor(i / OKABE_ITO.length) % dashes.length]) },
    },
  };
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
  const lo = Math.min(...hits);
  return cells.flatMap((id) => {
    const own = runs.filter((r) => r.cell === id);
    const missed = own.filter((r) => hitAt(r, target) === null).map((r) => r.evaluations);
    const cut = missed.length > 0 ? Math.min(...missed) : null;
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

/** One line per cell over evaluations (log x): the ECDF and the fixed-budget curves alike. */
function cellLinesSpec(
  points: readonly object[],
  names: readonly string[],
  title: string,
  mark: Record<string, unknown>,
  y: Record<string, unknown>,
): TopLevelSpec {
  const x = {
    field: 'evaluations',
    type: 'quantitative',
    scale: { type: 'log' },
    title: 'evaluations (all islands, log scale)',
    axis: { labelExpr: "format(datum.value, '~s')" },
  } as const;
  return {
    $schema: SCHEMA,
    title: { text: title, ...FONT },
    data: { values: [...points] },
    width: 620,
    height: 300,
    encoding: { x, y: { type: 'quantitative', ...y }, ...cellEncoding(names) },
    layer: [
      { mark: { type: 'line', strokeWidth: 2, ...mark } },
      // The cut-offs: where a cell's runs stopped being watched (ECDF points only have the field).
      { transform: [{ filter: 'datum.cutoff === true' }], mark: { type: 'point', shape: 'cross', size: 90, filled: true } },
    ],
    config: { axis: FONT, legend: FONT },
  };
}

export function ecdfSpec(points: readonly EcdfPoint[], names: readonly string[]): TopLevelSpec {
  return cellLinesSpec(
    points,
    names,
    "share of runs solved within a budget of evaluations (fixed target: a solution); + marks a cell's cut-off",
    { interpolate: 'step-after' },
    { field: 'solved', scale: { domain: [0, 1] }, title: 'share of runs solved', axis: { format: '.0%' } },
  );
}

/** Best fitness of a trajectory within `budget`: its last point at or below it; undefined before its first point or, for an unsolved run, past its end. */
export function fitnessWithin(trajectory: Trajectory, solved: boolean, budget: number): number | undefined {
  if (trajectory.length === 0 || budget < trajectory[0][0]) return undefined;
  const end = trajectory[trajectory.length - 1];
  if (budget > end[0]) return solved ? 0 : undefined;
  let value = trajectory[0][1];
  for (const [x, f] of trajectory) {
    if (x > budget) break;
    value = f;
  }
  return value;
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
  const lo = Math.min(...traced.map((r) => r.trajectory![0][0]));
  const hi = Math.max(...traced.map((r) => r.trajectory![r.trajectory!.length - 1][0]));
  const steps = Math.max(1, Math.ceil(Math.log10(Math.max(hi, lo + 1) / Math.max(lo, 1)) * BUDGETS_PER_DECADE));
  const budgets = Array.from({ length: steps + 1 }, (_, k) => Math.max(lo, 1) * (Math.max(hi, lo + 1) / Math.max(lo, 1)) ** (k / steps));
  return cells.flatMap((id) => {
    const own = traced.filter((r) => r.cell === id);
    if (own.length === 0 || own.length < runs.filter((r) => r.cell === id).length) return [];
    return budgets.flatMap((budget) => {
      const values = own.map((r) => fitnessWithin(r.trajectory!, r.solved, budget));
      if (values.some((v) => v === undefined)) return [];
      return [{ cell: names.get(id)!, evaluations: budget, median: quantile(values as number[], 0.5) }];
    });
  });
}

export function fixedBudgetSpec(points: readonly BudgetPoint[], names: readonly string[]): TopLevelSpec {
  return cellLinesSpec(
    points,
    names,
    'best fitness reached within a budget of evaluations (fixed budget), median over runs',
    {},
    { field: 'median', scale: { zero: true }, title: 'best fitness (0 = solved)' },
  );
}

export interface DiversityBand {
  cell: string;
  iteration: number;
  q1: number;
  median: number;
  q3: number;
}

/**
 * Within-island diversity per cell over iterations: at each iteration of the sampling
 * schedule (0, 1, 2, 3, 4, 6, 8, 12, ...), the quartiles over every island of every logged run
 * of its diversity at its last sample up to that iteration. An island counts only while it
 * runs; the band stops where fewer than half of the cell's islands still run, so its end is
 * not drawn by a few long runs.
 */
export function diversityBands(
  logs: ReadonlyMap<string, readonly (readonly ArchipelagoEvent[])[]>,
  cells: readonly string[],
): DiversityBand[] {
  const names = shortNames(cells);
  return cells.flatMap((id) => {
    const series: { iteration: number; diversity: number }[][] = [];
    for (const events of logs.get(id) ?? []) {
      const byIsland = new Map<number, { iteration: number; diversity: number }[]>();
      for (const e of events) {
        if (e.type !== 'progress') continue;
        const list = byIsland.get(e.island) ?? [];
        list.push({ iteration: e.iteration, diversity: e.diversity });
        byIsland.set(e.island, list);
      }
      for (const list of byIsland.values()) series.push(list.sort((a, b) => a.iteration - b.iteration));
    }
    if (series.length === 0) return [];
    const bands: DiversityBand[] = [];
    for (const iteration of sampleSchedule(Math.max(...series.map((s) => s[s.length - 1].iteration)))) {
      const values = series.flatMap((s) => {
        if (s[s.length - 1].iteration < iteration) return [];
        let v = s[0].diversity;
        for (const p of s) {
          if (p.iteration > iteration) break;
          v = p.diversity;
        }
        return [v];
      });
      if (values.length * 2 < series.length) break;
      bands.push({
        cell: names.get(id)!,
        iteration,
        q1: quantile(values, 0.25),
        median: quantile(values, 0.5),
        q3: quantile(values, 0.75),
      });
    }
    return bands;
  });
}

/** 0, 1, 2, 3, 4, 6, 8, 12, 16, 24, ... up to `last`: the iterations at which every island samples. */
function sampleSchedule(last: number): number[] {
  const out = [0];
  for (let p = 1; p <= last; p *= 2) {
    out.push(p);
    if (p >= 2 && p + p / 2 <= last) out.push(p + p / 2);
  }
  return out;
}

/** One panel per cell (wrapped three to a row): median diversity as a line, the quartiles as a band. */
export function diversityBandSpec(bands: readonly DiversityBand[], cells: readonly string[]): TopLevelSpec {
  const names = cells.filter((_, i) => bands.some((b) => b.cell === `c${i + 1}`)).map((id) => `c${cells.indexOf(id) + 1}`);
  return {
    $schema: SCHEMA,
    title: { text: 'diversity within islands over iterations: median and quartiles over islands and runs', ...FONT },
    data: { values: bands },
    facet: { field: 'cell', type: 'nominal', sort: names, title: null, header: { labelFontSize: 12, ...FONT } },
    columns: 3,
    spacing: 24,
    spec: {
      width: 180,
      height: 120,
      layer: [
        {
          mark: { type: 'area', opacity: 0.3, color: '#4c78a8' },
          encoding: { y: { field: 'q1', type: 'quantitative' }, y2: { field: 'q3' } },
        },
        {
          mark: { type: 'line', color: '#4c78a8' },
          encoding: {
            y: { field: 'median', type: 'quantitative', title: 'diversity (share of N)', scale: { zero: true }, axis: { format: '.0%' } },
          },
        },
      ],
      encoding: {
        x: {
          field: 'iteration',
          type: 'quantitative',
          scale: { type: 'symlog' },
          title: 'iteration (symlog)',
          axis: { labelExpr: "format(datum.value, '~s')", tickCount: 4 },
        },
      },
    },
    resolve: { scale: { x: 'independent' } },
    config: { axis: FONT, legend: FONT },
  };
}
