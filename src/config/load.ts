/**
 * Reading run-config files: YAML or JSON by extension (.yml/.yaml/.json; anything else is
 * read as YAML, which also accepts JSON), turned into one-line `ConfigError`s that point at
 * the file and, for syntax errors, the line and column (`config/x.yaml:3:5: ...`).
 * The CLI reaches it through `config-file.ts`, which loads it only for a file that needs parsing.
 */
import path from 'node:path';
import YAML from 'yaml';
import { displayName, readText } from './file-text.ts';
import { jsonTextProblem, RESERVED_KEYS, reservedKeyProblem } from '../io/json-text.ts';
import { describeDocument } from '../schema/fields.ts';
import { ConfigError, invalidJson } from './errors.ts';
import type { ConfigOverrides } from './overrides.ts';
import { resolveRunConfig, systemEnv, type ResolveEnv } from './resolve.ts';
import type { RunConfig } from './run-config.ts';

interface YamlProblem {
  line: number;
  col: number;
  message: string;
}

/** Parses YAML (or JSON, with the json schema) and lists its errors as line, column and the first line of yaml's message. */
function parseYamlDocument(text: string, schema: 'core' | 'json'): { doc: YAML.Document; problems: YamlProblem[] } {
  const doc = YAML.parseDocument(text, { schema, uniqueKeys: true, prettyErrors: true });
  const problems = doc.errors.map((error) => ({
    line: error.linePos?.[0].line ?? 1,
    col: error.linePos?.[0].col ?? 1,
    message: error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, ''),
  }));
  return { doc, problems };
}

function lineColumn(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

function parseJson(text: string, name: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    if (position !== null) {
      const { line, col } = lineColumn(text, Number(position[1]));
      throw invalidJson(`${name}:${line}:${col}`, message.replace(/ in JSON at position.*$/, ''));
    }
    if (/end of JSON input/.test(message)) {
      const { line, col } = lineColumn(text, text.length);
      throw invalidJson(`${name}:${line}:${col}`, 'unexpected end of file');
    }
    // V8 gives no position for some errors ("Unexpected token 'x', ..."); JSON is YAML,
    // so the yaml parser in JSON mode locates the fault.
    const problem = parseYamlDocument(text, 'json').problems[0] ?? { line: 1, col: 1, message: message.split(',')[0] };
    throw invalidJson(`${name}:${problem.line}:${problem.col}`, problem.message);
  }
  // Too deep for the yaml parser's recursion below (and the validator's).
  const problem = jsonTextProblem(text);
  if (problem !== null && !/^key .* appears twice/.test(problem)) throw invalidJson(name, problem);
  // JSON.parse silently keeps the last of two equal keys; a config must not.
  const duplicate = parseYamlDocument(text, 'json').problems.find((p) => p.message.startsWith('Map keys must be unique'));
  if (duplicate !== undefined) throw invalidJson(`${name}:${duplicate.line}:${duplicate.col}`, duplicate.message);
  return value;
}

function parseYaml(text: string, name: string): unknown {
  const { doc, problems } = parseYamlDocument(text, 'core');
  if (problems.length > 0) {
    const problem = problems[0];
    throw new ConfigError(`${name}:${problem.line}:${problem.col}: invalid YAML: ${yamlProblem(problem.message)}`);
  }
  checkReservedKeys(doc, text, name);
  try {
    return doc.toJS();
  } catch (error) {
    // yaml refuses aliases that would expand without bound ("billion laughs") only here.
    throw new ConfigError(`${name}: invalid YAML: ${yamlProblem((error as Error).message.split('\n')[0])}`);
  }
}

/** A reserved key (`__proto__`, `constructor`) anywhere in the document: the conversion below would drop it silently. */
function checkReservedKeys(doc: YAML.Document, text: string, name: string): void {
  YAML.visit(doc, {
    Pair(_, pair) {
      const key = YAML.isScalar(pair.key) ? pair.key.value : pair.key;
      if (typeof key !== 'string' || !RESERVED_KEYS.has(key)) return;
      const { line, col } = lineColumn(text, (pair.key as YAML.Scalar).range?.[0] ?? 0);
      throw new ConfigError(`${name}:${line}:${col}: ${reservedKeyProblem(key)}`);
    },
  });
}

/** The yaml parser's message, in the file's terms: its recursion's limit is the nesting's (JSON's is MAX_JSON_DEPTH). */
function yamlProblem(message: string): string {
  return message === 'Maximum call stack size exceeded' ? 'nested too deeply for the parser' : message;
}

/** Parses a config or experiment file's text: JSON for a .json name, YAML otherwise. Null for an empty document. */
export function parseConfigText(text: string, file: string, name = displayName(file)): unknown {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return null;
  return path.extname(file).toLowerCase() === '.json' ? parseJson(body, name) : parseYaml(body, name);
}

/**
 * Reads and parses a config file without validating it.
 * @throws ConfigError for a missing file, a directory, an empty file or a syntax error.
 */
export function readConfigFile(file: string): unknown {
  const name = displayName(file);
  return configFromText(readText(file, name), file, name);
}

/** Keys only an experiment file has (src/experiment/schema.ts): a run config with one is a study given by mistake. */
const STUDY_ONLY_KEYS = ['sweep', 'repeats', 'seeds', 'baseline', 'base'];

/** A config file's text parsed, not validated. @throws ConfigError for an empty document or a syntax error. */
export function configFromText(text: string, file: string, name = displayName(file)): unknown {
  const value = parseConfigText(text, file, name);
  // Empty, comments only, `---` or `null`: nothing to run.
  if (value === null || value === undefined) throw new ConfigError(`${name}: empty file; expected a mapping with at least "n"`);
  if (typeof value !== 'object')
    throw new ConfigError(`${name}: holds ${describeDocument(value)}, not a mapping of config keys; expected at least "n"`);
  if (!Array.isArray(value) && STUDY_ONLY_KEYS.some((key) => key in value))
    throw new ConfigError(`${name} is a study (an experiment file: sweep, repeats, ...), not a run config: use \`experiment ${name}\``);
  return value;
}

/**
 * Reads a config file, merges the overrides (flags win) and resolves it.
 * @throws ConfigError with a one-line message naming the file or flag, the key and the expectation.
 */
export function loadConfigFile(file: string, overrides: ConfigOverrides = {}, env: ResolveEnv = systemEnv()): RunConfig {
  return resolveRunConfig(readConfigFile(file), displayName(file), overrides, env);
}
