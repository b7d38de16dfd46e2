/**
 * `solve` checks the test-only fault hook (src/archipelago/test-fault.ts) before a run, so a
 * malformed value is one line and exit 2 instead of being ignored by every worker. It never
 * travels in a message or comes from a config file: the workers read it themselves.
 */
import { parseTestFault, TEST_FAULT_ENV } from '../archipelago/test-fault.ts';
import { ConfigError } from '../config/errors.ts';

/** @throws ConfigError for a malformed value, or an island the run does not have. */
export function checkTestFaultEnv(islands: number, env: NodeJS.ProcessEnv = process.env): void {
  const raw = env[TEST_FAULT_ENV];
  const fault = parseTestFault(raw);
  if (fault === null)
    throw new ConfigError(`${TEST_FAULT_ENV}: expected island|*:iteration:throw|exit|slow:MS, got ${JSON.stringify(raw)}`);
  if (fault && fault.island !== '*' && fault.island >= islands)
    throw new ConfigError(`${TEST_FAULT_ENV}: island ${fault.island} does not exist; ids are 0..${islands - 1}`);
}
