/**
 * `report DIR --figures OUT`: the study's figures as files, each as SVG (rendered in Node by
 * vega, as on the page) beside a CSV of exactly the rows it draws, so a figure can be put in
 * a paper or redrawn elsewhere. Written: the fixed-target ECDF (with each cell's cut-off), the
 * fixed-budget curves, the box plots of evaluations and of time over the solved runs, and,
 * where runs.jsonl has them, the between-island medians per cell. Cells go by their swept values.
 */
import type { TopLevelSpec } from 'vega-lite';
import { cellNames } from '../page/cell-names.ts';
import { boxPlotSpec, renderSvg } from '../figures/charts.ts';
import type { ExportFile } from './export-folder.ts';
import { betweenMedians } from '../statistics/observables-data.ts';
import { betweenMediansSpec } from '../figures/observables-charts.ts';
import { ecdfSpec, fixedBudgetSpec } from '../figures/study-charts.ts';
import { ecdfPoints, fixedBudgetPoints } from '../statistics/run-length.ts';
import type { StudyData } from '../data/study-data.ts';
import { csvField } from '../page/table.ts';

export interface Figure {
  /** The files' name without extension. */
  name: string;
  spec: TopLevelSpec;
  /** The rows the figure draws, written as its CSV. */
  rows: readonly object[];
}

/** The study's figures with their data (none of a study without a solved run). */
export function studyFigures(study: StudyData): Figure[] {
  const { cells } = study.manifest;
  const ids = cells.map((c) => c.id);
  const names = cellNames(cells);
  const legend = ids.map((id) => names.get(id)!);
  const figures: Figure[] = [];
  const ecdf = ecdfPoints(study.runs, ids, names);
  if (ecdf.length > 0) figures.push({ name: 'ecdf-evaluations', spec: ecdfSpec(ecdf, legend), rows: ecdf });
  const budget = fixedBudgetPoints(study.runs, ids, names);
  if (budget.length > 0) figures.push({ name: 'fixed-budget', spec: fixedBudgetSpec(budget, legend), rows: budget });
  for (const metric of ['evaluations', 'seconds'] as const) {
    const rows = study.runs.filter((r) => r.solved).map((r) => ({ cell: names.get(r.cell)!, seed: r.seed, [metric]: r[metric] }));
    if (rows.length > 0) figures.push({ name: `box-${metric}`, spec: boxPlotSpec(study.runs, ids, metric, names), rows });
  }
  const single = new Set(cells.filter((c) => c.config.islands === 1).map((c) => c.id));
  const between = betweenMedians(study.runs.filter((r) => !single.has(r.cell)));
  if (between.length > 0) figures.push({ name: 'between-islands', spec: betweenMediansSpec(between, ids), rows: between });
  return figures;
}

/** A figure's rows as CSV: the union of their keys as the header, in first-seen order. */
export function rowsCsv(rows: readonly object[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const lines = rows.map((r) => keys.map((k) => csvField((r as Record<string, unknown>)[k])).join(','));
  return `${[keys.map(csvField).join(','), ...lines].join('\n')}\n`;
}

/** The files of `--figures`: NAME.svg and NAME.csv per figure. */
export async function figureFiles(figures: readonly Figure[]): Promise<ExportFile[]> {
  const files: ExportFile[] = [];
  for (const f of figures)
    files.push({ path: `${f.name}.svg`, text: await renderSvg(f.spec) }, { path: `${f.name}.csv`, text: rowsCsv(f.rows) });
  return files;
}
