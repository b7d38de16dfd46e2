/**
 * Tests that need a system program (Chromium, nats-server) find it here, or are skipped with
 * one line saying how to enable them. A program is looked for, in order, at the path in its
 * environment variable (NQI_CHROMIUM=/path/to/chromium), under its command names on PATH,
 * then at its usual Debian paths. CI sets NQI_REQUIRE_<TOOL>=1 (NQI_REQUIRE_CHROMIUM=1):
 * there a missing program fails the tests instead of skipping them.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

export interface SystemToolSpec {
  /** Short name used in messages and in the variables: 'chromium' → NQI_CHROMIUM, NQI_REQUIRE_CHROMIUM. */
  name: string;
  /** Command names to look for on PATH, in order. */
  commands: readonly string[];
  /** Absolute paths tried last (Debian's). */
  paths: readonly string[];
  /** How to install it, for the skip line ("apt-get install chromium"). */
  install: string;
}

export type SystemTool =
  /** Found: run it at `path`. */
  | { found: true; path: string; skip: false }
  /** Not found and not required: pass `skip` to describe()/it() as the one line a test run shows. */
  | { found: false; path: null; skip: string };

/** NQI_<NAME>, e.g. NQI_CHROMIUM, NQI_NATS_SERVER. */
export function pathVariable(name: string): string {
  return `NQI_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** NQI_REQUIRE_<NAME>, e.g. NQI_REQUIRE_CHROMIUM: set to 1, a missing program is a failure. */
export function requireVariable(name: string): string {
  return `NQI_REQUIRE_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Where `spec`'s program is, or why its tests are skipped.
 * @throws Error when the path variable names no executable file (a typo must not turn into a
 * skip), or when the program is missing and NQI_REQUIRE_<NAME> is set.
 */
export function findSystemTool(spec: SystemToolSpec, env: NodeJS.ProcessEnv = process.env): SystemTool {
  const variable = pathVariable(spec.name);
  const given = env[variable];
  if (given !== undefined && given !== '') {
    if (!isExecutableFile(given)) throw new Error(`${variable}=${given}: no executable file there`);
    return { found: true, path: given, skip: false };
  }
  const onPath = (env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '');
  for (const command of spec.commands) {
    for (const dir of onPath) {
      const file = path.join(dir, command);
      if (isExecutableFile(file)) return { found: true, path: file, skip: false };
    }
  }
  for (const file of spec.paths) if (isExecutableFile(file)) return { found: true, path: file, skip: false };
  const looked = `${variable}, PATH (${spec.commands.join(', ')}) and ${spec.paths.join(', ')}`;
  const required = requireVariable(spec.name);
  if (env[required] === '1') throw new Error(`${spec.name} is required (${required}=1) but not found in ${looked}; ${spec.install}`);
  return {
    found: false,
    path: null,
    skip: `${spec.name} not found (looked in ${looked}): ${spec.install}, or set ${variable}=/path/to/${spec.commands[0]}, to run these tests`,
  };
}

/**
 * For a test file: `skip` goes to describe(name, { skip }) (false when the program is there,
 * or when it must be there but is not); `path()` in a before() hook gives its path or throws
 * why it is missing, so that case fails as a test instead of breaking the file.
 */
export function systemTool(spec: SystemToolSpec, env: NodeJS.ProcessEnv = process.env): { skip: string | false; path(): string } {
  let tool: SystemTool;
  try {
    tool = findSystemTool(spec, env);
  } catch (error) {
    return {
      skip: false,
      path: () => {
        throw error;
      },
    };
  }
  return { skip: tool.skip, path: () => tool.path ?? '' };
}

export const CHROMIUM: SystemToolSpec = {
  name: 'chromium',
  commands: ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'],
  paths: ['/usr/bin/chromium', '/usr/bin/chromium-browser'],
  install: 'apt-get install chromium',
};

/** Flags for a headless Chromium that fetches nothing on its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
