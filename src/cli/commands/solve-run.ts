/** The work behind `solve`, loaded only when the command runs (it pulls in threads, zod and rxjs). */
import { basename, dirname } from 'node:path';
import { LocalHost } from '../../archipelago/local-host.ts';
import type { ArgumentsCamelCase } from 'yargs';
import { overridesFromArgv } from '../../config/flags.ts';
import { configFileOf, displayName, runConfigFromArgv } from '../../config/config-file.ts';
import { systemEnv, type ResolveEnv } from '../../config/resolve.ts';
import { MAX_BOARD_N, renderBoard } from '../../problem/board.ts';
import { smallBoardAnswer } from '../../problem/small-boards.ts';
import { readCheckpoint, resumeConfig, type CheckpointFile } from '../../run/checkpoint.ts';
import { withNewline, writeRecord, type Ending, type SolveRecord } from '../../run/result-record.ts';
import { jsonChunks } from '../../problem/solution-file.ts';
import { NoSolutionError, type RunFailedError } from '../../run/errors.ts';
import { withSeed, type RunResult, type SeededRunConfig } from '../../run/start-run.ts';
import { checkSupported, runPipeline, type PipelineRun, type RunOutcome } from '../../run/pipeline.ts';
import { checkpointEverySeconds, checkpointsOf } from './solve-checkpoints.ts';
import { CLUSTER_CAPABILITIES } from '../../cluster/defaults.ts';
import { checkBeforeRun, type NamedFile } from '../../run/pre-run.ts';
import { takeEarlyHost } from '../early-host.ts';
import { claimSignals, SIGNAL_EXIT_CODE, SIGNAL_NOTE_ENV, type StopSignal } from '../signals.ts';
import { checkNoAuthFlags, clusterFromArgs, clusterFromConfig, type ClusterArgs } from '../../cluster/flags.ts';
import { serveFromArgs, type ServeArgs } from '../../serve/flags.ts';
import type { RunServer } from '../../serve/serve.ts';
import { lingerThenClose, startRunView } from '../serve-view.ts';
import type { JoinedCluster } from '../../cluster/launcher/join-cluster.ts';
import { largeNAdvice } from '../../config/run-time.ts';
import { fittedNoteOf, noteFitted } from '../../config/memory.ts';
import { watchRun } from '../run-watchers.ts';
import { availableParallelism } from 'node:os';
import { drawsOn } from '../../io/terminal.ts';
import { EXIT, UsageError } from '../errors.ts';
import { noteKernelFallback } from '../kernel-note.ts';
import {
  exitWhenWritten,
  printError,
  printLine,
  printLog,
  printOut,
  printResultLine,
  setExitCode,
  stdoutDelivered,
  unlessStdoutReaderGone,
  tupleForPeople,
} from '../output.ts';
import { removeStaleTemps, writeError } from '../../io/write-file.ts';
import { markSplit } from '../startup-split.ts';

export interface SolveArgs extends ClusterArgs, ServeArgs {
  config?: string;
  json: boolean;
  board: boolean;
  quiet: boolean;
  all: boolean;
  checkpoint?: string;
  checkpointEvery?: string;
  resume?: string;
  trace?: string;
  [flag: string]: unknown;
}

/** The run config: from `--config` and flags, or from the checkpoint `--resume` names (flags may change only limits and outputs). */
async function runConfig(args: SolveArgs, env?: ResolveEnv): Promise<{ config: SeededRunConfig; resumed: CheckpointFile | null }> {
  if (args.resume === undefined) {
    const resolved = await runConfigFromArgv(args, env);
    const config = withSeed(resolved);
    const fitted = fittedNoteOf(resolved);
    if (fitted !== null) noteFitted(config, fitted);
    return { config, resumed: null };
  }
  if (args.config !== undefined) throw new UsageError('--config: not with --resume; the checkpoint holds the run config');
  const checkpoint = readCheckpoint(args.resume);
  // A checkpoint write killed mid-way leaves its temporary file beside it.
  removeStaleTemps(dirname(args.resume), basename(args.resume));
  return { config: resumeConfig(checkpoint, args.resume, overridesFromArgv(args)), resumed: checkpoint };
}

function printText(result: RunResult, args: SolveArgs, ended: Ending, out: string | null, hostOf: readonly (string | undefined)[]): void {
  // Where the rest of a long tuple is: the --out file given, else how to get it.
  const rest = out !== null ? `all of them in ${out}` : 'use --out FILE to save them, --all to print them';
  // On a cluster, the host the winning island ran on.
  const on = result.foundBy === null || hostOf[result.foundBy] === undefined ? '' : ` on host ${hostOf[result.foundBy]}`;
  const found = result.foundBy === null ? '' : `found by island ${result.foundBy}${on} at iteration ${result.foundAtIteration}; `;
  if (result.takeover) {
    const { iteration, islands } = result.takeover;
    const each = islands.map((t, i) => `${i}: ${t ?? 'never'}`).join(', ');
    printLine(
      `takeover N=${result.n}: ${iteration === null ? `not every island was taken over (${ended})` : `archipelago at iteration ${iteration}`}; per island ${each}`,
    );
  } else if (result.solved && result.solution) {
    printResultLine('solved', 'green', ` N=${result.n}: ${tupleForPeople(result.solution, args.all, rest)}`);
    if (args.board) printLine(result.n <= MAX_BOARD_N ? renderBoard(result.solution) : `(no board drawn above N = ${MAX_BOARD_N})`);
  } else {
    const none = result.islands.some((i) => i.error)
      ? 'no island reported a best chromosome'
      : 'stopped during start-up, before any island had built a chromosome';
    const best =
      result.fitness < 0 ? none : `best fitness ${result.fitness}${result.best ? ` ${tupleForPeople(result.best, args.all, rest)}` : ''}`;
    printResultLine('not solved', 'yellow', ` N=${result.n} (${ended}): ${best}`);
  }
  const latency = result.stopLatencyMs === null ? '' : `; stop latency ${result.stopLatencyMs.toFixed(2)} ms`;
  const failed = result.islands.filter((i) => i.error).length;
  printLine(
    `${found}${result.iterations} iterations; ${result.evaluations} evaluations${afterSolution(result)}; ${result.seconds.toFixed(3)} s (start-up ${result.startupSeconds.toFixed(3)} s); ` +
      `${result.islands.length || 1} island${result.islands.length > 1 ? 's' : ''}${failed ? ` (${failed} failed)` : ''}${latency}; seed ${result.seed}`,
  );
}

/** Sync: what the islands evaluated past the winning iteration, running on to the barrier (not in the count before it). */
function afterSolution(result: RunResult): string {
  return result.evaluationsAfterSolution ? ` (+${result.evaluationsAfterSolution} after the solution, to the barrier)` : '';
}

/** One stderr line per failed island (text and --json alike); the one that stopped the run says so. */
function printFailures(result: RunResult, failure: RunFailedError | null): void {
  const allFailed = result.islands.every((i) => i.error);
  for (const island of result.islands) {
    if (!island.error) continue;
    const fatal =
      failure?.failure.island === island.id
        ? '; run stopped (--on-island-error fail)'
        : allFailed
          ? '; every island has failed'
          : '; the others went on';
    printError(`island ${island.id} failed at iteration ${island.error.iteration}: ${island.error.message}${fatal}`);
  }
}

/**
 * Saves the result after it is on stdout: a failed write (full disk, read-only file system,
 * a FIFO nobody reads) is one line, and the result is not lost. Returns whether it was saved.
 */
function saveResult(outName: string, out: string, record: SolveRecord): boolean {
  try {
    if (writeRecord(out, record)) return true;
    printError(`${outName} ${out}: not written: no island reported a chromosome to save`);
    return false;
  } catch (error) {
    // `--out /dev/stdout | head`: stdout's reader went away, nothing failed.
    if (unlessStdoutReaderGone(out, error) === null) return true;
    printError(`${writeError(outName, out, error)}; ${keptIn(null)}`);
    return false;
  }
}

/** `solve`: resolve the config, run the archipelago, print and save the validated result. */
export async function solve(args: ArgumentsCamelCase<SolveArgs>): Promise<void> {
  // The entry point started the workers before loading this (src/cli/early-host.ts); called
  // otherwise (e.g. from code), the pool starts at launch.
  const host = takeEarlyHost() ?? new LocalHost();
  let release: (() => void) | void;
  try {
    release = await solveOn(host, args);
  } catch (error) {
    await host.close();
    throw error;
  }
  // Stopping the pool's threads one by one would only delay the exit (~10-30 ms).
  await exitWhenWritten(() => host.close());
  release?.();
}

/** The run config, and the cluster it runs on when flags or the config name one (joined, islands counted). */
async function configAndCluster(args: SolveArgs) {
  // Islands on other machines: from the flags, else from the config's `cluster:` section.
  const fromFlags = clusterFromArgs(args);
  let { config, resumed } = await runConfig(args);
  const clusterOptions = fromFlags ?? clusterFromConfig(config.cluster, args);
  if (!clusterOptions) checkNoAuthFlags(args);
  if (!clusterOptions && args.clusterKeyFile !== undefined)
    throw new UsageError('--cluster-key-file: only with --nats URL or cluster: in the run config');
  // The pipeline's refusal, asked before waiting for hosts (the cluster's launcher says what it supports).
  const names = { checkpoint: '--checkpoint', resume: '--resume', launcher: fromFlags ? '--nats' : 'cluster: in the run config' };
  if (clusterOptions) checkSupported(CLUSTER_CAPABILITIES, { checkpoints: args.checkpoint !== undefined, resume: resumed !== null }, names);
  // N = 2 and 3 are answered at once: before any host is waited for or any view served.
  const small = smallBoardAnswer(config.n);
  if (small?.kind === 'impossible') throw new NoSolutionError(small.reason);
  const cluster = clusterOptions
    ? await (await import('../../cluster/launcher/join-cluster.ts')).joinCluster({ ...clusterOptions, log: printLog })
    : null;
  if (cluster) {
    // Across machines, the islands default to what the hosts offer, not this machine's cores.
    // The first resolution (above) only checked the input before the wait for hosts; this one is used.
    try {
      ({ config, resumed } = await runConfig(args, { ...systemEnv(), availableParallelism: cluster.islands }));
    } catch (error) {
      await cluster.close();
      throw error;
    }
  }
  return { config, resumed, cluster, names };
}

/** As configAndCluster, or null once N = 2 or 3 is answered (one line, exit 1). */
async function configOrAnswer(args: SolveArgs): Promise<Awaited<ReturnType<typeof configAndCluster>> | null> {
  try {
    return await configAndCluster(args);
  } catch (error) {
    if (!(error instanceof NoSolutionError)) throw error;
    printError(error.message);
    setExitCode(EXIT.notSolved);
    return null;
  }
}

/** Refuses outputs that cannot be written or that name one file twice, before the run starts (the library's checks: run/pre-run.ts). */
function checkOutputs(args: SolveArgs, islands: number, result: NamedFile): void {
  checkBeforeRun(islands, {
    result,
    checkpoint: { name: '--checkpoint', file: args.checkpoint },
    trace: { name: '--trace', file: args.trace },
    resume: { name: '--resume', file: args.resume },
    inputs: [{ name: `the run config ${displayName(configFileOf(args))}`, file: args.resume === undefined ? configFileOf(args) : null }],
  });
}

/** Runs and writes the result; returns the release of the signals it holds while the result is written. */
async function solveOn(host: LocalHost, args: ArgumentsCamelCase<SolveArgs>): Promise<(() => void) | void> {
  const everySeconds = checkpointEverySeconds(args);
  const serveAt = serveFromArgs(args);
  const joined = await configOrAnswer(args);
  if (joined === null) return;
  const { config, resumed, cluster, names } = joined;
  const fitted = fittedNoteOf(config);
  if (fitted !== null) printError(fitted);
  const out = config.output.file;
  // The result file comes from --out or from the run config's output.file: messages name the one used.
  const outName = args.out !== undefined ? '--out' : `output.file (${args.config !== undefined ? displayName(args.config) : 'run config'})`;
  const checkpointPath = args.checkpoint ?? null;
  // The live view (and log-update) only on a terminal that takes cursor movement (not TERM=dumb): scripts start faster.
  const live = drawsOn(process.stdout) && !args.quiet && !args.json;
  // Notes on stderr (when no live view owns the terminal): that the islands run, each checkpoint.
  const notes = !live && !args.quiet;
  let run: PipelineRun;
  let served: RunServer | null = null;
  try {
    checkOutputs(args, config.islands, { name: outName, file: out });
    if (!cluster) noteKernelFallback();
    // The view is up (its URL printed) before the run starts, and sees every event.
    served = serveAt ? await startRunView(config, serveAt) : null;
    // Before any population is built: a paper-mode N that would take hours says so, and what to use instead.
    const advice = largeNAdvice(config, cluster ? config.islands : Math.min(config.islands, availableParallelism()));
    if (advice !== null) printError(advice);
    markSplit('launched');
    run = runPipeline(config, {
      launcher: cluster ? cluster.launcher : host,
      ...checkpointsOf(checkpointPath, everySeconds, notes),
      ...(resumed ? { resume: resumed } : {}),
      names,
    });
    served?.watch(run.events$);
  } catch (error) {
    await served?.close();
    await cluster?.close();
    throw error;
  }
  const signals = interruptions((signal) => run.stop(signal));
  // Test hook: the run owns the signals from here on (tests signal during start-up right after this line).
  if (process.env[SIGNAL_NOTE_ENV] === '1') process.stderr.write('run launched\n');
  const watchers = await watchRun(run, config, args, { live, notes, resumed });
  let outcome: RunOutcome;
  let release: () => void;
  try {
    outcome = await run.outcome;
    // From here the result is written: a signal now lets it finish (stdout is not cut) and is noted.
    release = claimFinishing();
  } catch (error) {
    watchers.trace?.abort();
    await served?.close();
    throw error;
  } finally {
    watchers.close();
    signals.dispose();
    await cluster?.close();
  }
  const traceError = unlessStdoutReaderGone(args.trace ?? '', watchers.trace?.close() ?? null);
  try {
    report(outcome, args, { out, outName, cluster, signals, traceError });
    markSplit('result', outcome.result.startupSeconds);
  } catch (error) {
    await served?.close();
    throw error;
  }
  if (served === null) return release;
  release();
  // The result is out: the view stays up until its page is closed or a signal (docs/live-view.md); not after a Ctrl-C.
  if (signals.received) await served.close();
  else await lingerThenClose(served, 'run');
}

interface ReportContext {
  out: string | null;
  outName: string;
  cluster: JoinedCluster | null;
  signals: Interruptions;
  /** Why the --trace file could not be written, or null. */
  traceError: unknown;
}

/** Prints the result (stdout first: whatever happens to --out, a finished result is never lost), saves it, sets the exit code. */
function report(
  { ended, record, result, failure }: RunOutcome,
  args: SolveArgs,
  { out, outName, cluster, signals, traceError }: ReportContext,
): void {
  // The record's solution passed the independent validator: the tool never prints one it refuses.
  // In chunks: the text of 10^8 rows would pass V8's longest string (docs/large-n.md).
  if (args.json) for (const chunk of withNewline(jsonChunks(record))) printOut(chunk);
  else
    printText(
      result,
      args,
      ended,
      out,
      record.islands.map((i) => ('host' in i ? i.host : undefined)),
    );
  printFailures(result, failure);
  const saved = out === null || saveResult(outName, out, record);
  if (traceError !== null) printError(`${writeError('--trace', args.trace!, traceError)}; ${keptIn(out !== null && saved ? out : null)}`);
  if (cluster && cluster.dropped.total > 0) printError(cluster.dropped.describe());
  if (ended === 'broker-lost')
    printError(`lost the NATS broker ${cluster!.broker}: the best so far is above${out !== null && saved ? ` and in ${out}` : ''}`);
  setExitCode(
    signals.received
      ? signals.exitCode
      : failure || ended === 'broker-lost' || ended === 'all-islands-failed'
        ? EXIT.islandFailed
        : !saved || traceError !== null
          ? EXIT.notSaved
          : result.solved || ended === 'taken-over'
            ? EXIT.ok
            : EXIT.notSolved,
  );
}

/** Where the result is after one output failed: in `file` (when saved there), on stdout, or nowhere. */
function keptIn(file: string | null): string {
  const places = [...(stdoutDelivered() ? ['on stdout'] : []), ...(file !== null ? [`in ${file}`] : [])];
  if (places.length === 0) return 'the result could not be kept anywhere';
  return `the result is ${places.join(' and ')}${places.length === 1 && file === null ? ' only' : ''}`;
}

/**
 * After the run: a signal that comes while the result is written to stdout and the files is
 * noted and changes nothing (a cut result, or "nothing was written", would be worse). The
 * process ends once the result is out (exitWhenWritten).
 */
function claimFinishing(): () => void {
  return claimSignals((signal) => printError(`${signal}: the run has ended; finishing writing its result`));
}

/**
 * SIGINT / SIGTERM / SIGHUP stop the run cleanly (the best so far is printed and saved); a
 * later signal quits at once (src/cli/signals.ts). Exit codes follow the shell's 128 + signal.
 */
interface Interruptions {
  received: boolean;
  exitCode: number;
  dispose: () => void;
}

function interruptions(stop: (signal: StopSignal) => void): Interruptions {
  const state: Interruptions = { received: false, exitCode: 0, dispose: () => {} };
  const onSignal = (signal: StopSignal) => {
    state.received = true;
    state.exitCode = SIGNAL_EXIT_CODE[signal];
    printError(`${signal}: stopping all islands (a second signal, a second from now, quits at once)`);
    stop(signal);
  };
  state.dispose = claimSignals(onSignal);
  return state;
}
