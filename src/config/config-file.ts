/**
 * Config files before parsing (named and read with bounds by file-text.ts), and
 * config/default.yaml (what `solve` reads without --config). `npm run build` stores the
 * default file parsed (dist/config/default.json, beside the text it came from), so a command
 * that reads only that file does not load the YAML parser, a tenth of a cold start; a file
 * that differs from what was built (edited since) is parsed as usual.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package-info.ts';
import { displayName, readText } from './file-text.ts';
import { overridesFromArgv } from './flags.ts';
import { resolveRunConfig, systemEnv, type ResolveEnv } from './resolve.ts';
import type { RunConfig } from './run-config.ts';

// Declared in file-text.ts, which load.ts (loaded from here on demand) reads too.
export { displayName, readText };

/** The file `solve` and `config print` read when no `--config` is given. */
export const DEFAULT_CONFIG_FILE = path.join(packageRoot(), 'config', 'default.yaml');

/** What the build stores of config/default.yaml: its exact text and what it parses to. */
export interface BuiltDefault {
  text: string;
  value: unknown;
}

export const BUILT_DEFAULT_FILE = path.join(packageRoot(), 'dist', 'config', 'default.json');

/** The built value of the default file if `text` is exactly what it was built from; else undefined (parse it). */
export function builtDefaultValue(text: string, file = BUILT_DEFAULT_FILE): unknown {
  let built: BuiltDefault;
  try {
    built = JSON.parse(readFileSync(file, 'utf8')) as BuiltDefault;
  } catch {
    return undefined; // not built (tests under tsx before a build): parse the YAML
  }
  return built.text === text ? built.value : undefined;
}

/** The config file a command's parsed argv names: `--config`, else the default file. */
export function configFileOf(argv: Readonly<Record<string, unknown>>): string {
  return typeof argv.config === 'string' ? argv.config : DEFAULT_CONFIG_FILE;
}

/**
 * The run config a command's parsed argv describes: `--config` (or the default file) plus
 * flags. load.ts (and its YAML parser) is loaded only when the file has to be parsed.
 */
export async function runConfigFromArgv(argv: Readonly<Record<string, unknown>>, env: ResolveEnv = systemEnv()): Promise<RunConfig> {
  const file = configFileOf(argv);
  const name = displayName(file);
  const text = readText(file, name);
  const value =
    (file === DEFAULT_CONFIG_FILE ? builtDefaultValue(text) : undefined) ?? (await import('./load.ts')).configFromText(text, file, name);
  return resolveRunConfig(value, name, overridesFromArgv(argv), env);
}
