/**
 * Test-only knobs (docs/development.md): environment variables that lower a production figure
 * (a lease, a timeout, a bound) so a test need not wait it out. They never raise it; unset, as
 * in every production run, the figure holds, and the code path is the same.
 */
import { ConfigError } from './errors.ts';

/** `fallback`, or the lower value of the test-only knob `name`. @throws ConfigError for a malformed knob. */
export function shortened(env: NodeJS.ProcessEnv, name: string, fallback: number, range = { least: 500, unit: 'milliseconds' }): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Decimal digits only: Number() would also take hex, exponents and blanks.
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < range.least || value > fallback)
    throw new ConfigError(
      `${name}: expected an integer of ${range.unit} from ${range.least} to ${fallback} (a test-only knob), got ${JSON.stringify(raw)}`,
    );
  return value;
}
