/**
 * Reading and writing 1-based tuples as people and files give them:
 * `8 6 4 1 3 5 7 2`, `(8, 6, 4, 1, 3, 5, 7, 2)`, `[8,6,4,1,3,5,7,2]`.
 */

import { parseJsonText } from '../io/json-text.ts';
import { shown } from '../io/shown.ts';
import { TupleSyntaxError } from './errors.ts';

const SEPARATORS = /\s*,\s*|\s+/;

/** Parses one tuple. Rejects anything that is not a list of positive integers. */
export function parseTuple(text: string, where = 'tuple'): number[] {
  let body = text.trim();
  const open = body[0];
  if (open === '(' || open === '[') {
    const close = open === '(' ? ')' : ']';
    if (body[body.length - 1] !== close)
      throw new TupleSyntaxError(`${where}: "${clip(text)}" opens with ${open} but does not end with ${close}`);
    body = body.slice(1, -1).trim();
  }
  if (body === '') throw new TupleSyntaxError(`${where}: empty tuple, expected numbers such as 8 6 4 1 3 5 7 2`);
  // One comma (with spaces around it or not) or spaces part two rows: `1,,2` misses a row, it is not (1, 2).
  return body.split(SEPARATORS).map((token, i) => {
    if (token === '')
      throw new TupleSyntaxError(`${where}: "${clip(text)}" has no row at entry ${i + 1} (two commas in a row, or one at an end)`);
    return parseEntry(token, where);
  });
}

function parseEntry(token: string, where: string): number {
  if (!/^\d+$/.test(token)) throw new TupleSyntaxError(`${where}: "${clip(token)}" is not a positive integer`);
  const value = Number(token);
  if (value < 1 || !Number.isSafeInteger(value)) throw new TupleSyntaxError(`${where}: ${clip(token)} is out of range, rows are 1-based`);
  return value;
}

/** An array of positive safe integers (any other value: a TupleSyntaxError naming `where`). */
export function checkNumberArray(value: unknown, where: string): number[] {
  if (!Array.isArray(value)) throw new TupleSyntaxError(`${where}: expected an array of row numbers`);
  if (value.length === 0) throw new TupleSyntaxError(`${where}: empty tuple`);
  // An index loop: a hole (`[1, , 3]`) is named, not skipped as `for...of` and `every` would skip or hide it.
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) throw new TupleSyntaxError(`${where}: entry ${i + 1} is empty (a hole in the array)`);
    const v: unknown = value[i];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)
      throw new TupleSyntaxError(`${where}: ${clip(shown(v))} is not a positive integer`);
  }
  return value as number[];
}

/**
 * Parses a file of tuples. JSON: an array of numbers (one tuple), an array of arrays
 * (many), or an object with a `solution` array (what `solve --json` and `--out` write), or
 * for an unsolved result, `solution: null` and the `best` array.
 * Text: one tuple per line (blank lines and `#` comments skipped), except that a file
 * whose every line holds a single number is one tuple written one row per line.
 */
export function parseTupleFile(content: string, file: string): number[][] {
  const trimmed = content.trim();
  if (trimmed === '') throw new TupleSyntaxError(`${file}: the file is empty, expected tuples`);
  if (trimmed[0] === '{' || (trimmed[0] === '[' && looksLikeJson(trimmed))) return parseJsonTuples(trimmed, file);
  if (ONE_ROW_PER_LINE.test(trimmed) && !TWO_ON_A_LINE.test(trimmed)) return [parseRowPerLine(trimmed, file)];
  const lines: { text: string; line: number }[] = [];
  content.split('\n').forEach((raw, i) => {
    const text = raw.replace(/#.*/, '').trim();
    if (text !== '') lines.push({ text, line: i + 1 });
  });
  if (lines.length === 0) throw new TupleSyntaxError(`${file}: no tuples, only blank lines and comments`);
  if (lines.length > 1 && lines.every((l) => /^\d+$/.test(l.text))) {
    return [lines.map((l) => parseEntry(l.text, `${file}:${l.line}`))];
  }
  return lines.map((l) => parseTuple(l.text, `${file}:${l.line}`));
}

// A solution written one row per line (what `solve --out x.txt` writes for a million
// queens) is read in one split, without a regular expression per line.
const ONE_ROW_PER_LINE = /^[\d\s]+$/;
const TWO_ON_A_LINE = /\d[ \t]+\d/;

function parseRowPerLine(text: string, file: string): number[] {
  // One pass over the characters: splitting a 7 MB text into a million strings costs ten times more.
  const tuple: number[] = [];
  let line = 1;
  let value = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 10;
    if (code >= 48 && code <= 57) {
      value = (value < 0 ? 0 : value * 10) + code - 48;
      continue;
    }
    if (value >= 0) {
      if (value < 1 || !Number.isSafeInteger(value))
        throw new TupleSyntaxError(`${file}:${line}: ${value} is out of range, rows are 1-based`);
      tuple.push(value);
      value = -1;
    }
    if (code === 10) line++;
  }
  return tuple;
}

function looksLikeJson(text: string): boolean {
  // `[1 2 3]` is a bracketed text tuple; JSON needs commas between entries.
  return text.includes(',') || /^\[\s*\[/.test(text) || /^\[\s*\d+\s*\]$/.test(text);
}

function parseJsonTuples(text: string, file: string): number[][] {
  let data: unknown;
  try {
    data = parseJsonText(text);
  } catch (error) {
    throw new TupleSyntaxError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const record = data as { solution?: unknown; best?: unknown; n?: unknown };
    // An unsolved result (solve --out) has `solution: null` and the best chromosome reached in `best`.
    const key = (record.solution === null || record.solution === undefined) && record.best !== undefined ? 'best' : 'solution';
    const tuple = checkNumberArray(record[key], `${file}: key "${key}"`);
    // A result record names its board: a tuple of another length is a damaged record.
    if (typeof record.n === 'number' && record.n !== tuple.length) {
      throw new TupleSyntaxError(`${file}: key "${key}" has ${tuple.length} rows but key "n" is ${record.n}; expected ${record.n} rows`);
    }
    return [tuple];
  }
  if (!Array.isArray(data) || data.length === 0) throw new TupleSyntaxError(`${file}: expected a JSON array of tuples`);
  if (data.every((d) => Array.isArray(d))) return data.map((d, i) => checkNumberArray(d, `${file}: tuple ${i + 1}`));
  return [checkNumberArray(data, file)];
}

/** Formats a 1-based tuple, space separated (the CLI's text form). */
export function formatTuple(tuple: readonly number[]): string {
  return tuple.join(' ');
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
