import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI, as a user runs it (`npm test` builds first). */
export const CLI = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], options: { input?: string; cwd?: string } = {}): CliRun {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: options.cwd ?? ROOT, input: options.input, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A bad-input answer: exit 2, one line on stderr, no stack trace, nothing on stdout. */
export function isOneLineError(r: CliRun): boolean {
  const lines = r.stderr.trimEnd().split('\n');
  return r.code === 2 && lines.length === 1 && lines[0].startsWith('nqueens-islands: ') && !/\n\s+at /.test(r.stderr) && r.stdout === '';
}
