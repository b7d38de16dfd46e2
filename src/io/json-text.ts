/**
 * What JSON.parse lets through silently, found in the text: a key given twice in one object
 * (JSON.parse keeps the last, so the file says two things and one is dropped without a
 * word), a reserved key (`__proto__`, dropped by the first merge), and nesting deep enough to exhaust the stack of whatever walks the value later
 * (a validator, a printer). Files from outside are checked with this after they parse.
 */

/** A mapping, as JSON and YAML give one: an object that is not null or a list. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Keys no input may use: each names a property every object has, so a mapping keyed by it
 * (a group, a sweep key) is dropped or read as the prototype's instead of refused.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The refusal of a reserved key, in one home for files, flags and the library. */
export function reservedKeyProblem(key: string): string {
  return `key ${JSON.stringify(key)} is not allowed (every object has a property of that name); choose another name`;
}

/** Deeper than any file of this tool's needs (a config is 4 levels deep) and far below the stack's limit. */
export const MAX_JSON_DEPTH = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The end of the string that starts at `start` (a quote), or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

/**
 * Why valid JSON `text` is still refused (`key "n" appears twice in one object`, `nested
 * deeper than 256 levels`), or null. Text that is not JSON gives null: JSON.parse says why.
 */
export function jsonTextProblem(text: string): string | null {
  // Per open object, its keys so far; per open array, null.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === -1) return null;
      if (expectKey) {
        const keys = open[open.length - 1]!;
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return `key ${JSON.stringify(key)} appears twice in one object`;
        if (RESERVED_KEYS.has(key)) return reservedKeyProblem(key);
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      open.push(c === '{' ? new Set() : null);
      if (open.length > MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      open.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = open.length > 0 && open[open.length - 1] !== null;
    }
  }
  return null;
}

/**
 * JSON.parse, also refusing a key twice in one object and nesting deeper than MAX_JSON_DEPTH.
 * @throws SyntaxError with JSON.parse's reason or one of those.
 */
export function parseJsonText(text: string): unknown {
  const value: unknown = JSON.parse(text);
  // A number, string or empty container cannot hold either problem: no scan of big scalar files.
  if (value === null || typeof value !== 'object') return value;
  const problem = jsonTextProblem(text);
  if (problem !== null) throw new SyntaxError(problem);
  return value;
}
