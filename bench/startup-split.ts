/**
 * `solve -n 8` against bare `node -e 0`, pair by pair, with where its start goes: the CLI's
 * milestones (NQI_STARTUP_SPLIT=1, src/cli/startup-split.ts) in ms since the process
 * started, and wall and CPU (user + system) of both commands, so a creep shows in the part
 * that crept and a loaded machine shows in CPU less than in wall time.
 */
import { spawnSync } from 'node:child_process';
import { statFields } from '../test/proc-stat.ts';
import { STARTUP_SPLIT_ENV } from '../src/cli/startup-split.ts';

/** The milestones, in the order a start passes them (startup-split.ts names them). */
export const MILESTONES = [
  ['node', 'Node started (bootstrap done)'],
  ['cli', 'CLI loaded'],
  ['launched', 'run launched (flags, config)'],
  ['workers', 'pool: workers online (as the main thread hears it)'],
  ['search', 'first island: search started (start gate)'],
  ['result', 'result written'],
  ['exit', 'exit'],
] as const;

export interface StartupPairs {
  /** Per pair: wall and CPU seconds of `node -e 0`, then of the command. */
  node: { wall: number; cpu: number }[];
  command: { wall: number; cpu: number }[];
  /** Per pair: each milestone's ms since the command's process started. */
  marks: Record<string, number>[];
}

/** CPU ms of this process's children that have exited and been waited for (10 ms ticks on Linux); null without /proc. */
function childrenCpuMs(ticks: number): number | null {
  const f = statFields('/proc/self/stat');
  return f && ((Number(f[13]) + Number(f[14])) * 1000) / ticks;
}

function timed(cli: string[], cwd: string, ticks: number, env?: NodeJS.ProcessEnv): { wall: number; cpu: number; stderr: string } {
  const cpu0 = childrenCpuMs(ticks);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, cli, { cwd, encoding: 'utf8', env: env ?? process.env });
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = childrenCpuMs(ticks);
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cli.join(' ')} failed (${r.status}): ${r.stderr.trim()}`);
  return { wall, cpu: cpu0 === null || cpu1 === null ? NaN : (cpu1 - cpu0) / 1000, stderr: r.stderr };
}

/** `pairs` alternating rounds of (`node -e 0`, `node CLI args`), the CLI asked for its start-up split. */
export function startupPairs(cliPath: string, args: string[], cwd: string, pairs: number, ticks = 100): StartupPairs {
  const out: StartupPairs = { node: [], command: [], marks: [] };
  const env = { ...process.env, [STARTUP_SPLIT_ENV]: '1' };
  for (let i = 0; i < pairs; i++) {
    out.node.push(timed(['-e', '0'], cwd, ticks));
    const run = timed([cliPath, ...args], cwd, ticks, env);
    out.command.push(run);
    const line = /start-up split \(ms since the process started\): (.*)/.exec(run.stderr)?.[1] ?? '';
    out.marks.push(Object.fromEntries(line.split(', ').map((m) => [m.split(' ')[0], Number(m.split(' ')[1])])));
  }
  return out;
}
