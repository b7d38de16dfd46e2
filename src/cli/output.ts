/**
 * Writing results: stdout for data, stderr for messages, and a cap on what a terminal is
 * shown. Everything goes through safeText: no control character from a file reaches a terminal.
 */
import { safeText } from '../io/terminal.ts';

/** Tuples longer than this are summarised on a terminal unless the user asks for all of them. */
export const MAX_PRINTED_TUPLE = 200;

export function printLine(text: string): void {
  process.stdout.write(`${safeText(text)}\n`);
}

export function printError(text: string): void {
  process.stderr.write(`nqueens-islands: ${safeText(text)}\n`);
}

/** A log line of a long-lived process (a host, a coordinator waiting for hosts): on stderr, with the UTC time. */
export function printLog(text: string): void {
  printError(`${new Date().toISOString()} ${text}`);
}

/**
 * Ends the process once stdout and stderr have taken everything written to them (with the
 * exit code set), without waiting for worker threads to wind down one by one: a finished
 * command has written its files synchronously, and the threads end with the process.
 */
export function exitWhenWritten(): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit()));
}

/**
 * A tuple for a person: whole up to MAX_PRINTED_TUPLE entries, else its head and `rest`, which
 * says where the rest is (the `--out` file given) or how to get it.
 */
export function tupleForPeople(tuple: readonly number[], all = false, rest = '--all prints them'): string {
  if (all || tuple.length <= MAX_PRINTED_TUPLE) return `(${tuple.join(', ')})`;
  return `(${tuple.slice(0, 10).join(', ')}, ... ${tuple.length - 10} more; ${rest})`;
}
