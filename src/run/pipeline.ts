/**
 * The run pipeline: the one way a run goes, for the CLI's `solve`, the library's
 * `startRun`/`solve` and a study's runs (local or on a cluster host) alike. Given a resolved, seeded config and a launcher, it refuses what
 * the launcher does not support (checkpoints, a resume), starts the run, writes its
 * checkpoints, and resolves to its outcome: how it ended, the record (its solution validated
 * again), and what only the launcher knows (placement, a lost broker, dropped bus messages).
 * Callers keep their own edges: flags, printing, signals, the live view, result files.
 */
import type { Observable } from 'rxjs';
import type { ArchipelagoEvent, CheckpointEvent } from '../archipelago/events.ts';
import { IN_PROCESS_REPORT, type Launcher, type LauncherCapabilities, type LaunchReport } from '../archipelago/launcher.ts';
import { ConfigError } from '../config/errors.ts';
import { failureReason } from '../io/write-file.ts';
import { checkpointFile, writeCheckpoint, type CheckpointFile } from './checkpoint.ts';
import { endingOf, resultRecord, type Ending, type SolveRecord } from './result-record.ts';
import { RunFailedError } from './errors.ts';
import { startSeededRun, type RunResult, type SeededRunConfig } from './start-run.ts';

/** What ends a run early: the library's `stop()` (`stopped`) or a signal the CLI caught. */
export type StopEnding = Extract<Ending, 'stopped' | 'SIGINT' | 'SIGTERM' | 'SIGHUP'>;

export interface PipelineCheckpoints {
  /** Written whole or not at all at each checkpoint (the previous one stays until then). */
  file: string;
  everyMs: number;
  /**
   * After each checkpoint: `error` is null when it was written, else why not (the run goes on);
   * `repeated`: the previous write failed the same way (a disk that stays full), said once is enough.
   */
  onWrite?(event: CheckpointEvent, error: unknown, repeated: boolean): void;
}

export interface PipelineOptions {
  /** Where the islands run; default: a local worker pool made for this run and closed after it. */
  launcher?: Launcher;
  checkpoints?: PipelineCheckpoints;
  /** Continue from this checkpoint (read and checked by `readCheckpoint`; the config comes from `resumeConfig`). */
  resume?: CheckpointFile;
  /** Aborting it is `stop()`. */
  signal?: AbortSignal;
  /**
   * How the caller's user names the checkpoint, the resume and the launcher, for the one-line
   * refusal (`--checkpoint: not with --nats (...)`); default the library's option names.
   */
  names?: RequestNames;
}

/** How a run ended and what it leaves: everything a caller prints, saves or returns. */
export interface RunOutcome {
  ended: Ending;
  /** The record `solve --json` prints; its solution passed the independent validator. */
  record: SolveRecord;
  /** The run's result as the archipelago reported it (what the CLI's text is made from). */
  result: RunResult;
  /** An island failed under `onIslandError: 'fail'` and stopped the run; null otherwise. */
  failure: RunFailedError | null;
  /** What only the launcher knows of the run. */
  launch: LaunchReport;
}

export interface PipelineRun {
  /** The resolved config, seed decided. */
  readonly config: SeededRunConfig;
  /** Every event of the run (docs/events.md), ending with `done`; subscribe at once (not replayed). */
  readonly events$: Observable<ArchipelagoEvent>;
  /** Ends the run early; the outcome says `reason` unless the run solved first. Idempotent. */
  stop(reason?: StopEnding): void;
  /** Resolves however the run ended (an island failure is `failure`); rejects only for a bug, as a solution the validator refuses. */
  readonly outcome: Promise<RunOutcome>;
}

/** How the caller's user names what the refusal names. */
export interface RequestNames {
  checkpoint: string;
  resume: string;
  launcher: string;
}

const LIBRARY_NAMES: RequestNames = { checkpoint: 'checkpoint', resume: 'resume', launcher: 'cluster' };

/**
 * The one refusal of what a launcher does not support: a checkpoint or a resume of islands
 * that take none. `runPipeline` applies it; a caller that knows the launcher's capabilities
 * before it has the launcher (the CLI, before it waits for hosts) may ask it earlier.
 * @throws ConfigError, one line naming the option and the launcher as the user gave them.
 */
export function checkSupported(
  capabilities: LauncherCapabilities,
  asked: { checkpoints: boolean; resume: boolean },
  names: RequestNames = LIBRARY_NAMES,
): void {
  if (capabilities.checkpoints || !(asked.checkpoints || asked.resume)) return;
  throw new ConfigError(`${asked.checkpoints ? names.checkpoint : names.resume}: not with ${names.launcher} (${capabilities.why})`);
}

/**
 * Starts the run. N = 1 is answered at once.
 * @throws ConfigError when the launcher cannot do what was asked (a checkpoint or a resume of
 * islands that take none); NoSolutionError for N = 2 and 3. Nothing is started then.
 */
export function runPipeline(config: SeededRunConfig, options: PipelineOptions = {}): PipelineRun {
  const { launcher, checkpoints, resume, signal } = options;
  if (launcher)
    checkSupported(launcher.capabilities, { checkpoints: checkpoints !== undefined, resume: resume !== undefined }, options.names);
  const run = startSeededRun(config, {
    ...(launcher ? { launcher } : {}),
    ...(checkpoints ? { checkpointEveryMs: checkpoints.everyMs } : {}),
    ...(resume ? { resume: resume.islands, resumeBetween: resume.between } : {}),
  });
  if (checkpoints) {
    const { file, onWrite } = checkpoints;
    let lastFailure: string | null = null;
    run.events$.subscribe((event) => {
      if (event.type !== 'checkpoint') return;
      let error: unknown = null;
      try {
        writeCheckpoint(file, checkpointFile(event, config, resume?.seconds ?? 0));
      } catch (thrown) {
        error = thrown;
      }
      const failure = error === null ? null : failureReason(error);
      onWrite?.(event, error, failure !== null && failure === lastFailure);
      lastFailure = failure;
    });
  }
  let stoppedBy: StopEnding | null = null;
  const stop = (reason: StopEnding = 'stopped') => {
    stoppedBy ??= reason;
    run.stop();
  };
  const onAbort = () => stop();
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  const outcome = run.result
    .then(
      (result) => ({ result, failure: null }),
      (error: unknown) => {
        if (error instanceof RunFailedError) return { result: error.result, failure: error };
        throw error;
      },
    )
    .then(({ result, failure }): RunOutcome => {
      const launch = launcher?.report() ?? IN_PROCESS_REPORT;
      const ended = endingFor(result, { brokerLost: launch.brokerLost, stoppedBy, failed: failure !== null });
      return { ended, record: resultRecord(result, config, ended, launch), result, failure, launch };
    })
    .finally(() => signal?.removeEventListener('abort', onAbort));
  return { config, events$: run.events$, stop, outcome };
}

/**
 * How the run ended: a lost broker first (its islands all failed with it); then a stop, unless
 * the run had solved; then an island failure under `onIslandError: 'fail'`; else what the
 * islands reported (`endingOf`).
 */
function endingFor(result: RunResult, how: { brokerLost: boolean; stoppedBy: StopEnding | null; failed: boolean }): Ending {
  if (how.brokerLost) return 'broker-lost';
  if (how.stoppedBy && !result.solved) return how.stoppedBy;
  if (how.failed) return 'island-failed';
  return endingOf(result);
}
