/**
 * What `--trace` costs a run (issue 34: at most 1% of evaluations/s at N = 1000): evaluations
 * per second of `solve -n 1000 --islands 2 --max-iterations 200` writing every event to a
 * trace file as it goes, against the same seeded runs without, alternating (paired-runs.ts).
 * Whole runs on a shared machine vary by several % from run to run, so the row also gives the
 * writer's own cost, timed in this process on each run's events (writeMs). The islands' course
 * logs are always on; their cost is the course-log row (course-log.ts).
 *
 *   npm run build && node dist/bench/trace.js [seeds, default 7]   (or npm run bench -- --only trace)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ArchipelagoEvent } from '../src/archipelago/events.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import type { SeededRunConfig } from '../src/run/start-run.ts';
import { TraceWriter } from '../src/run/trace.ts';
import { pairedCost, type PairedCost } from './paired-runs.ts';

// Run compiled (dist/bench/trace.js), as bench.ts is: the bundle is beside it in dist/.
const CLI = fileURLToPath(new URL('../bundle/nqueens-islands.cjs', import.meta.url));
const ARGS = ['solve', '-n', '1000', '--islands', '2', '--max-iterations', '200', '--json', '--quiet'];

export interface TracedRun {
  rate: number;
  lines: number;
  /** ms of one thread spent writing this run's trace again in this process (replay), per run. */
  writeMs: number;
  /** The run's search time, ms. */
  runMs: number;
}

/** How often a run's events are written again to time the writer (a run writes under 1000 lines). */
const REPLAYS = 20;

/**
 * The writer's own cost, free of the machine's noise: the run's events (its trace file's lines)
 * written through a TraceWriter again, REPLAYS times, timed in this process: what writing the
 * trace would cost a run if every ms of it held every island back.
 */
function writeMs(dir: string, seed: number, lines: string[]): number {
  const config = resolveRunConfig({ n: 1000, seed, islands: 2, limits: { maxIterations: 200 } }, 'bench') as SeededRunConfig;
  const events = lines.slice(1).map((line) => JSON.parse(line) as ArchipelagoEvent);
  let ms = 0;
  for (let r = 0; r < REPLAYS; r++) {
    const file = path.join(dir, `replay-${seed}-${r}.jsonl`);
    // Opening the file and its final sync happen before and after the search: timed are the lines and their writes.
    const writer = new TraceWriter(file, config);
    const start = performance.now();
    for (const event of events) writer.write(event);
    writer.abort(); // the last flush, and the file closed without the sync
    ms += performance.now() - start;
    rmSync(file);
  }
  return ms / REPLAYS;
}

/** One run's evaluations per second of search and, with `trace`, its trace's lines and writing cost (exit 1: not solved, as here). */
async function rate(dir: string, seed: number, trace: boolean): Promise<TracedRun> {
  const file = path.join(dir, `trace-${seed}.jsonl`);
  const child = spawn(process.execPath, [CLI, ...ARGS, '--seed', String(seed), ...(trace ? ['--trace', file] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await new Promise((resolve) => child.on('close', resolve));
  const record = JSON.parse(stdout) as { evaluations: number; seconds: number };
  const lines = trace ? readFileSync(file, 'utf8').split('\n').slice(0, -1) : [];
  if (trace) rmSync(file);
  return {
    rate: record.evaluations / record.seconds,
    lines: lines.length,
    writeMs: trace ? writeMs(dir, seed, lines) : 0,
    runMs: record.seconds * 1000,
  };
}

export async function traceCost(seeds: number): Promise<PairedCost<TracedRun>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'nqi-bench-trace-'));
  try {
    return await pairedCost(seeds, (seed, on) => rate(dir, seed, on));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median over runs of the trace's writing time over the run's search time. */
export function writeShare(runs: readonly TracedRun[]): number {
  const shares = runs.map((r) => r.writeMs / r.runMs).sort((a, b) => a - b);
  const mid = shares.length >> 1;
  return shares.length % 2 ? shares[mid] : (shares[mid - 1] + shares[mid]) / 2;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seeds = Number(process.argv[2] ?? 7);
  const { ratios, median, on } = await traceCost(seeds);
  console.log('| row | seeds | evaluations/s traced / plain, per seed | median | trace lines | writing / search time, median |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| --trace, solve -n 1000 --islands 2 | 1..${seeds} | ${ratios.map((r) => r.toFixed(3)).join(', ')} | ${median.toFixed(3)} | ${on.map((r) => r.lines).join(', ')} | ${(writeShare(on) * 100).toFixed(3)}% |`,
  );
}
