import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './paths.ts';

export { ROOT };
/** The built CLI, as a user runs it: the bundle the `nqueens-islands` bin points at (`npm test` builds first). */
export const CLI = path.join(ROOT, 'dist', 'bundle', 'nqueens-islands.cjs');

/** Runs the binary in `cwd` with its stdout on /dev/full (a device that takes no byte: ENOSPC on every write). */
export function toDevFull(args: readonly string[], cwd: string): { code: number | null; stderr: string } {
  const full = openSync('/dev/full', 'w');
  try {
    const r = spawnSync(process.execPath, [CLI, ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', cwd });
    return { code: r.status, stderr: r.stderr };
  } finally {
    closeSync(full);
  }
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliRun {
  const env = options.env ? { ...process.env, ...options.env } : process.env;
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    cwd: options.cwd ?? ROOT,
    input: options.input,
    timeout: 120_000,
    // spawnSync cuts output at 1 MiB by default: a record with a best of 3,000,000 rows is ~22 MB.
    maxBuffer: 256 * 1024 * 1024,
    env,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The command line in this process (`runCli`, src/cli/cli.ts): the same parsing, checks,
 * messages and exit codes as the binary, without a process per case. For tables of bad input;
 * the binary itself is checked on a few of them. No build needed.
 */
export async function cliInProcess(args: readonly string[]): Promise<CliRun> {
  const { runCli } = await import('../src/cli/cli.ts');
  return runCli(args);
}

/** As `cli`, without blocking: for tables of cases run a few at a time. */
export function cliAsync(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `task` over `items`, at most `limit` at once, results in input order. */
export async function inBatches<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A bad-input answer: exit 2, one line on stderr, no stack trace, nothing on stdout. */
export function isOneLineError(r: CliRun): boolean {
  const lines = r.stderr.trimEnd().split('\n');
  return r.code === 2 && lines.length === 1 && lines[0].startsWith('nqueens-islands: ') && !/\n\s+at /.test(r.stderr) && r.stdout === '';
}

/** A CLI process running in the background, for tests that signal it mid-run. */
/** The one line of a bad-input answer, without the tool's prefix; fails unless it is one. */
export function oneLine(r: CliRun, what: string): string {
  assert.ok(
    isOneLineError(r),
    `${what}: expected exit 2 and one line, got code ${r.code}, stderr ${JSON.stringify(r.stderr)}, stdout ${JSON.stringify(r.stdout.slice(0, 200))}`,
  );
  return r.stderr.trim().replace(/^nqueens-islands: /, '');
}

export interface LiveCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr has matched `pattern` (rejects if the process ends first). */
  waitForStderr(pattern: RegExp): Promise<void>;
  /** Exit code, signal, and process.hrtime.bigint() when the exit was seen (settles after the output is read). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: bigint }>;
}

export function spawnCli(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): LiveCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const watchers: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    for (const w of watchers.splice(0)) {
      if (w.pattern.test(err)) w.resolve();
      else watchers.push(w);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: bigint }>((resolve) => {
    // The time is taken at exit; the promise settles once the output streams are read to the end.
    let at = 0n;
    child.on('exit', () => (at = process.hrtime.bigint()));
    child.on('close', (code, signal) => resolve({ code, signal, at }));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStderr: (pattern) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(err)) return resolve();
        watchers.push({ pattern, resolve });
        void exited.then(() => reject(new Error(`exited before stderr matched ${pattern}: ${err}`)));
      }),
    exited,
  };
}
