/** The work behind `report`, imported only when the command runs (vega and the statistics library are heavy to load). */
import type { ArgumentsCamelCase } from 'yargs';
import { ConfigError } from '../../config/errors.ts';
import { baselineMapper, parseBaselineFlags } from '../../report/baseline.ts';
import { renderHtml, renderRunHtml } from '../../report/html.ts';
import { readRunEvents, runSummaryLines } from '../../report/run-data.ts';
import { renderTakeoverTable, takeoverRows } from '../../report/observables-data.ts';
import type { XAxis } from '../../report/x-axis.ts';
import { EXIT, UsageError } from '../errors.ts';
import { paperSetupDifferences, renderTable1, table1Rows } from '../../report/paper-table1.ts';
import { readStudy, type StudyData } from '../../report/study-data.ts';
import { figureFiles, studyFigures } from '../../report/figures.ts';
import { iohFiles } from '../../report/ioh-export.ts';
import { checkExportFolder, writeExportFolder, type ExportFile } from '../../report/export-folder.ts';
import { summarise, type StudySummary } from '../../report/summary.ts';
import { headline } from '../../report/headline.ts';
import { figureData } from '../../report/study-report.ts';
import { renderCsv, renderTable } from '../../report/table.ts';
import { renderMarkdown } from '../../report/markdown.ts';
import { shardGaps } from '../../experiment/study-runs.ts';
import { printError, printLine, setExitCode } from '../output.ts';
import path from 'node:path';
import { EVENTS_DIR, MANIFEST_FILE, RUNS_FILE } from '../../experiment/store.ts';
import { LOCK_FILE } from '../../experiment/lock.ts';
import { checkDistinctOutputs, checkNotInputs, checkOutFile, writeError, writeFileAtomic } from '../../io/write-file.ts';
import { serveFromArgs, type ServeArgs } from '../../serve/flags.ts';
import type { ServeOptions } from '../../serve/options.ts';
import { serveUntilStopped } from '../serve-view.ts';
import { claimStopPoints, withDefaultSignals } from '../signals.ts';

export interface ReportArgs extends ServeArgs {
  dir?: string;
  baseline?: string[];
  html?: string;
  csv?: string;
  markdown?: string;
  ioh?: string;
  figures?: string;
  json: boolean;
  run?: string;
  paperTable1: boolean;
  xAxis: XAxis;
}

function parseRun(text: string, cells: readonly string[], seeds: readonly number[]): { cell: string; seed: number } {
  const at = text.lastIndexOf('@');
  const cell = text.slice(0, at);
  const seed = Number(text.slice(at + 1));
  if (at <= 0 || !Number.isInteger(seed)) throw new ConfigError(`--run ${text}: expected CELL@SEED, e.g. ${cells[0]}@${seeds[0]}`);
  if (!cells.includes(cell)) throw new ConfigError(`--run ${text}: no cell ${cell}; cells are ${cells.join(' | ')}`);
  if (!seeds.includes(seed)) throw new ConfigError(`--run ${text}: seed ${seed} is not one of the study's seeds`);
  return { cell, seed };
}

/** The files of a study folder that `report` reads or a study writes: no report output may replace them, existing or not yet. */
function studyInputs(dir: string | undefined): [string, string][] {
  if (dir === undefined) return [];
  return [MANIFEST_FILE, RUNS_FILE, LOCK_FILE].map((name) => [`the study's ${name}`, path.join(dir, name)]);
}

function studyFolders(dir: string | undefined): [string, string][] {
  return dir === undefined ? [] : [[`in the study's ${EVENTS_DIR} folder`, path.join(dir, EVENTS_DIR)]];
}

/** Writes a report file once the summary is on stdout: a file that cannot be written is one line and exit 4. */
function save(flag: string, path: string, text: string): void {
  try {
    writeFileAtomic(path, text);
    printError(`wrote ${path}`);
  } catch (error) {
    printError(`${writeError(flag, path, error)}; the summary is on stdout only`);
    setExitCode(EXIT.notSaved);
  }
}

/** The summary on stdout: the table (and the takeover table), or with --json everything as data, figure data included. */
function printSummary(study: StudyData, summary: StudySummary, json: boolean): void {
  const { manifest } = study;
  const takeover = takeoverRows(study.runs, manifest.cells, manifest.seeds[0]);
  if (json) {
    const data = { ...summary, headline: headline(summary), figures: figureData(study), ...(takeover.length > 0 ? { takeover } : {}) };
    printLine(
      JSON.stringify(data, (_, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? (Number.isNaN(v) ? null : String(v)) : v)),
    );
    return;
  }
  printLine(renderTable(summary));
  if (takeover.length > 0) printLine(`\n${renderTakeoverTable(takeover)}`);
}

/**
 * Writes an export folder (`--figures`, `--ioh`) whole or not at all once the summary is on
 * stdout: its files are made first (a signal ends that at once), then written with the signals
 * held (a stop comes after the folder is in place); a failure is one line and exit 4.
 */
async function saveExport(flag: string, dir: string, make: () => ExportFile[] | Promise<ExportFile[]>, wrote: string): Promise<void> {
  const files = await withDefaultSignals(make);
  try {
    writeExportFolder(dir, files, flag);
    printError(`wrote ${dir} (${wrote})`);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    printError(`${writeError(flag, dir, error)}; the summary is on stdout only`);
    setExitCode(EXIT.notSaved);
  }
}

/** `report --run FILE`: one run's event stream, without a study. */
async function reportRun(args: ArgumentsCamelCase<ReportArgs>, file: string, stopPoint: StopPoint): Promise<void> {
  for (const [flag, given] of [
    ['--csv', args.csv !== undefined],
    ['--markdown', args.markdown !== undefined],
    ['--ioh', args.ioh !== undefined],
    ['--figures', args.figures !== undefined],
    ['--baseline', args.baseline !== undefined],
    ['--paper-table1', args.paperTable1],
    ['--json', args.json],
  ] as const) {
    if (given) throw new UsageError(`${flag}: needs a study folder; --run ${file} alone reports one run`);
  }
  const run = await withDefaultSignals(() => readRunEvents(file));
  await stopPoint();
  const html = args.html === undefined ? null : await withDefaultSignals(() => renderRunHtml(run, args.xAxis));
  await stopPoint();
  printLine(runSummaryLines(run).join('\n'));
  if (args.html !== undefined && html !== null) save('--html', args.html, html);
}

/** `report DIR --serve` and `report --run FILE --serve`: the live view's page of what is on disk, until Ctrl-C. */
async function serveReport(args: ArgumentsCamelCase<ReportArgs>, at: ServeOptions): Promise<void> {
  for (const [flag, given] of [
    ['--html', args.html !== undefined],
    ['--csv', args.csv !== undefined],
    ['--markdown', args.markdown !== undefined],
    ['--ioh', args.ioh !== undefined],
    ['--json', args.json],
    ['--paper-table1', args.paperTable1],
    ['--baseline', args.baseline !== undefined],
    ['--run (with a study folder)', args.dir !== undefined && args.run !== undefined],
  ] as const) {
    if (given)
      throw new UsageError(
        `${flag}: not with --serve, which serves the page of ${args.dir === undefined ? '--run FILE' : 'the study folder'}`,
      );
  }
  const { serveRunFile, serveStudyFolder } = await import('../../serve/serve.ts');
  await serveUntilStopped(at, () => (args.dir === undefined ? serveRunFile(args.run!, at) : serveStudyFolder(args.dir, at)));
}

export async function report(args: ArgumentsCamelCase<ReportArgs>): Promise<void> {
  if (args.dir === '') throw new ConfigError('report: expected a study folder, got an empty string');
  if (args.html !== undefined) checkOutFile('--html', args.html);
  if (args.csv !== undefined) checkOutFile('--csv', args.csv);
  if (args.markdown !== undefined) checkOutFile('--markdown', args.markdown);
  if (args.ioh !== undefined) checkExportFolder(args.ioh, '--ioh');
  if (args.figures !== undefined) checkExportFolder(args.figures, '--figures');
  const outputs = [
    ['--html', args.html],
    ['--csv', args.csv],
    ['--markdown', args.markdown],
    ['--ioh', args.ioh],
    ['--figures', args.figures],
  ] as const;
  checkDistinctOutputs(outputs);
  checkNotInputs(
    outputs,
    [['the trace --run', args.dir === undefined ? args.run : undefined], ...studyInputs(args.dir)],
    studyFolders(args.dir),
  );
  if (args.dir === undefined && args.run === undefined)
    throw new UsageError('report: expected a study folder (the --out of experiment), or --run FILE (from solve --trace FILE)');
  const serveAt = serveFromArgs(args);
  if (serveAt !== null) return serveReport(args, serveAt);
  const { stopPoint, release } = claimStopPoints('report stopped; a file it named as written is whole, no other was written');
  try {
    await stopPoint();
    if (args.dir === undefined) await reportRun(args, args.run!, stopPoint);
    else await reportStudy(args, args.dir, stopPoint);
  } finally {
    release();
  }
}

/** Awaited between the long synchronous stretches of `report`: ends the process if a signal came (claimStopPoints). */
type StopPoint = () => Promise<void>;

/** `report DIR`: the summary on stdout and the files asked for. */
async function reportStudy(args: ArgumentsCamelCase<ReportArgs>, dir: string, stopPoint: StopPoint): Promise<void> {
  const study = await withDefaultSignals(() => readStudy(dir));
  await stopPoint();
  const { manifest } = study;
  const flags = args.baseline ?? [];
  const baseline = flags.length > 0 ? parseBaselineFlags(flags, manifest) : manifest.baseline;
  const chosen =
    args.run === undefined
      ? null
      : parseRun(
          args.run,
          manifest.cells.map((c) => c.id),
          manifest.seeds,
        );
  const summary = await withDefaultSignals(() => summarise(study, baselineMapper(manifest, baseline), baseline));
  await stopPoint();
  if (args.paperTable1) {
    const differ = paperSetupDifferences(study);
    if (differ.length > 0) {
      const more = differ.length > 1 ? ` (and ${differ.length - 1} more cell${differ.length > 2 ? 's' : ''})` : '';
      throw new ConfigError(
        `--paper-table1: ${dir} is not the paper's set-up (one island, topology none, paper mode), so Table 1 is no comparison: cell ${differ[0]}${more}`,
      );
    }
  }
  const table1 = args.paperTable1 ? table1Rows(study) : [];
  if (args.paperTable1 && table1.length === 0)
    throw new ConfigError(`--paper-table1: ${dir} has no cell with n in 10..25 (run config/experiments/paper-table1.yaml)`);
  // The page reads the event logs: a damaged one is refused before anything is printed.
  const html = args.html === undefined ? null : await withDefaultSignals(() => renderHtml(study, summary, chosen, args.xAxis));
  await stopPoint();

  if (study.droppedBytes > 0)
    printError(
      `${dir}/runs.jsonl: left out a half-written last line (${study.droppedBytes} bytes) of an interrupted run; experiment --resume removes it`,
    );
  const gaps = study.shards === null ? null : shardGaps(study.shards);
  if (gaps !== null) printError(`${dir}: ${gaps}; rerun those shards to complete the study`);
  printSummary(study, summary, args.json);
  if (args.paperTable1) {
    printLine('');
    printLine(renderTable1(table1));
  }
  if (args.csv !== undefined) save('--csv', args.csv, renderCsv(summary));
  if (args.markdown !== undefined) save('--markdown', args.markdown, renderMarkdown(study, summary));
  if (args.html !== undefined && html !== null) save('--html', args.html, html);
  await stopPoint();
  if (args.figures !== undefined)
    await saveExport('--figures', args.figures, () => figureFiles(studyFigures(study)), 'each figure as SVG, with its data as CSV');
  await stopPoint();
  if (args.ioh !== undefined)
    await saveExport('--ioh', args.ioh, () => iohFiles(study), 'IOHprofiler format, two-column .dat, for IOHanalyzer');
}
