/**
 * SIGINT / SIGTERM, from the first line of the process on: the entry point installs these
 * handlers before it loads anything slow, so a Ctrl-C during start-up ends the process at
 * once with a note and the shell's code (128 + signal) instead of killing it silently. A
 * command with work in progress (a run, a study) claims the signals while it works, to stop
 * that work cleanly and print what it reached.
 */
import { printError } from './output.ts';

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** 128 + the signal number, as shells report a process ended by it. */
export const SIGNAL_EXIT_CODE: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/** Test hook: with this set to 1, a line on stderr says the handlers are in place (tests signal right after it). */
export const SIGNAL_NOTE_ENV = 'NQUEENS_ISLANDS_TEST_SIGNAL_NOTE';

let claimant: ((signal: StopSignal) => void) | null = null;

function onSignal(signal: StopSignal): void {
  if (claimant) return claimant(signal);
  printError(`${signal}: interrupted before any run started; nothing was written`);
  process.exit(SIGNAL_EXIT_CODE[signal]);
}

/** Installs the handlers (the entry point's first act). */
export function installSignalHandlers(): void {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (process.env[SIGNAL_NOTE_ENV] === '1') process.stderr.write('signal handlers installed\n');
}

/** Routes SIGINT / SIGTERM to `handler` until the returned release function is called. */
export function claimSignals(handler: (signal: StopSignal) => void): () => void {
  claimant = handler;
  return () => {
    if (claimant === handler) claimant = null;
  };
}
