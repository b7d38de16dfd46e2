/**
 * How CLI flag text becomes a config value, without zod: the command line's option tables
 * use it, and they load on every command (verify and --help included), zod only where a
 * config is checked.
 */
const NUMBER_LITERAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** Text as a number when it is written as one (`12`, `0.5`, `1e3`), else NaN ("12abc" is not 12). */
export function numberLiteral(text: string): number {
  return NUMBER_LITERAL.test(text) ? Number(text) : Number.NaN;
}

/** How a CLI flag's string becomes a config value (src/config/flags.ts reads it). */
export type FlagValue =
  /** Numeric-looking strings become numbers, `null`/`none` become null (default/none); anything else stays a string for the schema to refuse or read (`5%`). */
  | 'number'
  | 'string'
  | 'boolean';
