/** The work behind `experiment`, imported only when the command runs (the study runner pulls in threads, zod and rxjs). */
import path from 'node:path';
import type { ArgumentsCamelCase } from 'yargs';
import { checkNoAuthFlags, clusterFromArgs, type ClusterArgs } from '../../cluster/flags.ts';
import { displayNatsUrl, parseNatsUrl } from '../../config/nats-url.ts';
import { PASSWORD_ENV } from '../../cluster/defaults.ts';
import { loadExperiment } from '../../experiment/load.ts';
import { sameCellWarnings } from '../../experiment/same-cells.ts';
import { failureReason } from '../../io/write-file.ts';
import { progressBar } from '../../experiment/progress.ts';
import { runStudy, type StudyOutcome } from '../../experiment/runner.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printError, setExitCode } from '../output.ts';
import { claimSignals, SIGNAL_EXIT_CODE, type StopSignal } from '../signals.ts';

export interface ExperimentArgs extends ClusterArgs {
  file: string;
  out?: string;
  resume: boolean;
  events: boolean;
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

export async function experiment(args: ArgumentsCamelCase<ExperimentArgs>): Promise<void> {
  const cluster = clusterFromArgs(args);
  if (!cluster) checkNoAuthFlags(args);
  if (args.file === '') throw new UsageError('experiment: expected an experiment file, got an empty string');
  const experiment = loadExperiment(args.file);
  for (const warning of sameCellWarnings(experiment.cells, experiment.seeds[0])) printError(warning);
  const outDir = args.out ?? path.join('results', experiment.name);
  const controller = new AbortController();
  // The first signal stops the current run (the study can be resumed); a later one quits at once (src/cli/signals.ts).
  let stoppedBy: StopSignal = 'SIGINT';
  const release = claimSignals((signal) => {
    stoppedBy = signal;
    controller.abort();
  });
  const bar = progressBar();
  bar.hooks.onRetry = (planned, error) => printError(`run ${planned.cell.id} seed ${planned.seed}: ${error}; running it once more`);
  const options = { outDir, resume: args.resume, events: args.events, signal: controller.signal, hooks: bar.hooks };
  // The study's own options (--events) are in its manifest: --resume keeps them.
  const resume = `nqueens-islands experiment ${shellWord(args.file)} --out ${shellWord(outDir)} --resume${cluster ? ` ${clusterHint(args)}` : ''}`;
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
      const { runStudyOnCluster } = await import('../../cluster/study/study.ts');
      const log = (line: string) => bar.log(`nqueens-islands: ${new Date().toISOString()} ${line}`);
      const result = await runStudyOnCluster(experiment, { ...options, ...cluster, log });
      outcome = result;
      if (result.stoppedBy === 'broker-lost') lost = `lost the NATS broker ${result.broker}`;
      if (result.stoppedBy === 'no-hosts') lost = 'no host was left';
      if (result.dropped > 0) printError(result.droppedText);
    }
    bar.stop();
    if (outcome.droppedBytes > 0)
      printError(`${outDir}/runs.jsonl: dropped a half-written last line (${outcome.droppedBytes} bytes) left by an interrupted run`);
    const done = outcome.skipped + outcome.completed;
    if (outcome.interrupted) {
      printError(`${lost ?? 'interrupted'}: ${done} of ${outcome.total} runs are in ${outDir}; continue with: ${resume}`);
      // 128 + the signal, as shells expect of a study stopped by Ctrl-C (130), SIGTERM (143) or SIGHUP (129).
      setExitCode(lost ? EXIT_CLUSTER_LOST : SIGNAL_EXIT_CODE[stoppedBy]);
    } else {
      printError(
        `${outcome.total} run${outcome.total === 1 ? '' : 's'} (${outcome.completed} new) in ${outDir}; summary: nqueens-islands report ${shellWord(outDir)}`,
      );
    }
  } finally {
    bar.stop();
    release();
  }
}
