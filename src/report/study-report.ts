/**
 * A study's report for library users (a notebook gets the CLI's numbers): the summary with
 * its comparisons, the headline, the table, the CSV, the markdown, each figure's data per cell, and the
 * HTML page, all made by the functions `nqueens-islands report` uses.
 */
import type { SweepValue } from '../experiment/sweep.ts';
import { baselineMapper, checkBaseline } from './statistics/baseline.ts';
import { cellNames } from './page/cell-names.ts';
import { headline } from './page/headline.ts';
import { renderHtml } from './page/html.ts';
import { renderMarkdown } from './page/markdown.ts';
import { ecdfPoints, fixedBudgetPoints, type BudgetPoint, type EcdfPoint } from './statistics/run-length.ts';
import { readStudy, type StudyData } from './data/study-data.ts';
import { summarise, type StudySummary } from './statistics/summary.ts';
import { renderCsv } from './page/table.ts';
import { renderTable } from './page/terminal-table.ts';
import { checkedArgument, checkedOptions, object, options as optionsOf, text } from '../config/library-options.ts';

/** Each figure's data for one cell, so anyone can redraw it: the ECDF's points (its cut-off marked) and the fixed-budget curve. */
export interface CellFigureData {
  name: string;
  ecdf: Omit<EcdfPoint, 'cell'>[];
  fixedBudget: Omit<BudgetPoint, 'cell'>[];
}

/** Per cell id, the data of the run-length figures. */
export function figureData(study: StudyData): Record<string, CellFigureData> {
  const { cells } = study.manifest;
  const ids = cells.map((c) => c.id);
  const names = cellNames(cells);
  const ecdf = ecdfPoints(study.runs, ids, names);
  const budget = fixedBudgetPoints(study.runs, ids, names);
  return Object.fromEntries(
    ids.map((id) => {
      const name = names.get(id)!;
      const strip = <T extends { cell: string }>(points: readonly T[]) =>
        points.filter((p) => p.cell === name).map(({ cell: _, ...rest }) => rest);
      return [id, { name, ecdf: strip(ecdf), fixedBudget: strip(budget) }];
    }),
  );
}

export interface StudyReport {
  study: StudyData;
  summary: StudySummary;
  /** The opening sentences, one per comparison. */
  headline: string[];
  /** The terminal table and the CSV, as `report` prints and writes them. */
  table: string;
  csv: string;
  /** The report as GitHub markdown, headline first, as `report --markdown` writes it. */
  markdown: string;
  figures: Record<string, CellFigureData>;
  /** The page of `report --html` (renders the plots: a second or two). */
  html(): Promise<string>;
}

/**
 * Reads the study folder `dir` (the --out of an experiment) and makes its report; `baseline`
 * (sweep key = value) replaces the study file's, as `report --baseline` does.
 * @throws ConfigError for a folder that is not a study, or holds records of another study
 */
export function studyReport(dir: string, given: { baseline?: Record<string, SweepValue> } = {}): StudyReport {
  const options = checkedOptions(given, 'studyReport options', optionsOf({ baseline: object }));
  const study = readStudy(checkedArgument(dir, 'studyReport: dir', text));
  const baseline =
    options.baseline === undefined
      ? study.manifest.baseline
      : checkBaseline(options.baseline, study.manifest, 'studyReport options: baseline');
  const summary = summarise(study, baselineMapper(study.manifest, baseline), baseline);
  return {
    study,
    summary,
    headline: headline(summary),
    table: renderTable(summary),
    csv: renderCsv(summary),
    markdown: renderMarkdown(study, summary),
    figures: figureData(study),
    html: () => renderHtml(study, summary, null),
  };
}
