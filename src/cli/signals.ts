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

function onSignal(signal: StopSignal): void {
  const now = performance.now();
  if (first === null) {
    first = { signal, at: now };
    if (claimant) return claimant(signal);
    printError(`${signal}: interrupted before any run started; nothing was written`);
    process.exit(SIGNAL_EXIT_CODE[signal]);
  }
  if (now - first.at < SAME_INTERRUPTION_MS) return;
  printError(`${signal} again: quitting at once (what was already written stays)`);
  process.exit(SIGNAL_EXIT_CODE[signal]);
}

const SIGNALS = Object.keys(SIGNAL_EXIT_CODE) as StopSignal[];
let installed = false;

/** Installs the handlers (the entry point's first act). */
export function installSignalHandlers(): void {
  for (const signal of SIGNALS) process.on(signal, onSignal);
  installed = true;
  if (process.env[SIGNAL_NOTE_ENV] === '1') process.stderr.write('signal handlers installed\n');
}

/**
 * Runs `work`, which writes nothing (it reads, computes, renders in memory), with the signals'
 * default action: a signal ends the process at once, as the shell reports it (128 + the
 * signal), where a claimed one would wait for the work's end, which for a big study's
 * statistics is minutes. Nothing is half-written then, nothing is said: every output is
 * written after it, with the signals handled here again. A signal still pending when it
 * starts is let in first and keeps the handlers for the work (the next stop point ends the process).
 */
export async function withDefaultSignals<T>(work: () => T | Promise<T>): Promise<T> {
  // A signal that came during the synchronous code before this point waits in the event loop; removing
  // its listener now would drop it. One turn of the loop lets it in first; if one came, the work runs
  // with the handlers kept (the claimant has it, and the next stop point ends the process).
  if (installed) await new Promise((resolve) => setImmediate(resolve));
  // Removing the last listener of a signal gives it back its default action; in-process (tests) none is ours.
  // A signal another listener also has keeps ours (without it, that listener alone would swallow it).
  const defaulted = installed && first === null ? SIGNALS.filter((signal) => process.listenerCount(signal) === 1) : [];
  for (const signal of defaulted) process.removeListener(signal, onSignal);
  if (defaulted.length > 0 && process.env[SIGNAL_NOTE_ENV] === '1') process.stderr.write('signals default\n');
  try {
    return await work();
  } finally {
    for (const signal of defaulted) process.on(signal, onSignal);
  }
}

/**
 * Routes the first SIGINT / SIGTERM / SIGHUP to `handler` until the returned release
 * function is called; further ones are handled here (see the module comment).
 */
export function claimSignals(handler: (signal: StopSignal) => void): () => void {
  claimant = handler;
  if (process.env[SIGNAL_NOTE_ENV] === '1') process.stderr.write('signals claimed\n');
  return () => {
    if (claimant === handler) claimant = null;
  };
}

/**
 * For a command that works in long synchronous stretches (`report`), which would otherwise
 * see no signal until it had finished: claims the signals and returns `stopPoint`, awaited
 * between stretches, which lets a pending signal in and, if one came, ends the process with
 * the signal's code and one line (`stopped` says what stays). Between stretches no output
 * is half-written: each file is written whole to a temporary name, then renamed.
 */
export function claimStopPoints(stopped: string): { stopPoint: () => Promise<void>; release: () => void } {
  let got: StopSignal | null = null;
  const release = claimSignals((signal) => {
    got = signal;
  });
  const stopPoint = async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    if (got === null) return;
    printError(`${got}: ${stopped}`);
    process.exit(SIGNAL_EXIT_CODE[got]);
  };
  return { stopPoint, release };
}
