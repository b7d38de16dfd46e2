/**
 * Writing results: stdout for data, stderr for messages, and a cap on what a terminal is
 * shown. Everything goes through safeText: no control character from a file reaches a terminal.
 * Where the text goes and how a command ends is this process's streams and exit code, or,
 * inside `runCli` (src/cli/cli.ts), the caller's: the commands write through here only.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { fstatSync, statSync } from 'node:fs';
import { safeText } from '../io/terminal.ts';
import { paint } from './colour.ts';
import { failureReason } from '../io/write-file.ts';
import { EXIT } from './errors.ts';
import type { Rows } from '../problem/genes.ts';

/** Where a command writes and how it ends. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  setExitCode(code: number): void;
  /**
   * The command is done and has written its files: a process ends at once once its streams
   * have taken everything (worker threads end with it); in-process, `cleanup` (closing the
   * threads) runs instead.
   */
  exit(cleanup: () => Promise<void>): Promise<void>;
}

/**
 * stdout that could not take the output (a full disk, a closed file, not a reader gone):
 * said once on stderr, later writes skipped, and a command that finished exits 4 instead
 * of 0 or 1 (its other outputs, if any, keep the result). A reader that went away (EPIPE,
 * `| head`) or a closed terminal (EIO after SIGHUP) is no failure: nobody wants the rest.
 */
const stdoutState: { failed: string | null; gone: boolean } = { failed: null, gone: false };

/** Notes a failed write to this process's stdout (from a write that threw or the stream's 'error' event). */
export function noteStdoutError(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE' || error.code === 'EIO') {
    stdoutState.gone = true;
    return;
  }
  if (stdoutState.failed !== null) return;
  stdoutState.failed = failureReason(error);
  process.stderr.write(
    `nqueens-islands: stdout: cannot be written (${stdoutState.failed}); nothing more is shown there (files it was given to write are still written)\n`,
  );
  // The exit code is settled last: whatever the command set, finished work whose stdout failed is exit 4.
  process.on('exit', (code) => {
    if (code === 0 || code === 1) process.exitCode = EXIT.notSaved;
  });
}

/** Whether this process's stdout failed (not counting a reader that went away). */
export function stdoutFailed(): boolean {
  return stdoutState.failed !== null;
}

/**
 * An output file's error, unless that file is this process's stdout (`--trace /dev/stdout`)
 * and its reader went away (`| head`): then it is stdout's, and no failure (null).
 */
export function unlessStdoutReaderGone(file: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code !== 'EPIPE' && code !== 'EIO') return error;
  try {
    const [target, stdout] = [statSync(file), fstatSync(1)];
    if (target.dev !== stdout.dev || target.ino !== stdout.ino) return error;
  } catch {
    return error;
  }
  noteStdoutError(error as NodeJS.ErrnoException);
  return null;
}

/** Whether what was written to stdout reached its reader: not when it failed, nor when its reader went away (`| head`). */
export function stdoutDelivered(): boolean {
  return stdoutState.failed === null && !stdoutState.gone;
}

function writeStdout(text: string): void {
  if (stdoutState.failed !== null || stdoutState.gone) return;
  try {
    process.stdout.write(text);
  } catch (error) {
    // A file or /dev/full on stdout is written synchronously: its error is thrown here.
    noteStdoutError(error as NodeJS.ErrnoException);
  }
}

const PROCESS_IO: CliIo = {
  stdout: writeStdout,
  stderr: (text) => void process.stderr.write(text),
  setExitCode: (code) => (process.exitCode = code),
  exit: () => {
    const afterStderr = () => process.stderr.write('', () => process.exit());
    if (stdoutState.failed !== null || stdoutState.gone) afterStderr();
    else
      process.stdout.write('', (error) => {
        // A buffered write that failed says so here, before the 'error' event this exit would not wait for.
        if (error) noteStdoutError(error);
        afterStderr();
      });
    // Never settles: the process ends in the callback above, and what the command holds (its
    // signal claim, which keeps a signal from cutting the output) stays held until then.
    return new Promise<void>(() => {});
  },
};

const captured = new AsyncLocalStorage<CliIo>();

/** Runs `work` with its command output going to `io` (and everything `work` starts, asynchronously too). */
export function withCliIo<T>(io: CliIo, work: () => T): T {
  return captured.run(io, work);
}

function cliIo(): CliIo {
  return captured.getStore() ?? PROCESS_IO;
}

/** Whether the command line runs inside a caller (`runCli`), not as the process. */
export function inProcess(): boolean {
  return captured.getStore() !== undefined;
}

/** Tuples longer than this are summarised on a terminal unless the user asks for all of them. */
export const MAX_PRINTED_TUPLE = 200;

export function printLine(text: string): void {
  cliIo().stdout(`${safeText(text)}\n`);
}

/** Text for stdout as it is (it ends with its own newline), made safe. */
export function printOut(text: string): void {
  cliIo().stdout(safeText(text));
}

export function printError(text: string): void {
  const prefix = inProcess() ? 'nqueens-islands:' : paint(['bold', 'cyan'], 'nqueens-islands:', process.stderr);
  cliIo().stderr(`${prefix} ${safeText(text)}\n`);
}

/** A line for stdout whose first word is painted (`solved` green), where stdout takes colour. */
export function printResultLine(word: string, style: 'green' | 'yellow', rest: string): void {
  const head = inProcess() ? word : paint(['bold', style], word, process.stdout);
  cliIo().stdout(`${head}${safeText(rest)}\n`);
}

/** A line on stderr as it is, without the tool's name: the live view's URL, for scripts to read. */
export function printBare(text: string): void {
  cliIo().stderr(`${safeText(text)}\n`);
}

export function setExitCode(code: number): void {
  cliIo().setExitCode(code);
}

/** A log line of a long-lived process (a host, a coordinator waiting for hosts): on stderr, with the UTC time. */
export function printLog(text: string): void {
  printError(`${new Date().toISOString()} ${text}`);
}

/**
 * Ends the process once stdout and stderr have taken everything written to them (with the
 * exit code set), without waiting for worker threads to wind down one by one: a finished
 * command has written its files synchronously, and the threads end with the process.
 * In-process, `cleanup` closes them instead.
 */
export function exitWhenWritten(cleanup: () => Promise<void>): Promise<void> {
  return cliIo().exit(cleanup);
}

/**
 * A tuple for a person: whole up to MAX_PRINTED_TUPLE entries, else its head and `rest`, which
 * says where the rest is (the `--out` file given) or how to get it.
 */
export function tupleForPeople(tuple: Rows, all = false, rest = '--all prints them'): string {
  if (all || tuple.length <= MAX_PRINTED_TUPLE) return `(${tuple.join(', ')})`;
  return `(${tuple.slice(0, 10).join(', ')}, ... ${tuple.length - 10} more; ${rest})`;
}
