/**
 * The test-only fault hook. It is no part of any message: an island's worker reads it from
 * its own environment (`NQUEENS_ISLANDS_TEST_FAULT`, which worker threads inherit from the
 * process that started them, or which a test gives a `LocalHost` as its workers' `env`).
 * `island:iteration:throw|exit` makes that island's worker throw (or exit) when it reaches
 * that iteration; `island:iteration:slow:MS` makes it sleep MS ms in every iteration from
 * there on (a slow island). Island ids are the run's, so on hosts of a cluster only the host
 * that runs that island acts on it; `*` for the island is every island (tests whose run only
 * has to hold its hosts while they wait sleep instead of computing on every core).
 */
import type { Evolver } from '../ga/evolver.ts';

export const TEST_FAULT_ENV = 'NQUEENS_ISLANDS_TEST_FAULT';

/** What the hook asks for, parsed. */
export interface TestFault {
  /** An island id, or `*` for every island. */
  island: number | '*';
  atIteration: number;
  kind: 'throw' | 'exit' | 'slow';
  /** `slow` only: milliseconds of sleep per iteration. */
  delayMs?: number;
}

/** The fault a value of the variable names; undefined for none, null for a malformed value. */
export function parseTestFault(raw: string | undefined): TestFault | undefined | null {
  if (raw === undefined || raw === '') return undefined;
  const match = /^(\d+|\*):(\d+):(throw|exit|slow:(\d+))$/.exec(raw.trim());
  if (!match) return null;
  const island = match[1] === '*' ? '*' : Number(match[1]);
  if (match[4] !== undefined) return { island, atIteration: Number(match[2]), kind: 'slow', delayMs: Number(match[4]) };
  return { island, atIteration: Number(match[2]), kind: match[3] as TestFault['kind'] };
}

/** The value that asks for `fault` (a test sets it in a worker pool's environment). */
export function testFaultValue(fault: TestFault): string {
  return `${fault.island}:${fault.atIteration}:${fault.kind === 'slow' ? `slow:${fault.delayMs ?? 1}` : fault.kind}`;
}

/** The `exit` fault's exit code, so a test can recognise it. */
export const TEST_FAULT_EXIT_CODE = 70;

/**
 * Makes island `island`'s evolver act out `fault` if the fault is that island's: its step
 * throws, exits (through `exit`, the worker's process.exit) or sleeps first. Only the worker
 * glue installs this (workers/island-worker.ts, through `RunnerHooks.wrap`), so the island
 * loop knows nothing of faults.
 */
export function installTestFault(fault: TestFault, exit: (code: number) => never): (evolver: Evolver, island: number) => void {
  return (evolver, island) => {
    if (fault.island !== '*' && fault.island !== island) return;
    const step = evolver.step.bind(evolver);
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    evolver.step = () => {
      if (fault.kind === 'slow' && evolver.iterations >= fault.atIteration) Atomics.wait(sleeper, 0, 0, fault.delayMs ?? 1);
      else if (fault.kind === 'exit' && evolver.iterations === fault.atIteration) exit(TEST_FAULT_EXIT_CODE);
      else if (fault.kind === 'throw' && evolver.iterations === fault.atIteration)
        throw new Error(`test fault: island ${island} throws at iteration ${evolver.iterations}`);
      return step();
    };
  };
}
