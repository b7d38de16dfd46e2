/**
 * The test-only fault hook of the CLI: `NQUEENS_ISLANDS_TEST_FAULT=island:iteration:throw|exit`
 * makes that island's worker throw (or exit) when it reaches that iteration, so tests can
 * crash a real worker through the real CLI; `island:iteration:slow:MS` makes it sleep MS ms
 * in every iteration from there on (a slow island). Read only by `solve`; never from config files.
 */
import type { TestFault } from '../archipelago/island-options.ts';
import { ConfigError } from '../config/errors.ts';

export const TEST_FAULT_ENV = 'NQUEENS_ISLANDS_TEST_FAULT';

/** The fault the environment asks for, if any. @throws ConfigError for a malformed value. */
export function testFaultFromEnv(islands: number, env: NodeJS.ProcessEnv = process.env): TestFault | undefined {
  const raw = env[TEST_FAULT_ENV];
  if (raw === undefined || raw === '') return undefined;
  const match = /^(\d+):(\d+):(throw|exit|slow:(\d+))$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${TEST_FAULT_ENV}: expected island:iteration:throw|exit|slow:MS, got ${JSON.stringify(raw)}`);
  const island = Number(match[1]);
  if (island >= islands) throw new ConfigError(`${TEST_FAULT_ENV}: island ${island} does not exist; ids are 0..${islands - 1}`);
  if (match[4] !== undefined) return { island, atIteration: Number(match[2]), kind: 'slow', delayMs: Number(match[4]) };
  return { island, atIteration: Number(match[2]), kind: match[3] as TestFault['kind'] };
}
