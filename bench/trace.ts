/**
 * What `--trace` costs a run (issue 34: at most 1% of evaluations/s at N = 1000): evaluations
 * per second of `solve -n 1000 --islands 2 --max-iterations 200` writing every event to a
 * trace file as it goes, against the same seeded runs without, alternating (paired-runs.ts).
 * The islands' course logs are always on; their cost is the course-log row (course-log.ts).
 *
 *   npm run build && node dist/bench/trace.js [seeds, default 7]   (or npm run bench -- --only trace)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pairedCost, type PairedCost } from './paired-runs.ts';

// Run compiled (dist/bench/trace.js), as bench.ts is: the bundle is beside it in dist/.
const CLI = fileURLToPath(new URL('../bundle/nqueens-islands.cjs', import.meta.url));
const ARGS = ['solve', '-n', '1000', '--islands', '2', '--max-iterations', '200', '--json', '--quiet'];

/** One run's evaluations per second of search and, with `trace`, the lines its trace file got (exit 1: not solved, as here). */
async function rate(dir: string, seed: number, trace: boolean): Promise<{ rate: number; lines: number }> {
  const file = path.join(dir, `trace-${seed}.jsonl`);
  const child = spawn(process.execPath, [CLI, ...ARGS, '--seed', String(seed), ...(trace ? ['--trace', file] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await new Promise((resolve) => child.on('close', resolve));
  const record = JSON.parse(stdout) as { evaluations: number; seconds: number };
  const lines = trace ? readFileSync(file, 'utf8').split('\n').length - 1 : 0;
  if (trace) rmSync(file);
  return { rate: record.evaluations / record.seconds, lines };
}

export async function traceCost(seeds: number): Promise<PairedCost<{ rate: number; lines: number }>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'nqi-bench-trace-'));
  try {
    return await pairedCost(seeds, (seed, on) => rate(dir, seed, on));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seeds = Number(process.argv[2] ?? 7);
  const { ratios, median, on } = await traceCost(seeds);
  console.log('| row | seeds | evaluations/s traced / plain, per seed | median | trace lines |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| --trace, solve -n 1000 --islands 2 | 1..${seeds} | ${ratios.map((r) => r.toFixed(3)).join(', ')} | ${median.toFixed(3)} | ${on.map((r) => r.lines).join(', ')} |`,
  );
}
