/** The work behind `experiment`, imported only when the command runs (the study runner pulls in threads, zod and rxjs). */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase } from 'yargs';
import { checkNoAuthFlags, clusterFromArgs, type ClusterArgs } from '../../cluster/flags.ts';
import { displayNatsUrl, parseNatsUrl } from '../../config/nats-url.ts';
import { PASSWORD_ENV } from '../../cluster/defaults.ts';
import { bundleStudy, loadExperiment } from '../../experiment/load.ts';
import { sameCellWarnings } from '../../experiment/same-cells.ts';
import { failureReason, writeFileAtomic } from '../../io/write-file.ts';
import { checkNotInputs, checkOutFile } from '../../io/output-checks.ts';
import { numberLiteral } from '../../schema/flag-value.ts';
import { editsArgs, type StudyEdits } from '../../experiment/study-edits.ts';
import { LOCK_FILE } from '../../experiment/lock.ts';
import { progressBar } from '../../experiment/progress.ts';
import { parseShard, shardFromEnv, type Shard } from '../../experiment/shard.ts';
import { checkStudyFolder, MANIFEST_FILE, RUNS_FILE, readManifest } from '../../experiment/store.ts';
import { studyStatus } from '../../experiment/study-runs.ts';
import { ConfigError } from '../../config/errors.ts';
import { noteKernelFallback } from '../kernel-note.ts';
import { runStudy, type StudyOutcome } from '../../experiment/runner.ts';
import type { ClusterStudyOutcome, runStudyOnCluster } from '../../cluster/study/study.ts';
import type { Experiment } from '../../experiment/load.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printError, printLine, setExitCode } from '../output.ts';
import { claimSignals, SIGNAL_EXIT_CODE, type StopSignal } from '../signals.ts';
import { serveFromArgs, type ServeArgs } from '../../serve/flags.ts';
import { DEFAULT_DETECT_RATIO, designLines, powerPlan } from '../../report/statistics/design.ts';
import { lingerThenClose, startStudyView, withStudyView } from '../serve-view.ts';

export interface ExperimentArgs extends ClusterArgs, ServeArgs {
  file: string;
  out?: string;
  resume: boolean;
  events: boolean;
  shard?: string;
  status: boolean;
  set?: string[];
  repeats?: string;
  bundle?: string;
  mixedBuilds: boolean;
  quiet: boolean;
  plan: boolean;
  pilot?: string;
  detect?: string;
}

/** Exit code of a distributed study that lost its broker or all its hosts (it can be resumed). */
const EXIT_CLUSTER_LOST = 3;

/** A word as a POSIX shell reads it back: bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w./=@%+:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The cluster flags of this command line for a hint, as given but with any password or token
 * in the URL as *** (one given through NQI_NATS_PASSWORD or --nats-creds is not in them).
 */
export function clusterHint(args: ClusterArgs, env: NodeJS.ProcessEnv = process.env): string {
  const flags: [string, string | undefined][] = [
    [
      '--nats',
      args.nats === undefined
        ? undefined
        : displayNatsUrl(parseNatsUrl(String(args.nats)), args.natsCreds !== undefined || env[PASSWORD_ENV] !== undefined),
    ],
    ['--nats-creds', args.natsCreds],
    ['--nats-ca', args.natsCa],
    ['--nats-cert', args.natsCert],
    ['--nats-key', args.natsKey],
    ['--nats-prefix', args.natsPrefix],
    // Without it a keyed cluster's hosts drop what the resumed study sends.
    ['--cluster-key-file', args.clusterKeyFile],
    ['--hosts', args.hosts],
    ['--wait', args.wait],
  ];
  return flags
    .filter(([, v]) => v !== undefined)
    .map(([flag, v]) => `${flag} ${shellWord(String(v))}`)
    .join(' ');
}

/** A file-system error (ENOSPC, EROFS, ...) rather than a bug: it has an errno code. */
function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

/** `experiment DIR --status`: the study's progress, on stdout. */
function printStatus(args: ArgumentsCamelCase<ExperimentArgs>): void {
  const other = (['out', 'shard', 'nats'] as const).find((flag) => args[flag] !== undefined);
  if (other !== undefined) throw new UsageError(`--status: reads the folder given as <file>; not with --${other}`);
  const dir = args.file;
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ConfigError(`--status ${dir}: expected the --out folder of an experiment (a folder with ${MANIFEST_FILE})`);
  if (!existsSync(path.join(dir, MANIFEST_FILE)))
    throw new ConfigError(`--status ${dir}: no ${MANIFEST_FILE}; expected the --out folder of an experiment`);
  for (const line of studyStatus(dir, readManifest(path.join(dir, MANIFEST_FILE)))) printLine(line);
}

/** --set and --repeats. @throws ConfigError for a --repeats that is no whole number. */
function studyEdits(args: ArgumentsCamelCase<ExperimentArgs>): StudyEdits {
  const repeats = args.repeats === undefined ? undefined : numberLiteral(args.repeats);
  if (repeats !== undefined && !Number.isInteger(repeats))
    throw new UsageError(`--repeats: expected an integer from 1 to 10000, got ${JSON.stringify(args.repeats)}`);
  return { set: args.set?.map(String), repeats };
}

/** `experiment FILE --bundle OUT`: the study as one file, written the careful way; nothing runs. */
function writeBundle(args: ArgumentsCamelCase<ExperimentArgs>, edits: StudyEdits): void {
  const other = (['out', 'shard', 'nats'] as const).find((flag) => args[flag] !== undefined) ?? (args.resume ? 'resume' : undefined);
  if (other !== undefined) throw new UsageError(`--bundle: writes the study to a file and runs nothing; not with --${other}`);
  const out = args.bundle!;
  if (out === '') throw new UsageError('--bundle: expected a file name, got an empty string');
  const text = bundleStudy(args.file, edits);
  checkNotInputs([['--bundle', out]], [[`the experiment file ${args.file}`, args.file]]);
  // As every output: never onto a study's records, a folder, a planted link.
  checkOutFile('--bundle', out);
  try {
    writeFileAtomic(out, text);
  } catch (error) {
    throw new ConfigError(`--bundle ${out}: cannot write (${failureReason(error)})`);
  }
  printError(`wrote ${out}: ${args.file} with its base inlined; run it as the original: nqueens-islands experiment ${shellWord(out)} ...`);
}

/** `experiment FILE --plan [--pilot DIR [--detect RATIO]]`: the design's lines on stdout, nothing run. */
function printPlan(args: ArgumentsCamelCase<ExperimentArgs>, edits: StudyEdits): void {
  if (args.detect !== undefined && args.pilot === undefined) throw new UsageError('--detect: sizes from a pilot; give --pilot DIR too');
  // Read as every number in a flag (1e-1 is 0.1; 0x1 and words are refused).
  const ratio = args.detect === undefined ? DEFAULT_DETECT_RATIO : numberLiteral(String(args.detect).trim());
  if (!(ratio > 0 && Number.isFinite(ratio)) || ratio === 1)
    throw new ConfigError(`--detect ${args.detect}: expected a paired ratio above 0 other than 1, e.g. 0.8`);
  const experiment = loadExperiment(args.file, undefined, edits);
  if (args.pilot !== undefined && !existsSync(path.join(args.pilot, MANIFEST_FILE)))
    throw new ConfigError(`--pilot ${args.pilot}: no ${MANIFEST_FILE}; expected the --out folder of an earlier study`);
  const plan = args.pilot === undefined ? null : powerPlan(experiment, args.pilot, ratio);
  for (const line of designLines(experiment, plan)) printLine(line);
}

export async function experiment(args: ArgumentsCamelCase<ExperimentArgs>): Promise<void> {
  if (args.file === '') throw new UsageError('experiment: expected an experiment file, got an empty string');
  if (args.status) return printStatus(args);
  const edits = studyEdits(args);
  if (args.bundle !== undefined) return writeBundle(args, edits);
  if (!args.plan && (args.pilot !== undefined || args.detect !== undefined))
    throw new UsageError(`--${args.pilot !== undefined ? 'pilot' : 'detect'}: sizes a design; only with --plan`);
  if (args.plan) return printPlan(args, edits);
  const cluster = clusterFromArgs(args);
  if (!cluster) checkNoAuthFlags(args);
  const shard = args.shard === undefined ? undefined : args.shard === 'auto' ? shardFromEnv() : parseShard(args.shard);
  if (shard !== undefined && cluster !== null) throw new UsageError('--shard: a shard runs its slice on this machine; not with --nats');
  const serveAt = serveFromArgs(args);
  const experiment = loadExperiment(args.file, undefined, edits);
  const outDir = args.out ?? path.join('results', experiment.name);
  noteKernelFallback();
  // The study writes these files (and its event logs): none may be the experiment file it reads.
  checkNotInputs(
    [MANIFEST_FILE, RUNS_FILE, LOCK_FILE].map((name) => ['--out', path.join(outDir, name)] as const),
    [[`the experiment file ${args.file}`, args.file]],
  );
  // Before any work, the broker's connection and the wait for hosts included: a folder that cannot take the study.
  checkStudyFolder(outDir, args.resume, shard !== undefined);
  const served = serveAt ? await startStudyView(experiment, outDir, serveAt) : null;
  const controller = new AbortController();
  // The first signal stops the current run (the study can be resumed); a later one quits at once (src/cli/signals.ts).
  let stoppedBy: StopSignal = 'SIGINT';
  const release = claimSignals((signal) => {
    stoppedBy = signal;
    controller.abort();
  });
  const bar = studyProgress(experiment, args.quiet, cluster !== null);
  const { mixedBuilds } = args;
  const options = {
    outDir,
    resume: args.resume,
    events: args.events,
    signal: controller.signal,
    hooks: withStudyView(bar.hooks, served),
    shard,
    mixedBuilds,
  };
  // The study's own options (--events) are in its manifest: --resume keeps them. A shard continues its slice by itself.
  const again = shard === undefined ? '--resume' : `--shard ${args.shard === 'auto' ? 'auto' : `${shard.index}/${shard.count}`}`;
  const resume = `nqueens-islands experiment ${[args.file, ...editsArgs(edits)].map(shellWord).join(' ')} --out ${shellWord(outDir)} ${again}${mixedBuilds ? ' --mixed-builds' : ''}${cluster ? ` ${clusterHint(args)}` : ''}`;
  let ended = false;
  try {
    let outcome: StudyOutcome;
    let lost: string | null = null;
    if (cluster === null) {
      try {
        outcome = await runStudy(experiment, options);
      } catch (error) {
        if (!isFileSystemError(error)) throw error;
        // The folder took the manifest, then stopped taking runs (full disk, ...): every run recorded before is kept.
        bar.stop();
        printError(
          `${outDir}: cannot write (${failureReason(error)}); the runs recorded before are kept; once fixed, continue with: ${resume}`,
        );
        setExitCode(EXIT.notSaved);
        return;
      }
    } else {
      ({ outcome, lost } = await studyOnCluster(experiment, { ...options, ...cluster }, bar));
    }
    bar.stop();
    tellOutcome(outcome, lost, { cluster: cluster !== null, outDir, resume, shard, stoppedBy });
    ended = true;
  } finally {
    bar.stop();
    release();
    served?.finish();
    // A study that ended keeps its view up until its page is closed or a signal (docs/live-view.md).
    await (served !== null && ended && !controller.signal.aborted ? lingerThenClose(served, 'study') : served?.close());
  }
}

/**
 * The study's progress display, and its notes: a retried run, and the sweep's cells that
 * cannot differ, said once the study has its folder (a refused --out stays one line).
 */
function studyProgress(experiment: Experiment, quiet: boolean | undefined, onCluster: boolean): ReturnType<typeof progressBar> {
  const bar = progressBar(process.stderr, quiet);
  bar.hooks.onRetry = (planned, error) => printError(`run ${planned.cell.id} seed ${planned.seed}: ${error}; running it once more`);
  bar.hooks.onSetAside = ({ count, file, first }) =>
    printError(
      `${count} record${count === 1 ? '' : 's'} that do${count === 1 ? 'es' : ''} not fit the study moved to ${file} (${first}); ${count === 1 ? 'its run is' : 'their runs are'} run again`,
    );
  bar.hooks.onNote = (line) => printError(line);
  // The design's lines once, when the study starts: at its plan, or on a cluster (which has no
  // plan hook) when it has hosts; a study that never starts (a broker out of reach) says only why.
  let designed = false;
  const design = () => {
    if (!designed) designLines(experiment).forEach((line) => printError(line));
    designed = true;
  };
  const warn = () => sameCellWarnings(experiment.cells, experiment.seeds[0]).forEach((warning) => printError(warning));
  if (onCluster) {
    warn();
    const onHosts = bar.hooks.onHosts;
    bar.hooks.onHosts = (hosts) => {
      design();
      onHosts?.(hosts);
    };
  }
  const onPlan = bar.hooks.onPlan;
  bar.hooks.onPlan = (total, done) => {
    design();
    if (!onCluster) warn();
    onPlan?.(total, done);
  };
  return bar;
}

interface OutcomeContext {
  cluster: boolean;
  outDir: string;
  /** The command line that continues the study. */
  resume: string;
  shard: Shard | undefined;
  stoppedBy: StopSignal;
}

/** The study's last lines on stderr and its exit code. */
function tellOutcome(outcome: StudyOutcome, lost: string | null, { cluster, outDir, resume, shard, stoppedBy }: OutcomeContext): void {
  // A coordinator's outcome lines carry the UTC time, as its log lines do (hosts log theirs).
  const at = cluster ? `${new Date().toISOString()} ` : '';
  if (outcome.droppedBytes > 0)
    printError(`${outDir}/runs.jsonl: dropped a half-written last line (${outcome.droppedBytes} bytes) left by an interrupted run`);
  const done = outcome.skipped + outcome.completed;
  const runs = `${outcome.total} run${outcome.total === 1 ? '' : 's'} (${outcome.completed} new) in ${outDir}`;
  if (outcome.interrupted) {
    printError(`${at}${lost ?? 'interrupted'}: ${done} of ${outcome.total} runs are in ${outDir}; continue with: ${resume}`);
    // 128 + the signal, as shells expect of a study stopped by Ctrl-C (130), SIGTERM (143) or SIGHUP (129).
    setExitCode(lost ? EXIT_CLUSTER_LOST : SIGNAL_EXIT_CODE[stoppedBy]);
  } else if (shard !== undefined) {
    printError(
      `shard ${shard.index}/${shard.count}: ${runs}; the study's shards: nqueens-islands experiment ${shellWord(outDir)} --status`,
    );
  } else {
    printError(`${at}${runs}; summary: nqueens-islands report ${shellWord(outDir)}`);
  }
}

/** The study on the cluster's hosts, its log lines through the progress display with the UTC time; and why it stopped unfinished, if not by a signal. */
async function studyOnCluster(
  experiment: Experiment,
  options: Parameters<typeof runStudyOnCluster>[1],
  bar: { log(line: string): void },
): Promise<{ outcome: StudyOutcome; lost: string | null }> {
  const { runStudyOnCluster } = await import('../../cluster/study/study.ts');
  const log = (line: string) => bar.log(`nqueens-islands: ${new Date().toISOString()} ${line}`);
  const result = await runStudyOnCluster(experiment, { ...options, log });
  if (result.dropped > 0) printError(`${new Date().toISOString()} ${result.droppedText}`);
  return { outcome: result, lost: lostReason(result) };
}

/** Why a study on a cluster stopped unfinished, when it was not a signal; null otherwise. */
function lostReason(result: ClusterStudyOutcome): string | null {
  if (result.stoppedBy === 'broker-lost') return `lost the NATS broker ${result.broker}`;
  if (result.stoppedBy === 'no-hosts') return 'no host was left';
  if (result.stoppedBy === 'queue-lost') return "the study's queue was deleted on the broker";
  if (result.stoppedBy === 'unserved') return result.unserved;
  return null;
}
