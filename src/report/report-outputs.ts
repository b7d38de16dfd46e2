/**
 * Everything `nqueens-islands report` shows and writes, made in memory from what it was asked
 * (no output is written here): the lines for stderr and stdout, the texts of its files and the
 * files of its export folders. Pure of the process (no signals, no streams), so the CLI runs it
 * in a worker thread and stays free to hear a signal; a caller may run it in its own thread.
 */
import { ConfigError } from '../config/errors.ts';
import { numberLiteral } from '../schema/flag-value.ts';
import { shardGaps } from '../experiment/study-runs.ts';
import { baselineMapper, parseBaselineFlags } from './statistics/baseline.ts';
import type { ExportFile } from './exports/export-folder.ts';
import { figureFiles, studyFigures } from './exports/figure-files.ts';
import { headline } from './page/headline.ts';
import { renderHtml, renderRunHtml } from './page/html.ts';
import { iohFiles } from './exports/ioh-export.ts';
import { renderMarkdown } from './page/markdown.ts';
import { takeoverRows } from './statistics/observables-data.ts';
import { paperSetupDifferences, renderTable1, table1Rows } from './page/paper-table1.ts';
import { readRunEvents, runSummaryLines } from './data/run-data.ts';
import { readStudy, type StudyData } from './data/study-data.ts';
import { figureData } from './study-report.ts';
import { summarise, type StudySummary } from './statistics/summary.ts';
import { renderCsv } from './page/table.ts';
import { renderTable, renderTakeoverTable } from './page/terminal-table.ts';
import type { XAxis } from './figures/x-axis.ts';

/** What to report (plain data: it crosses to a worker thread). Either `dir` (a study folder) or `run` alone (a trace file). */
export interface ReportRequest {
  dir?: string;
  /** With `dir`: the run for the fitness plot, CELL@SEED; alone: a trace file. */
  run?: string;
  baseline?: string[];
  html: boolean;
  csv: boolean;
  markdown: boolean;
  figures: boolean;
  ioh: boolean;
  json: boolean;
  paperTable1: boolean;
  xAxis: XAxis;
}

/** What `report` shows and writes, in the order it does: `notes` on stderr, `stdout` line by line, then the files asked for. */
export interface ReportOutputs {
  notes: string[];
  stdout: string[];
  csv?: string;
  markdown?: string;
  html?: string;
  figures?: ExportFile[];
  ioh?: ExportFile[];
}

/** Makes the report's outputs; throws a ConfigError (or another InputError) for a study, trace or flag value that does not fit. */
export async function makeReportOutputs(request: ReportRequest): Promise<ReportOutputs> {
  if (request.dir === undefined) {
    if (request.run === undefined) throw new ConfigError('report: expected a study folder or --run FILE');
    const run = readRunEvents(request.run);
    const html = request.html ? await renderRunHtml(run, request.xAxis) : undefined;
    return { notes: [], stdout: [runSummaryLines(run).join('\n')], ...(html === undefined ? {} : { html }) };
  }
  return studyOutputs(request, request.dir);
}

function parseRun(text: string, cells: readonly string[], seeds: readonly number[]): { cell: string; seed: number } {
  const at = text.lastIndexOf('@');
  const cell = text.slice(0, at);
  // Read as every number in a flag (no 0x1, and no empty seed read as 0).
  const seed = numberLiteral(text.slice(at + 1).trim());
  if (at <= 0 || !Number.isInteger(seed)) throw new ConfigError(`--run ${text}: expected CELL@SEED, e.g. ${cells[0]}@${seeds[0]}`);
  if (!cells.includes(cell)) throw new ConfigError(`--run ${text}: no cell ${cell}; cells are ${cells.join(' | ')}`);
  if (!seeds.includes(seed)) throw new ConfigError(`--run ${text}: seed ${seed} is not one of the study's seeds`);
  return { cell, seed };
}

/** `report DIR`: the study's outputs; the checks that refuse come before any text is made. */
async function studyOutputs(request: ReportRequest, dir: string): Promise<ReportOutputs> {
  const study = readStudy(dir);
  const { manifest } = study;
  const flags = request.baseline ?? [];
  const baseline = flags.length > 0 ? parseBaselineFlags(flags, manifest) : manifest.baseline;
  const chosen =
    request.run === undefined
      ? null
      : parseRun(
          request.run,
          manifest.cells.map((c) => c.id),
          manifest.seeds,
        );
  const summary = summarise(study, baselineMapper(manifest, baseline), baseline);
  const iohNote = request.ioh ? iohLeftOut(summary) : null;
  const table1 = request.paperTable1 ? paperTable1(study, dir) : null;
  // The page reads the event logs: a damaged one is refused before anything is printed.
  const html = request.html ? await renderHtml(study, summary, chosen, request.xAxis) : undefined;
  const stdout = summaryLines(study, summary, request.json);
  if (table1 !== null) stdout.push('', table1);
  return {
    notes: iohNote === null ? studyNotes(study, dir) : [...studyNotes(study, dir), iohNote],
    stdout,
    ...(request.csv ? { csv: renderCsv(summary) } : {}),
    ...(request.markdown ? { markdown: renderMarkdown(study, summary) } : {}),
    ...(html === undefined ? {} : { html }),
    ...(request.figures ? { figures: await figureFiles(studyFigures(study)) } : {}),
    ...(request.ioh ? { ioh: iohFiles(study) } : {}),
  };
}

/** What `--ioh` leaves out (cells of a GA mode with its own fitness), or a ConfigError when that is every cell. */
function iohLeftOut(summary: StudySummary): string | null {
  const { ownFitness, cells } = summary;
  if (ownFitness.length === 0) return null;
  const why = "the takeover mode's own fitness, not the paper's (docs/takeover.md)";
  if (ownFitness.length === cells.length) throw new ConfigError(`--ioh: every cell scores members by ${why}; nothing to export`);
  return `--ioh: left out ${ownFitness.join('; ')}: ${why}`;
}

/** Table 1 beside ours, or a ConfigError for a study that is not the paper's set-up or has no cell of its sizes. */
function paperTable1(study: StudyData, dir: string): string {
  const differ = paperSetupDifferences(study);
  if (differ.length > 0) {
    const more = differ.length > 1 ? ` (and ${differ.length - 1} more cell${differ.length > 2 ? 's' : ''})` : '';
    throw new ConfigError(
      `--paper-table1: ${dir} is not the paper's set-up (one island, topology none, paper mode), so Table 1 is no comparison: cell ${differ[0]}${more}`,
    );
  }
  const rows = table1Rows(study);
  if (rows.length === 0)
    throw new ConfigError(`--paper-table1: ${dir} has no cell with n in 10..25 (run config/experiments/paper-table1.yaml)`);
  return renderTable1(rows);
}

/** What the reader should know about the study's records before the table: a cut last line, missing shards. */
function studyNotes(study: StudyData, dir: string): string[] {
  const notes: string[] = [];
  if (study.droppedBytes > 0)
    notes.push(
      `${dir}/runs.jsonl: left out a half-written last line (${study.droppedBytes} bytes) of an interrupted run; experiment --resume removes it`,
    );
  const gaps = study.shards === null ? null : shardGaps(study.shards);
  if (gaps !== null) notes.push(`${dir}: ${gaps}; rerun those shards to complete the study`);
  return notes;
}

/** The summary for stdout: the table (and the takeover table), or with `json` everything as data, figure data included. */
function summaryLines(study: StudyData, summary: StudySummary, json: boolean): string[] {
  const { manifest } = study;
  const takeover = takeoverRows(study.runs, manifest.cells, manifest.seeds[0]);
  if (json) {
    const data = { ...summary, headline: headline(summary), figures: figureData(study), ...(takeover.length > 0 ? { takeover } : {}) };
    return [
      JSON.stringify(data, (_, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? (Number.isNaN(v) ? null : String(v)) : v)),
    ];
  }
  return takeover.length > 0 ? [renderTable(summary), `\n${renderTakeoverTable(takeover)}`] : [renderTable(summary)];
}
