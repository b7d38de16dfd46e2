/**
 * The live view's cost to a run (docs/live-view.md, Cost): evaluations per second of
 * `solve -n 1000 --islands 2 --max-iterations 200` with `--serve 0` and a page's event stream
 * open the whole run, against the same seeded runs without `--serve`, alternating (the order
 * flips every seed, so drifts of the machine fall on both). The iterations are fixed, so each
 * pair does the same work; the ratio per seed is served / plain, and the row is their median.
 * The page's own drawing runs in the browser's process and is not in the figure.
 *
 *   npm run build && node dist/bench/live-view.js [seeds, default 5]   (or npm run bench -- --only live)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { countViews, servedUrl } from '../test/live-stream.ts';
import { pairedCost } from './paired-runs.ts';

// Run compiled (dist/bench/live-view.js), as bench.ts is: the bundle is beside it in dist/.
const CLI = fileURLToPath(new URL('../bundle/nqueens-islands.cjs', import.meta.url));
const ARGS = ['solve', '-n', '1000', '--islands', '2', '--max-iterations', '200', '--json', '--quiet'];

/** One run's evaluations per second of search; with `serve`, a client reads the view's stream from the URL on. */
async function rate(seed: number, serve: boolean): Promise<{ rate: number; views: number }> {
  const child = spawn(process.execPath, [CLI, ...ARGS, '--seed', String(seed), ...(serve ? ['--serve', '0'] : [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let views = Promise.resolve(0);
  if (serve) {
    views = countViews(await servedUrl(child));
  }
  await new Promise((resolve) => child.on('close', resolve));
  const record = JSON.parse(stdout) as { evaluations: number; seconds: number };
  return { rate: record.evaluations / record.seconds, views: await views };
}

export async function liveViewCost(seeds: number): Promise<{ ratios: number[]; median: number; views: number[] }> {
  const { ratios, median, on } = await pairedCost(seeds, rate);
  return { ratios, median, views: on.map((run) => run.views) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seeds = Number(process.argv[2] ?? 5);
  const { ratios, median, views } = await liveViewCost(seeds);
  console.log('| row | seeds | evaluations/s served / plain, per seed | median | views a page got |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| live view, solve -n 1000 --islands 2 | 1..${seeds} | ${ratios.map((r) => r.toFixed(3)).join(', ')} | ${median.toFixed(3)} | ${views.join(', ')} |`,
  );
}
