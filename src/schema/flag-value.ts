/**
 * How CLI flag text becomes a config value, without zod: the command line's option tables
 * use it, and they load on every command (verify and --help included), zod only where a
 * config is checked.
 */

/**
 * A command-line option as the domain folders declare it: the part of yargs' `Options` their
 * tables use, spelled here so that only src/cli imports yargs (its types are then no runtime
 * dependency of the package). src/cli hands these tables to yargs, which checks them against
 * its own type there.
 */
export interface FlagOptions {
  type?: 'string' | 'boolean' | 'number';
  alias?: string;
  describe?: string;
  group?: string;
  requiresArg?: boolean;
  /** `--help` labels the option a number (numberInHelp). */
  number?: boolean;
  coerce?: (value: unknown) => unknown;
}
const NUMBER_LITERAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

const INTEGER_LITERAL = /^[+-]?\d+$/;

/**
 * Text as a number when it is written as one (`12`, `0.5`, `1e3`), else NaN ("12abc" is not
 * 12). Also NaN for an integer too long to be held exactly (beyond 2^53): it would be checked
 * and quoted back rounded, not as typed.
 */
export function numberLiteral(text: string): number {
  if (!NUMBER_LITERAL.test(text)) return Number.NaN;
  const value = Number(text);
  return INTEGER_LITERAL.test(text) && !Number.isSafeInteger(value) ? Number.NaN : value;
}

/** How a CLI flag's string becomes a config value (src/config/flags.ts reads it). */
export type FlagValue =
  /** Numeric-looking strings become numbers, `null`/`none` become null (default/none); anything else stays a string for the schema to refuse or read (`5%`). */
  | 'number'
  | 'string'
  | 'boolean'
  /** A whole mapping written as JSON (`--island-groups '{"hot": {"islands": 2}}'`); text that is not JSON stays a string for the schema to refuse. */
  | 'json';

/**
 * A repeated flag arrives from yargs as an array; the last one wins, as in most CLIs.
 * Commands give it as `coerce` to their own single-value options (`--config`, `--html`, ...).
 */
export function lastValue(raw: unknown): unknown {
  return Array.isArray(raw) ? raw[raw.length - 1] : raw;
}

/**
 * For an option whose value is a number: `--help` says `[number]`, while the value still
 * arrives as the string typed (a string option is never coerced, so "ten" is quoted back
 * in the error instead of becoming NaN). yargs labels an option in both lists a number.
 */
export function numberInHelp(isNumber = true): Pick<FlagOptions, 'number'> {
  return isNumber ? { number: true } : {};
}
