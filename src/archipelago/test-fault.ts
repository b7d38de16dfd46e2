/**
 * The test-only fault hook. It is no part of any message: an island's worker reads it from
 * its own environment (`NQUEENS_ISLANDS_TEST_FAULT`, which worker threads inherit from the
 * process that started them, or which a test gives a `LocalHost` as its workers' `env`).
 * `island:iteration:throw|exit` makes that island's worker throw (or exit) when it reaches
 * that iteration; `island:iteration:slow:MS` makes it sleep MS ms in every iteration from
 * there on (a slow island). Island ids are the run's, so on hosts of a cluster only the host
 * that runs that island acts on it.
 */
export const TEST_FAULT_ENV = 'NQUEENS_ISLANDS_TEST_FAULT';

/** What the hook asks for, parsed. */
export interface TestFault {
  island: number;
  atIteration: number;
  kind: 'throw' | 'exit' | 'slow';
  /** `slow` only: milliseconds of sleep per iteration. */
  delayMs?: number;
}

/** The fault a value of the variable names; undefined for none, null for a malformed value. */
export function parseTestFault(raw: string | undefined): TestFault | undefined | null {
  if (raw === undefined || raw === '') return undefined;
  const match = /^(\d+):(\d+):(throw|exit|slow:(\d+))$/.exec(raw.trim());
  if (!match) return null;
  const island = Number(match[1]);
  if (match[4] !== undefined) return { island, atIteration: Number(match[2]), kind: 'slow', delayMs: Number(match[4]) };
  return { island, atIteration: Number(match[2]), kind: match[3] as TestFault['kind'] };
}

/** The value that asks for `fault` (a test sets it in a worker pool's environment). */
export function testFaultValue(fault: TestFault): string {
  return `${fault.island}:${fault.atIteration}:${fault.kind === 'slow' ? `slow:${fault.delayMs ?? 1}` : fault.kind}`;
}
