/** The work behind `report`, imported only when the command runs: its checks, its worker thread, its writes. */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase } from 'yargs';
import { ConfigError } from '../../config/errors.ts';
import { X_AXES, type XAxis } from '../../report/figures/x-axis.ts';
import { EXIT, UsageError } from '../errors.ts';
import { checkExportFolder, writeExportFolder, type ExportFile } from '../../report/exports/export-folder.ts';
import type { ReportOutputs, ReportRequest } from '../../report/report-outputs.ts';
import { reportInThread, workerThreadsAllowed } from '../report-thread.ts';
import { printError, printLine, setExitCode, unlessStdoutReaderGone } from '../output.ts';
import { EVENTS_DIR, MANIFEST_FILE, RUNS_FILE } from '../../experiment/store.ts';
import { LOCK_FILE } from '../../experiment/lock.ts';
import { writeError, writeFileAtomic } from '../../io/write-file.ts';
import { checkDistinctOutputs, checkNotInputs, checkOutFile } from '../../io/output-checks.ts';
import { serveFromArgs, type ServeArgs } from '../../serve/flags.ts';
import type { ServeOptions } from '../../serve/options.ts';
import { serveUntilStopped } from '../serve-view.ts';
import { claimStopPoints, signalHandlersInstalled } from '../signals.ts';

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
  quiet?: boolean;
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
function save(flag: string, path: string, text: string, note: (line: string) => void): void {
  try {
    writeFileAtomic(path, text);
    note(`wrote ${path}`);
  } catch (error) {
    if (unlessStdoutReaderGone(path, error) === null) return;
    printError(`${writeError(flag, path, error)}; the summary is on stdout only`);
    setExitCode(EXIT.notSaved);
  }
}

/**
 * Writes an export folder (`--figures`, `--ioh`) whole or not at all once the summary is on
 * stdout (a signal's stop comes after the folder is in place); a failure is one line and exit 4.
 */
function saveExport(flag: string, dir: string, files: ExportFile[], wrote: string, note: (line: string) => void): void {
  try {
    writeExportFolder(dir, files, flag);
    note(`wrote ${dir} (${wrote})`);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    printError(`${writeError(flag, dir, error)}; the summary is on stdout only`);
    setExitCode(EXIT.notSaved);
  }
}

/** `report --run FILE` reports one run's event stream, without a study: the flags that need a study are refused. */
function checkRunAlone(args: ArgumentsCamelCase<ReportArgs>, file: string): void {
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

/** A file given where the study folder goes: a run's event file (`--run`), or a file of a study folder (its folder). */
function checkStudyFolderGiven(dir: string): void {
  if (!existsSync(dir) || !statSync(dir).isFile()) return;
  const name = path.basename(dir);
  const folder = path.dirname(dir);
  if (name === MANIFEST_FILE || name === RUNS_FILE || /^runs\.shard-\d+-of-\d+\.jsonl$/.test(name))
    throw new ConfigError(`${dir}: is a file of a study folder; report the folder: nqueens-islands report ${folder}`);
  if (/\.(ya?ml|json)$/i.test(name))
    throw new ConfigError(
      `${dir}: is a file, not a study folder; an experiment file is run first (nqueens-islands experiment ${dir} --out DIR), then: nqueens-islands report DIR`,
    );
  throw new ConfigError(
    `${dir}: is a file, not a study folder; a run's event file (from solve --trace FILE) is reported with: nqueens-islands report --run ${dir}`,
  );
}

export async function report(args: ArgumentsCamelCase<ReportArgs>): Promise<void> {
  if (args.dir === '') throw new ConfigError('report: expected a study folder, got an empty string');
  if (args.dir !== undefined) checkStudyFolderGiven(args.dir);
  xAxisOf(args.xAxis);
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
  if (args.dir === undefined) checkRunAlone(args, args.run!);
  const { stopPoint, idleUntil, release } = claimStopPoints('report stopped; a file it named as written is whole, no other was written');
  try {
    // Nothing is written until every output is made: a signal before then ends report at once.
    const outputs = await idleUntil(reportOutputs(reportRequest(args)));
    await stopPoint();
    await writeOutputs(args, outputs, stopPoint);
  } finally {
    release();
  }
}

function reportRequest(args: ArgumentsCamelCase<ReportArgs>): ReportRequest {
  return {
    ...(args.dir === undefined ? {} : { dir: args.dir }),
    ...(args.run === undefined ? {} : { run: args.run }),
    ...(args.baseline === undefined ? {} : { baseline: args.baseline }),
    html: args.html !== undefined,
    csv: args.csv !== undefined,
    markdown: args.markdown !== undefined,
    figures: args.figures !== undefined,
    ioh: args.ioh !== undefined,
    json: args.json,
    paperTable1: args.paperTable1,
    xAxis: xAxisOf(args.xAxis),
  };
}

/** `--x-axis`, refused in the words every choice flag uses (yargs' own check said "Invalid values: Argument: ..."). */
function xAxisOf(given: unknown): XAxis {
  const axis = X_AXES.find((name) => name === given);
  if (axis === undefined) throw new UsageError(`--x-axis: expected one of ${X_AXES.join(' | ')}, got ${JSON.stringify(given)}`);
  return axis;
}

/**
 * The report's outputs, made in a worker thread when this process's signal handlers are in
 * (the CLI): this thread stays idle and hears a signal at once, whatever the work is doing. In
 * a caller's process (`runCli`, the library) there are no signals of ours to hear and the work
 * runs here; so it does where Node's permission model refuses worker threads.
 */
async function reportOutputs(request: ReportRequest): Promise<ReportOutputs> {
  if (signalHandlersInstalled() && workerThreadsAllowed()) return reportInThread(request);
  // Loaded only here: the CLI's thread need not load the statistics and the page's code it hands to the worker.
  return (await import('../../report/report-outputs.ts')).makeReportOutputs(request);
}

/** Awaited between the writes of `report`: ends the process if a signal came (claimStopPoints). */
type StopPoint = () => Promise<void>;

/** The notes and the summary, then the files asked for, each whole, with stop points between them. */
async function writeOutputs(args: ArgumentsCamelCase<ReportArgs>, outputs: ReportOutputs, stopPoint: StopPoint): Promise<void> {
  // -q: the summary and errors only; no notes (missing shards, dropped lines) and no "wrote" lines.
  const note = args.quiet ? () => {} : printError;
  for (const line of outputs.notes) note(line);
  for (const line of outputs.stdout) printLine(line);
  if (args.csv !== undefined && outputs.csv !== undefined) save('--csv', args.csv, outputs.csv, note);
  if (args.markdown !== undefined && outputs.markdown !== undefined) save('--markdown', args.markdown, outputs.markdown, note);
  if (args.html !== undefined && outputs.html !== undefined) save('--html', args.html, outputs.html, note);
  await stopPoint();
  if (args.figures !== undefined && outputs.figures !== undefined)
    saveExport('--figures', args.figures, outputs.figures, 'each figure as SVG, with its data as CSV', note);
  await stopPoint();
  if (args.ioh !== undefined && outputs.ioh !== undefined)
    saveExport('--ioh', args.ioh, outputs.ioh, 'IOHprofiler format, two-column .dat, for IOHanalyzer', note);
}
