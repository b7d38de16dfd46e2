/**
 * SIGINT / SIGTERM / SIGHUP, from the first line of the process on: the entry point installs
 * these handlers before it loads anything slow, so a signal during start-up ends the process
 * at once with a note and the shell's code (128 + signal) instead of killing it silently. A
 * command with work in progress (a run, a study, a host) claims the signals while it works,
 * to stop that work cleanly and print and save what it reached.
 *
 * What a further signal means: one that comes within SAME_INTERRUPTION_MS of the first is
 * the same interruption delivered twice (`timeout` signals its child and then the child's
 * whole process group; a closed terminal sends SIGHUP, then often SIGTERM or SIGCONT), and
 * is ignored: the clean stop goes on and what it reaches is still printed and saved. A
 * signal after that (a second Ctrl-C a moment later) quits at once: whatever is already
 * written stays (a study's recorded runs, the last checkpoint), nothing more is written.
 */
import { printError } from './output.ts';

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** 128 + the signal number, as shells report a process ended by it. */
export const SIGNAL_EXIT_CODE: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** Further signals within this long of the first are the same interruption. */
export const SAME_INTERRUPTION_MS = 1000;

/** Test hook: with this set to 1, lines on stderr say the handlers are in place and when a command claims them (tests signal right after). */
export const SIGNAL_NOTE_ENV = 'NQUEENS_ISLANDS_TEST_SIGNAL_NOTE';

let claimant: ((signal: StopSignal) => void) | null = null;
let first: { signal: StopSignal; at: number } | null = null;
/** A command has claimed the signals and let them go again: its work is done, and what it wrote may still be draining to stdout. */
let workDone = false;

function onSignal(signal: StopSignal): void {
  const now = performance.now();
  if (first === null) {
    first = { signal, at: now };
    if (claimant) return claimant(signal);
    if (workDone) return finishWriting(signal);
    printError(`${signal}: interrupted before any run started; nothing was written`);
    process.exit(SIGNAL_EXIT_CODE[signal]);
  }
  if (now - first.at < SAME_INTERRUPTION_MS) return;
  printError(`${signal} again: quitting at once (what was already written stays)`);
  process.exit(SIGNAL_EXIT_CODE[signal]);
}

/**
 * A signal after the command's work, while its output still drains to stdout (a pipe holds
 * 64 KiB): the output is let out whole and the process ends with the command's exit code
 * once stdout has taken it. Cutting it, or saying nothing was written, would be worse.
 */
function finishWriting(signal: StopSignal): void {
  printError(
    `${signal}: the command has finished; its output is written out whole first (a second signal, a second from now, quits at once)`,
  );
  process.stdout.write('', () => process.stderr.write('', () => process.exit()));
}

const SIGNALS = Object.keys(SIGNAL_EXIT_CODE) as StopSignal[];
let installed = false;

/** Installs the handlers (the entry point's first act). */
export function installSignalHandlers(): void {
  for (const signal of SIGNALS) process.on(signal, onSignal);
  installed = true;
  signalNote('signal handlers installed');
}

/** Whether this process's handlers are in (the CLI's entry point): not inside `runCli` or a library caller. */
export function signalHandlersInstalled(): boolean {
  return installed;
}

/** The test hook's line on stderr (SIGNAL_NOTE_ENV): where the process is, for a test to signal it right there. */
export function signalNote(text: string): void {
  if (process.env[SIGNAL_NOTE_ENV] === '1') process.stderr.write(`${text}\n`);
}

/**
 * Routes the first SIGINT / SIGTERM / SIGHUP to `handler` until the returned release
 * function is called; further ones are handled here (see the module comment).
 */
export function claimSignals(handler: (signal: StopSignal) => void): () => void {
  claimant = handler;
  signalNote('signals claimed');
  return () => {
    if (claimant !== handler) return;
    claimant = null;
    workDone = true;
  };
}

/**
 * For a command that works in long synchronous stretches (`report`), which would otherwise
 * see no signal until it had finished: claims the signals and returns `stopPoint`, awaited
 * between stretches, which lets a pending signal in and, if one came, ends the process with
 * the signal's code and one line (`stopped` says what stays). Between stretches no output
 * is half-written: each file is written whole to a temporary name, then renamed.
 * `idleUntil(work)` waits for work done elsewhere (a worker thread) with nothing of this
 * thread's in progress: a signal then, or one that came before, ends the process at once, in
 * the same words. The handlers stay in place throughout: a signal is never lost (removing the
 * last listener of a signal can drop one that libuv has caught but not yet handed on).
 */
export function claimStopPoints(stopped: string): {
  stopPoint: () => Promise<void>;
  idleUntil: <T>(work: Promise<T>) => Promise<T>;
  release: () => void;
} {
  let got: StopSignal | null = null;
  let idle = false;
  const stop = (signal: StopSignal): never => {
    printError(`${signal}: ${stopped}`);
    process.exit(SIGNAL_EXIT_CODE[signal]);
  };
  const release = claimSignals((signal) => {
    got = signal;
    if (idle) stop(signal);
  });
  const stopPoint = async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    if (got !== null) stop(got);
  };
  const idleUntil = async <T>(work: Promise<T>): Promise<T> => {
    if (got !== null) stop(got);
    idle = true;
    try {
      return await work;
    } finally {
      idle = false;
    }
  };
  return { stopPoint, idleUntil, release };
}
