/**
 * The large-N section: whole `solve` commands in hybrid mode (config/large-n.yaml) at
 * N = 10^5, 10^6, 10^7 beside min-conflicts in C (bench/min-conflicts.c, built here with the
 * system's cc), measured in the same run: wall time, CPU time (user + system, which a shared
 * machine inflates less), the run's own search and start-up seconds, and peak resident
 * memory (from /usr/bin/time when the system has it). Medians over seeds.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TIME = '/usr/bin/time';

export interface Measured {
  wallSeconds: number;
  /** User + system CPU seconds of the process and its threads, if /usr/bin/time is there. */
  cpuSeconds: number | null;
  /** Peak resident memory in bytes, if /usr/bin/time is there. */
  peakBytes: number | null;
}

export interface LargeRun extends Measured {
  solved: boolean;
  /** The run's own figures (solve --json); the C program reports its search only. */
  searchSeconds: number;
  startupSeconds: number | null;
}

/** Runs a command, under /usr/bin/time -f when it exists; its stdout and the measures. */
function measure(command: string, args: string[], cwd: string): Measured & { stdout: string; stderr: string } {
  const timed = existsSync(TIME);
  const t0 = performance.now();
  const r = timed
    ? spawnSync(TIME, ['-f', '@@time %U %S %M', command, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30 });
  const wallSeconds = (performance.now() - t0) / 1000;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr.trim()}`);
  const line = /@@time ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  return {
    stdout: r.stdout,
    stderr: r.stderr,
    wallSeconds,
    cpuSeconds: line ? Number(line[1]) + Number(line[2]) : null,
    peakBytes: line ? Number(line[3]) * 1024 : null,
  };
}

/** `nqueens-islands solve --config config/large-n.yaml -n N --seed S --json --quiet`, a new process. */
export function solveLarge(cli: string, root: string, n: number, seed: number): LargeRun {
  const m = measure(
    process.execPath,
    [cli, 'solve', '--config', 'config/large-n.yaml', '-n', String(n), '--seed', String(seed), '--json', '--quiet'],
    root,
  );
  const out = JSON.parse(m.stdout) as { solved: boolean; seconds: number; startupSeconds: number };
  return { ...m, solved: out.solved, searchSeconds: out.seconds, startupSeconds: out.startupSeconds };
}

/** Builds bench/min-conflicts.c with the system's cc; null (and why) when there is no compiler. */
export function compileMinConflicts(): { binary: string } | { skip: string } {
  const here = import.meta.url;
  const source = fileURLToPath(new URL(here.includes('/dist/') ? '../../bench/min-conflicts.c' : './min-conflicts.c', here));
  const binary = join(mkdtempSync(join(tmpdir(), 'nq-bench-mc-')), 'min-conflicts');
  try {
    execFileSync('cc', ['-O2', '-o', binary, source], { stdio: 'pipe' });
    return { binary };
  } catch (error) {
    return {
      skip: `no C compiler (cc -O2 bench/min-conflicts.c: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
    };
  }
}

/** One run of the C reference. */
export function minConflicts(binary: string, n: number, seed: number): LargeRun {
  const m = measure(binary, [String(n), String(seed)], process.cwd());
  const [seconds, solved] = m.stdout.trim().split(' ').map(Number);
  return { ...m, solved: solved === 1, searchSeconds: seconds, startupSeconds: null };
}

export interface DefaultHybridRun extends LargeRun {
  /** Peak resident bytes over N. */
  bytesPerQueen: number | null;
  /** The one line the defaults' fit printed, if any. */
  fitted: string | null;
}

/**
 * `solve -n N --mode hybrid --seed S --out FILE.bin`, the defaults otherwise (issue 50's
 * command), a new process; the run's figures from the record the .bin's JSON twin would hold
 * are taken from stdout's last line (`... N s (start-up S s)`).
 */
export function solveDefaultHybrid(cli: string, root: string, n: number, seed: number): DefaultHybridRun {
  const out = join(mkdtempSync(join(tmpdir(), 'nq-bench-100m-')), 'solution.bin');
  const m = measure(process.execPath, [cli, 'solve', '-n', String(n), '--mode', 'hybrid', '--seed', String(seed), '--out', out], root);
  const times = /; ([\d.]+) s \(start-up ([\d.]+) s\)/.exec(m.stdout);
  const fitted = /runs on [^\n]*/.exec(m.stderr)?.[0] ?? null;
  return {
    ...m,
    solved: m.stdout.startsWith('solved'),
    searchSeconds: times ? Number(times[1]) : NaN,
    startupSeconds: times ? Number(times[2]) : null,
    bytesPerQueen: m.peakBytes === null ? null : m.peakBytes / n,
    fitted,
  };
}
