/**
 * The study page's run-length plots (fixed-target ECDF, fixed-budget curves) and the
 * within-island diversity band per cell, as data and as Vega-Lite specs. Cells are drawn
 * under short names (c1, c2, ...) that the page's cell table keys to the full cell labels,
 * so no label is ever cut, whatever the number of cells.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import { quantile } from '../statistics/stats.ts';
import { shortNames, type BudgetPoint, type EcdfPoint } from '../statistics/run-length.ts';
import { OKABE_ITO } from './palette.ts';

/** Every chart's fonts (charts.ts, observables-charts.ts, lineage-figure.ts use these too). */
export const CHART_FONT = { font: 'sans-serif', labelFont: 'sans-serif', titleFont: 'sans-serif' };
/** The vega-lite version every chart's spec names. */
export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/** Okabe & Ito's colour-blind-safe palette (palette.ts: the islands' colours too). */
export { OKABE_ITO };

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
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, ...CHART_FONT },
    data: { values: [...points] },
    width: 620,
    height: 300,
    encoding: { x, y: { type: 'quantitative', ...y }, ...cellEncoding(names) },
    layer: [
      { mark: { type: 'line', strokeWidth: 2, ...mark } },
      // The cut-offs: where a cell's runs stopped being watched (ECDF points only have the field).
      { transform: [{ filter: 'datum.cutoff === true' }], mark: { type: 'point', shape: 'cross', size: 90, filled: true } },
    ],
    config: { axis: CHART_FONT, legend: CHART_FONT },
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
    $schema: VEGA_LITE_SCHEMA,
    title: { text: 'diversity within islands over iterations: median and quartiles over islands and runs', ...CHART_FONT },
    data: { values: bands },
    facet: { field: 'cell', type: 'nominal', sort: names, title: null, header: { labelFontSize: 12, ...CHART_FONT } },
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
    config: { axis: CHART_FONT, legend: CHART_FONT },
  };
}
