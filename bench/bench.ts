/**
 * `npm run bench`: the benchmark tables, printed as Markdown with the machine and the
 * command, so that one run can be compared with another. Not part of the tests.
 *
 * Machines are noisy, so every speed is also given as a ratio to a baseline measured in
 * the same run: the C implementation of the same reading (bench/baseline.c, same seeds,
 * same random draws, so the same iterations) for the single island, one island for the
 * island model, and paper mode for hybrid mode. Medians over several seeds throughout.
 *
 *   npm run bench                         every section
 *   npm run bench -- --only paper,islands sections by name: start, paper, islands, threads (many islands on
 *                                         few threads), cli, lagged, migration (lagged's table and the
 *                                         emigrants table), large, large-n, hybrid, live, trace, cluster,
 *                                         host-cost (the cluster's per-mode host island cost alone; also in cluster)
 *   npm run bench -- --json out.json      also write the raw numbers
 *   npm run bench -- --only start --write docs/benchmarks.md
 *                                         also put the "done when" figures measured into the page's table
 *                                         (between <!-- bench:begin --> and <!-- bench:end -->; other rows stay)
 *   npm run bench -- --only cluster --baseline-dist ../old/dist --rounds 3
 *                                         the cluster cases of another build beside this one's, alternating,
 *                                         each seed 3 times; figures with their ratio this / baseline
 */
import { liveViewCost } from './live-view.ts';
import { lineageCost } from './lineage.ts';
import { traceCost, writeShare } from './trace.ts';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileBaseline, runBaseline } from './c-baseline.ts';
import {
  migrantRoundTrip,
  natsServerPath,
  solveBothWays,
  studyThroughput,
  THIS_BUILD,
  type BothWays,
  type Build,
  type SolveTiming,
} from './cluster.ts';
import { checkBenchDoc, writeBenchDoc, type Measured } from './bench-doc.ts';
import { benchCourseLog } from './course-log.ts';
import { benchHybrid } from './hybrid.ts';
import { MILESTONES, startupPairs, type StartupPairs } from './startup-split.ts';
import { Rng } from '../src/ga/rng.ts';
import { quantile } from '../src/report/statistics/stats.ts';
import { compileMinConflicts, minConflicts, solveDefaultHybrid, solveLarge, type LargeRun } from './large-n.ts';
import { islandScaling, laggedVersusAsync, searchThroughput, stopLatency } from './islands.ts';
import { benchPaperRate, benchPaperSolve } from './paper.ts';

const SECTIONS = [
  'start',
  'paper',
  'islands',
  'threads',
  'cli',
  'lagged',
  'migration',
  'large',
  'large-n',
  'hundred-million',
  'hybrid',
  'live',
  'trace',
  'cluster',
  'host-cost',
] as const;
type Section = (typeof SECTIONS)[number];

/** The command users run: the bundle the `nqueens-islands` bin points at. */
const CLI = fileURLToPath(new URL('../bundle/nqueens-islands.cjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STUDY = fileURLToPath(new URL('../../bench/study-n8.yaml', import.meta.url));

/** Issue 9's "done when" figures, collected by the sections that measure them and printed at the end. */
const doneWhen: (string | number)[][] = [];
/** The section that measured each row of doneWhen (`--write` names the command that measures it again). */
const sectionOf: string[] = [];

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * A 95% percentile bootstrap interval of median(x) / median(y), x and y resampled apart (2000
 * times, xoshiro128** from seed 1: the same samples give the same interval). Stop latencies
 * spread widely (0.1 to 10 ms in one build), so the median of 30 runs moves by a third between
 * two runs of one build: a ratio is shown with the interval it could be anywhere in.
 */
function medianRatioInterval(x: number[], y: number[]): { lower: number; upper: number } {
  const rng = Rng.forStream(1, 0);
  const draw = (values: number[]) => median(Array.from(values, () => values[rng.int(values.length)]));
  const ratios = Array.from({ length: 2000 }, () => draw(x) / draw(y));
  return { lower: quantile(ratios, 0.025), upper: quantile(ratios, 0.975) };
}

const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
const millions = (x: number) => `${fmt(x / 1e6)} M/s`;

function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

interface CliRun {
  seconds: number;
  solved: boolean;
  iterations: number;
  evaluations: number;
  foundBy: number | null;
  stopLatencyMs: number | null;
}

/** One `solve` as a user runs it: a new process, startup and worker spawn included. */
function solveWithCli(args: string[]): CliRun {
  const t0 = performance.now();
  // --json carries the whole solution: a million rows need more than the default 1 MB buffer.
  const r = spawnSync(process.execPath, [CLI, 'solve', '--json', '--quiet', ...args], { encoding: 'utf8', cwd: ROOT, maxBuffer: 1 << 28 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0 && r.status !== 1) throw new Error(`solve ${args.join(' ')} failed: ${r.stderr.trim()}`);
  const out = JSON.parse(r.stdout) as Omit<CliRun, 'seconds'>;
  return {
    seconds,
    solved: out.solved,
    iterations: out.iterations,
    evaluations: out.evaluations,
    foundBy: out.foundBy,
    stopLatencyMs: out.stopLatencyMs,
  };
}

const results: Record<string, unknown> = {};

async function paperSection(baseline: string): Promise<void> {
  print('## Paper mode, one island, single thread');
  print();
  const n = 200;
  const iterations = 300;
  const rate = await benchPaperRate({ n, iterations, repetitions: 3 });
  const cRates = [1, 2, 3].map((seed) => {
    const run = runBaseline(baseline, n, seed, iterations);
    return run.evaluations / run.seconds;
  });
  const cRate = median(cRates);
  print(
    table(
      ['N', 'TypeScript evaluations/s', 'C baseline evaluations/s', 'TS / C', 'TS / issue target (1.85 M/s C × 0.6)'],
      [
        [
          n,
          millions(rate.medianEvalsPerSecond),
          millions(cRate),
          fmt(rate.medianEvalsPerSecond / cRate),
          fmt(rate.medianEvalsPerSecond / (0.6 * 1.85e6)),
        ],
      ],
    ),
  );
  print(
    `\nMedian of 3 fresh islands (seeds 1-3), ${iterations} iterations each after a warm-up; the C baseline runs the same iterations.\n`,
  );

  const seeds = [1, 2, 3, 4, 5];
  const rows = await benchPaperSolve({ sizes: [50, 100, 200], seeds });
  const out: (string | number)[][] = [];
  for (const row of rows) {
    const c = seeds.map((seed) => runBaseline(baseline, row.n, seed));
    const cSeconds = median(c.map((r) => r.seconds));
    const sameIterations = median(c.map((r) => r.iterations)) === row.medianIterations;
    out.push([
      row.n,
      fmt(row.medianSeconds, 3),
      fmt(cSeconds, 3),
      fmt(row.medianSeconds / cSeconds),
      row.medianIterations,
      sameIterations ? 'yes' : 'NO',
      row.allValid ? 'yes' : 'NO',
    ]);
  }
  print(table(['N', 'TS median s', 'C median s', 'TS / C time', 'median iterations', 'same as C', 'all valid'], out));
  print(`\nTime to solution, seeds ${seeds.join(', ')}, initial population included, no process start-up.\n`);
  results.paper = { rate, cRates, solve: rows };
}

async function islandsSection(): Promise<void> {
  print('## Island model');
  print();
  // One and two islands alternate three times; the speed-up is the median of the three ratios.
  const scalings = [];
  // N = 1000: no run solves within its 3 s, so each rate is a steady 3 s of search (at
  // N = 200 a run solves in about 0.5 s and the rate would be mostly warm-up).
  for (let r = 0; r < 3; r++) scalings.push(await islandScaling({ n: 1000, seconds: 3, seed: r + 1 }));
  const scaling = scalings.sort((a, b) => a.speedup - b.speedup)[1];
  const latency = await stopLatency({ runs: 9 });
  print(
    table(
      ['measure', 'value', 'target'],
      [
        ['evaluations/s, 1 island (N = 1000)', millions(scaling.one.evaluationsPerSecond), ''],
        ['evaluations/s, 2 islands (N = 1000)', millions(scaling.two.evaluationsPerSecond), ''],
        [
          'speed-up, 2 islands / 1 (median of 3 pairs)',
          `${fmt(scaling.speedup)} (all: ${scalings.map((x) => fmt(x.speedup)).join(', ')})`,
          '≥ 1.95',
        ],
        [
          "two lone islands at once / 1 (the machine's ceiling, same pairs)",
          `${fmt(median(scalings.map((x) => x.apart)))} (all: ${scalings.map((x) => fmt(x.apart)).join(', ')})`,
          '',
        ],
        [`stop latency p50 (${latency.samples.length} solved runs, N = 48)`, `${fmt(latency.p50, 3)} ms`, '≤ 1 ms'],
        ['stop latency max', `${fmt(latency.max, 3)} ms`, ''],
      ],
    ),
  );
  const solvedEarly = scalings.some((x) => x.one.solved || x.two.solved);
  print(
    `\nThroughput: 3 s runs (async ring, interval 10, 5 migrants), each island's own loop time, worker start-up excluded; ${solvedEarly ? 'SOME RUNS SOLVED EARLY: rates include warm-up' : 'no run solved early'}. ` +
      'The ceiling runs two one-island runs in this process at once: what two cores give with nothing shared, which the speed-up cannot pass.\n',
  );
  doneWhen.push([
    '2 islands / 1 island evaluations/s, N = 1000 (median of 3 pairs)',
    `${fmt(scaling.speedup)} (${scalings.map((x) => fmt(x.speedup)).join(', ')})`,
    '≥ 1.95',
    scaling.speedup >= 1.95 ? 'yes' : 'no',
  ]);
  doneWhen.push([
    "2 islands / two lone islands at once, N = 1000 (the speed-up against this machine's ceiling; median of 3)",
    fmt(median(scalings.map((x) => x.speedup / x.apart))),
    '≥ 0.975 (1.95 / 2)',
    median(scalings.map((x) => x.speedup / x.apart)) >= 0.975 ? 'yes' : 'no',
  ]);
  results.islands = { scalings, latency };
}

type SearchRate = Awaited<ReturnType<typeof searchThroughput>>;

/**
 * Many islands on few threads (issue 33): evaluations/s of search of 64 islands on 2 threads
 * against 2 islands on 2 threads, N = 1000, 3 s of search each, alternating over 3 seeds.
 * The population builds are start-up (64 of them take about 2 s here), given apart.
 */
async function threadsSection(): Promise<void> {
  print('## Many islands on few threads');
  print();
  const pairs: { seed: number; two: SearchRate; many: SearchRate; ratio: number }[] = [];
  for (let seed = 1; seed <= 3; seed++) {
    const two = await searchThroughput({ islands: 2, threads: 2, n: 1000, seconds: 3, startupSeconds: 1, seed });
    const many = await searchThroughput({ islands: 64, threads: 2, n: 1000, seconds: 3, startupSeconds: 4, seed });
    pairs.push({ seed, two, many, ratio: many.evaluationsPerSecond / two.evaluationsPerSecond });
  }
  const ratio = median(pairs.map((p) => p.ratio));
  const of = (k: 'two' | 'many', f: (r: SearchRate) => number) => median(pairs.map((p) => f(p[k])));
  print(
    table(
      ['measure', 'value', 'target'],
      [
        [
          'evaluations/s of search, 2 islands on 2 threads (N = 1000, median of 3 seeds)',
          millions(of('two', (r) => r.evaluationsPerSecond)),
          '',
        ],
        ['evaluations/s of search, 64 islands on 2 threads', millions(of('many', (r) => r.evaluationsPerSecond)), ''],
        ['64 islands / 2 islands (median of 3 pairs)', `${fmt(ratio)} (all: ${pairs.map((p) => fmt(p.ratio)).join(', ')})`, '≥ 0.9'],
        [
          'start-up s (population builds), 2 islands / 64 islands',
          `${fmt(of('two', (r) => r.startupSeconds))} / ${fmt(of('many', (r) => r.startupSeconds))}`,
          '',
        ],
      ],
    ),
  );
  const solvedEarly = pairs.some((p) => p.two.solved || p.many.solved);
  print(
    `\nThroughput: about 3 s of search each (async ring, interval 10, 5 migrants, paper population 1000), evaluations after the start gate over the search's seconds; ${solvedEarly ? 'SOME RUNS SOLVED EARLY' : 'no run solved early'}.\n`,
  );
  doneWhen.push([
    '64 islands / 2 islands on 2 threads, evaluations/s of search (issue 33)',
    fmt(ratio),
    '≥ 0.9',
    ratio >= 0.9 ? 'yes' : 'no',
  ]);
  results.threads = pairs;
}

function cliTable(title: string, runs: { label: string; n: number; args: string[]; seeds: number[] }[], note: string): unknown[] {
  print(title);
  print();
  const rows: (string | number)[][] = [];
  const raw: unknown[] = [];
  for (const r of runs) {
    const all = r.seeds.map((seed) => solveWithCli(['-n', String(r.n), '--seed', String(seed), ...r.args]));
    const solved = all.filter((x) => x.solved);
    rows.push([
      r.label,
      r.n,
      `${solved.length}/${all.length}`,
      fmt(median(all.map((x) => x.seconds)), 3),
      fmt(Math.min(...all.map((x) => x.seconds)), 3),
      fmt(Math.max(...all.map((x) => x.seconds)), 3),
      median(all.map((x) => x.iterations)),
      fmt(median(all.map((x) => x.evaluations / 1e6)), 2),
    ]);
    raw.push({ ...r, runs: all });
  }
  print(table(['mode', 'N', 'solved', 'median s', 'min s', 'max s', 'median iterations', 'median M evaluations'], rows));
  print(`\n${note}\n`);
  return raw;
}

/** Wall seconds of one process (spawn to exit). */
function wall(command: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr.trim()}`);
  return seconds;
}

/** `pairs` rounds of (node -e 0, the command) alternating; the median of the per-round ratios. */
function againstBareNode(args: string[], pairs: number): { node: number[]; command: number[]; ratio: number } {
  const node: number[] = [];
  const command: number[] = [];
  for (let i = 0; i < pairs; i++) {
    node.push(wall(process.execPath, ['-e', '0']));
    command.push(wall(process.execPath, [CLI, ...args]));
  }
  return { node, command, ratio: median(command.map((c, i) => c / node[i])) };
}

const HUNDRED_MILLION = 'solve -n 100000000 --mode hybrid --out x.bin';

/** Issue 50's large run: 10^8 queens with the defaults, its time, peak memory and bytes a queen. */
function hundredMillionSection(): void {
  print('## 10^8 queens, hybrid mode with the defaults');
  print();
  const free = os.freemem();
  if (free < 4e9) {
    print(`Skipped: ${fmt(free / 1e9, 1)} GB free, the run needs about 2.\n`);
    return;
  }
  const r = solveDefaultHybrid(CLI, ROOT, 100_000_000, 1);
  const peak = r.peakBytes === null ? NaN : r.peakBytes / 1e9;
  const outside = (r.wallSeconds - r.searchSeconds) / r.wallSeconds;
  print(
    table(
      ['solved', 'wall s', 'CPU s', 'search s', 'start-up s', 'peak GB', 'bytes a queen', 'outside the search'],
      [
        [
          r.solved ? 'yes' : 'no',
          fmt(r.wallSeconds, 1),
          fmt(r.cpuSeconds ?? NaN, 1),
          fmt(r.searchSeconds, 1),
          fmt(r.startupSeconds ?? NaN, 1),
          fmt(peak),
          fmt(r.bytesPerQueen ?? NaN, 1),
          `${fmt(outside * 100, 0)}%`,
        ],
      ],
    ),
  );
  print(`\n\`nqueens-islands ${HUNDRED_MILLION} --seed 1\`, one process under /usr/bin/time; ${r.fitted ?? 'no fit line'}.\n`);
  const command = `\`${HUNDRED_MILLION}\``;
  doneWhen.push(
    ['10^8 queens: wall s', fmt(r.wallSeconds, 1), '≤ 60', r.wallSeconds <= 60 ? 'yes' : 'no', command],
    ['10^8 queens: peak memory', `${fmt(peak)} GB`, '≤ 4 GB', peak <= 4 ? 'yes' : 'no', command],
    ['10^8 queens: bytes a queen', fmt(r.bytesPerQueen ?? NaN, 1), '≤ 40', (r.bytesPerQueen ?? Infinity) <= 40 ? 'yes' : 'no', command],
    ['10^8 queens: wall outside the search', `${fmt(outside * 100, 0)}%`, '≤ 25%', outside <= 0.25 ? 'yes' : 'no', command],
  );
  results.hundredMillion = r;
}

/** Start-up: short commands against bare `node -e 0`, and a study of 50 one-millisecond runs. */
function startSection(): void {
  print('## Start-up: short commands against `node -e 0`');
  print();
  const pairs = 15;
  const split = startupPairs(CLI, ['solve', '-n', '8', '--quiet'], ROOT, pairs);
  const solve8 = {
    node: split.node.map((r) => r.wall),
    command: split.command.map((r) => r.wall),
    ratio: median(split.command.map((c, i) => c.wall / split.node[i].wall)),
  };
  const cpuRatio = median(split.command.map((c, i) => c.cpu / split.node[i].cpu));
  const verify = againstBareNode(['verify', '8', '6', '4', '1', '3', '5', '7', '2'], pairs);
  // The same run on one thread per island (the default before a small run's one thread, docs/defaults.md).
  const twoThreads = againstBareNode(['solve', '-n', '8', '--quiet', '--threads', '2'], pairs);
  const out = mkdtempSync(path.join(os.tmpdir(), 'nq-bench-study-'));
  const study = (() => {
    try {
      const node = wall(process.execPath, ['-e', '0']);
      const seconds = wall(process.execPath, [CLI, 'experiment', STUDY, '--out', path.join(out, 'study')]);
      const runs = readFileSync(path.join(out, 'study', 'runs.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { seconds: number; startupSeconds: number });
      return {
        node,
        seconds,
        runs: runs.length,
        medianSeconds: median(runs.map((r) => r.seconds)),
        medianStartup: median(runs.map((r) => r.startupSeconds)),
      };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  })();
  print(
    table(
      ['command', 'median s', 'node -e 0 median s', 'ratio (median of pairs)', 'target'],
      [
        ['`solve -n 8 --quiet`', fmt(median(solve8.command), 3), fmt(median(solve8.node), 3), fmt(solve8.ratio), '≤ 2.0'],
        [
          '`solve -n 8 --quiet`, CPU (user + system)',
          fmt(median(split.command.map((r) => r.cpu)), 3),
          fmt(median(split.node.map((r) => r.cpu)), 3),
          fmt(cpuRatio),
          '',
        ],
        [
          '`solve -n 8 --quiet --threads 2` (one thread per island)',
          fmt(median(twoThreads.command), 3),
          fmt(median(twoThreads.node), 3),
          fmt(twoThreads.ratio),
          '',
        ],
        ['`verify 8 6 4 1 3 5 7 2`', fmt(median(verify.command), 3), fmt(median(verify.node), 3), fmt(verify.ratio), '≤ 1.5'],
        [
          `\`experiment bench/study-n8.yaml\` (${study.runs} runs)`,
          fmt(study.seconds, 3),
          fmt(study.node, 3),
          fmt(study.seconds / study.node),
          '≤ 8',
        ],
      ],
    ),
  );
  printSplit(split);
  print(
    `\n${pairs} alternating pairs (node -e 0, then the command), each a new process; CPU from /proc (10 ms ticks). The study: N = 8, 2 islands, ring vs none, 25 seeds, ` +
      `on one warm worker pool; its runs' median recorded seconds (search) ${fmt(study.medianSeconds, 4)} s (target ≤ 0.01), median start-up ${fmt(study.medianStartup, 4)} s.\n`,
  );
  doneWhen.push(
    [
      '`solve -n 8` / `node -e 0`',
      `${fmt(solve8.ratio)} (${pairs} alternating pairs; CPU ${fmt(cpuRatio, 1)} ×; \`--threads 2\` ${fmt(twoThreads.ratio)})`,
      '≤ 2.0',
      solve8.ratio <= 2.0 ? 'yes' : 'no',
      '`solve -n 8 --quiet`',
    ],
    ['`solve -n 8` start-up split, median ms since the process started', splitLine(split)],
    ['`verify 8 6 4 1 3 5 7 2` / `node -e 0`', fmt(verify.ratio), '≤ 1.5', verify.ratio <= 1.5 ? 'yes' : 'no'],
    [
      '50-run study wall / `node -e 0`',
      fmt(study.seconds / study.node, 1),
      '≤ 8',
      study.seconds / study.node <= 8 ? 'yes' : 'no',
      '`experiment bench/study-n8.yaml`',
    ],
    ['50-run study: median recorded seconds', `${fmt(study.medianSeconds, 4)} s`, '≤ 0.01 s', study.medianSeconds <= 0.01 ? 'yes' : 'no'],
  );
  results.start = { solve8, twoThreads, verify, study };
}

/** The split in one line for docs/benchmarks.md: `Node ready 38.9, CLI loaded 54.1, ... (bare \`node -e 0\`: 46.2 whole)`. */
function splitLine(split: StartupPairs): string {
  const at = (name: string) => fmt(median(split.marks.map((m) => m[name]).filter((x) => Number.isFinite(x))), 1);
  const nodeMs = fmt(median(split.node.map((r) => r.wall)) * 1000, 1);
  return `Node ready ${at('node')}, CLI loaded ${at('cli')}, run launched ${at('launched')}, workers online ${at('workers')}, search started ${at('search')}, result ${at('result')} (bare \`node -e 0\`: ${nodeMs} whole)`;
}

/** Where `solve -n 8`'s start goes: each milestone's median ms since its process started, beside bare node's whole run. */
function printSplit(split: StartupPairs): void {
  const nodeMs = median(split.node.map((r) => r.wall)) * 1000;
  const at = (name: string) => median(split.marks.map((m) => m[name]).filter((x) => Number.isFinite(x)));
  const rows: (string | number)[][] = [['`node -e 0`, whole process (wall)', fmt(nodeMs, 1), '']];
  let before = 0;
  for (const [name, label] of MILESTONES) {
    rows.push([label, fmt(at(name), 1), name === 'node' ? '' : fmt(at(name) - before, 1)]);
    before = at(name);
  }
  print();
  print(table(['`solve -n 8 --quiet`: start-up split', 'median ms since the process started', 'ms after the milestone before'], rows));
  print(
    "\nMilestones from the command's own clock (NQI_STARTUP_SPLIT=1, src/cli/startup-split.ts); the whole process's wall time adds the process's creation and reaping.",
  );
}

/** Median whole-command wall seconds of the C baseline over `seeds` (process start included). */
function cMedian(baseline: string, n: number, seeds: number[]): number {
  return median(seeds.map((seed) => runBaseline(baseline, n, seed).wallSeconds));
}

function cliSection(baseline: string): void {
  const cores = os.availableParallelism();
  const seeds = [1, 2, 3, 4, 5];
  const cSeconds = cMedian(baseline, 200, seeds);
  results.cli = cliTable(
    `## Whole runs from the command line (islands = cores = ${cores})`,
    [
      { label: 'paper, default (sync ring)', n: 200, args: [], seeds },
      { label: 'paper, none (independent restarts)', n: 200, args: ['--topology', 'none'], seeds },
    ],
    `Wall time of \`nqueens-islands solve -n N --seed S --json --quiet\`, a new process each time (start-up, workers, validation included), seeds ${seeds.join(', ')}. ` +
      `Same-run baseline: the single-threaded C baseline takes a median ${fmt(cSeconds, 3)} s (whole process) at N = 200 on these seeds (the issue quotes 0.43 s for its C).`,
  );
  const ours = median((results.cli as { runs: CliRun[] }[])[0].runs.map((r) => r.seconds));
  print(`N = 200, default (sync ring): median ${fmt(ours, 3)} s against C's ${fmt(cSeconds, 3)} s: **${fmt(ours / cSeconds)} × C**.\n`);
  doneWhen.push([
    `N = 200, paper, islands = cores (${cores}): median whole command / C's`,
    `${fmt(ours / cSeconds)} (${fmt(ours, 3)} s / ${fmt(cSeconds, 3)} s)`,
    '≤ 1',
    ours <= cSeconds ? 'yes' : 'no',
  ]);
}

/** Pools samples of two modes measured seed by seed, alternating. */
async function alternatingStopLatency(lag: number, seeds: number[]): Promise<{ lagged: number[]; async: number[]; unsolved: number }> {
  const lagged: number[] = [];
  const async: number[] = [];
  let unsolved = 0;
  for (const seed of seeds) {
    for (const mode of seed % 2 ? (['lagged', 'async'] as const) : (['async', 'lagged'] as const)) {
      const r = await stopLatency({ seeds: [seed], mode, lag: mode === 'lagged' ? lag : 0, defaultMigration: true });
      (mode === 'lagged' ? lagged : async).push(...r.samples);
      unsolved += r.unsolved;
    }
  }
  return { lagged, async, unsolved };
}

/**
 * The lagged mode's cost against async on 2 islands with solve's default migration (the best
 * 2% every iteration): evaluations/s at N = 1000 with islands of equal work (runs of a fixed
 * number of iterations), the same with one island slowed (runs of a fixed time: what the
 * other island does meanwhile), and the stop latency (the finder waits until every island has
 * reached its iteration). Modes alternate run by run, so the load falls on both alike.
 */
async function laggedTable(): Promise<void> {
  const lag = 2;
  const pairs = 9;
  const even = await laggedVersusAsync({ n: 1000, lag, iterations: 300, pairs });
  const slowed = await laggedVersusAsync({ n: 1000, lag, seconds: 3, pairs: 5, slowIslandMs: 3 });
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9];
  const stops = await alternatingStopLatency(lag, seeds);
  const p50 = (xs: number[]) => (xs.length ? median(xs) : NaN);
  const max = (xs: number[]) => (xs.length ? Math.max(...xs) : NaN);
  print('## Lagged migration: throughput and stop latency (2 islands, the best 2% every iteration)');
  print();
  print(
    table(
      ['measure', 'value', 'target'],
      [
        [
          `lagged (lag ${lag}) / async evaluations/s, N = 1000, equal islands (median of ${pairs} pairs)`,
          `**${fmt(even.ratio)}** (pairs: ${even.ratios.map((r) => fmt(r)).join(', ')}; async ${millions(median(even.async))}, lagged ${millions(median(even.lagged))})`,
          '≥ 0.95',
        ],
        [
          `the same, island 1 sleeping 3 ms per iteration (median of ${slowed.ratios.length} pairs)`,
          `${fmt(slowed.ratio)} (pairs: ${slowed.ratios.map((r) => fmt(r)).join(', ')}; async ${millions(median(slowed.async))}, lagged ${millions(median(slowed.lagged))})`,
          '',
        ],
        [
          `lagged stop latency p50 / max (${stops.lagged.length} solved runs, N = 48, population 300)`,
          `**${fmt(p50(stops.lagged), 3)}** / ${fmt(max(stops.lagged), 3)} ms`,
          '',
        ],
        [`async stop latency p50 / max, same seeds`, `${fmt(p50(stops.async), 3)} / ${fmt(max(stops.async), 3)} ms`, ''],
      ],
    ),
  );
  print(
    `\nEqual islands: evaluations over the slower island's loop time in runs of 300 iterations (seeds 1-${pairs}; none solves at N = 1000), worker start-up excluded. ` +
      `Slowed: runs of 3 s (seeds 1-${slowed.ratios.length}); async's other island runs on at full speed, lagged's waits for the slow one's migrants. ` +
      `Stop latency: winner's claim to the last island stopped, seeds ${seeds[0]}-${seeds.at(-1)}${stops.unsolved ? ` (${stops.unsolved} runs unsolved)` : ''}; lagged's includes the wait for every island to reach the finder's iteration. docs/defaults.md.\n`,
  );
  doneWhen.push([
    `lagged (lag ${lag}) / async evaluations/s, N = 1000, 2 equal islands`,
    fmt(even.ratio),
    '≥ 0.95',
    even.ratio >= 0.95 ? 'yes' : 'no',
  ]);
  doneWhen.push([`lagged / async evaluations/s, one island slowed by 3 ms per iteration`, fmt(slowed.ratio), '', '']);
  doneWhen.push(['lagged stop latency p50 (N = 48)', `${fmt(p50(stops.lagged), 3)} ms`, '', '']);
  results.lagged = { even, slowed, stops };
}

/** The live view's cost to a run with a page's stream open (issue 35): served / plain evaluations per second, N = 1000, 2 islands. */
async function liveSection(): Promise<void> {
  const cost = await liveViewCost(7);
  print('## Live view (issue 35)');
  print();
  print(
    `\`solve -n 1000 --islands 2 --max-iterations 200\` with \`--serve 0\` and a page's stream open, against the same seeded run without: evaluations/s ratio per seed ${cost.ratios.map((r) => fmt(r, 3)).join(', ')}; median ${fmt(cost.median, 3)} (bench/live-view.ts).\n`,
  );
  doneWhen.push(['live view: evaluations/s served / plain, N = 1000', fmt(cost.median, 3), '≥ 0.98', cost.median >= 0.98 ? 'yes' : 'no']);
  results.liveView = cost;
  // Lineage's cost, in one process (bench/lineage.ts): whole runs vary by more than the 1% goal.
  const rounds = 41;
  const lineage = lineageCost(rounds);
  for (const row of lineage) {
    print(
      `Lineage, ${row.name}: evaluations/s with / without, fastest of ${rounds} alternating blocks each (CPU time) ${fmt(row.ratio, 3)}; per round median ${fmt(row.median, 3)} (${fmt(Math.min(...row.ratios), 3)} - ${fmt(Math.max(...row.ratios), 3)}).\n`,
    );
    doneWhen.push([
      `lineage cost, ${row.name}: evaluations/s with / without`,
      fmt(row.ratio, 3),
      '≥ 0.99',
      row.ratio >= 0.99 ? 'yes' : 'no',
    ]);
  }
  results.lineage = lineage;
}

/** A whole run writing its --trace as it goes against the same run without, N = 1000; then the course logs' row unless the paper section gave it. */
async function traceSection(courseLog: boolean): Promise<void> {
  const cost = await traceCost(7);
  print('## Trace (issue 34)');
  print();
  print(
    `\`solve -n 1000 --islands 2 --max-iterations 200\` with \`--trace FILE\` (every event a line, flushed as it goes; ${cost.on.map((r) => r.lines).join(', ')} lines), against the same seeded run without, alternating: evaluations/s ratio per seed ${cost.ratios.map((r) => fmt(r, 3)).join(', ')}; median ${fmt(cost.median, 3)} (bench/trace.ts). The course logs are always on: their row is the course-log one.\n`,
  );
  const share = writeShare(cost.on);
  print(
    `Writing those lines again through the trace writer in this process takes ${fmt(share * 100, 3)}% of the run's search time (median over the seeds, one thread): what writing the trace would cost a run if every ms of it held every island back (the file's opening and final sync are outside the search); the whole-run ratio above also carries the machine's run-to-run noise.\n`,
  );
  doneWhen.push(['--trace: evaluations/s traced / plain, N = 1000', fmt(cost.median, 3), '≥ 0.99', cost.median >= 0.99 ? 'yes' : 'no']);
  doneWhen.push(['--trace: writing time / search time, N = 1000', `${fmt(share * 100, 3)}%`, '≤ 1%', share <= 0.01 ? 'yes' : 'no']);
  results.trace = cost;
  if (courseLog) courseLogRow();
}

/** The islands' course logs (exact trajectories) against a paper island's iteration, N = 1000. */
function courseLogRow(): void {
  const cost = benchCourseLog();
  print('## Course logs (exact trajectories, issue 34)');
  print();
  print(
    `A paper island's course log costs ${fmt(cost.median * 100, 3)}% of its iteration at N = 1000 (median of seeds 1-${cost.ratios.length}, ${cost.iterations} iterations each; bench/course-log.ts).\n`,
  );
  doneWhen.push(['course log / paper iteration, N = 1000', `${fmt(cost.median * 100, 3)}%`, '≤ 1%', cost.median <= 0.01 ? 'yes' : 'no']);
  results.courseLog = cost;
}

/** The default emigrants per migration (config/default.yaml) against one and a few, whole runs. */
function migrationSection(): void {
  const small = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const large = [1, 2, 3, 4, 5];
  results.migration = cliTable(
    '## Emigrants per migration (default config otherwise: sync ring, every iteration)',
    [
      { label: '1 emigrant', n: 200, args: ['--migrants', '1'], seeds: small },
      { label: '8 emigrants', n: 200, args: ['--migrants', '8'], seeds: small },
      { label: 'default: 2% of the population (20)', n: 200, args: [], seeds: small },
      { label: '1 emigrant', n: 1000, args: ['--migrants', '1'], seeds: large },
      { label: '8 emigrants', n: 1000, args: ['--migrants', '8'], seeds: large },
      { label: 'default: 2% of the population (20)', n: 1000, args: [], seeds: large },
    ],
    `Whole runs from the command line, islands = cores, seeds ${small[0]}-${small.at(-1)} (N = 200) and ${large[0]}-${large.at(-1)} (N = 1000). Why the default is 2%: docs/performance.md, "Default migration".`,
  );
}

function largeSection(baseline: string): void {
  const seeds = [1, 2, 3, 4, 5];
  const raw = cliTable(
    '## Large N',
    [
      { label: 'paper', n: 500, args: [], seeds },
      { label: 'paper', n: 1000, args: [], seeds },
      { label: 'paper', n: 2000, args: [], seeds: [1, 2, 3] },
      { label: 'hybrid (config/large-n.yaml)', n: 10_000, args: ['--config', 'config/large-n.yaml'], seeds: [1, 2, 3] },
      { label: 'hybrid (config/large-n.yaml)', n: 100_000, args: ['--config', 'config/large-n.yaml'], seeds: [1, 2, 3] },
      { label: 'hybrid (config/large-n.yaml)', n: 1_000_000, args: ['--config', 'config/large-n.yaml'], seeds: [1, 2, 3] },
    ],
    'Whole runs from the command line, islands = cores; paper mode with the default config (sync ring), hybrid with config/large-n.yaml. Targets (2 cores): paper N = 1000 ≤ 10 s, N = 2000 ≤ 45 s; hybrid N = 10^5 ≤ 1 s, N = 10^6 ≤ 5 s.',
  ) as { label: string; n: number; seeds: number[]; runs: CliRun[] }[];
  // Paper mode against the single-threaded C of the same reading, on the same seeds.
  const rows: (string | number)[][] = [];
  for (const r of raw.filter((x) => x.label === 'paper' && x.n >= 1000)) {
    const ours = median(r.runs.map((x) => x.seconds));
    const c = cMedian(baseline, r.n, r.seeds);
    rows.push([r.n, r.seeds.join(', '), fmt(ours, 2), fmt(c, 2), fmt(ours / c)]);
    doneWhen.push([
      `N = ${r.n}, paper, ${os.availableParallelism()} islands: median whole command / C's`,
      `${fmt(ours / c)} (${fmt(ours, 1)} s / ${fmt(c, 1)} s)`,
      'aim ≤ 0.55',
      ours / c <= 0.55 ? 'yes' : 'no',
    ]);
  }
  print(table(['N', 'seeds', 'islands median s', 'C median s', 'islands / C'], rows));
  print(
    '\nC: `bench/baseline.c`, one thread, the same reading and seeds, timed as a whole process. Two cores bound pure parallelism at 0.5 ×; migration may beat it.\n',
  );
  results.large = raw;
}

/** Hybrid mode at N = 10^5 .. 10^7, whole commands, beside min-conflicts in C; growth ratios from one size to the next. */
function largeNSection(): void {
  print('## Large N: hybrid mode at 10^5, 10^6, 10^7 beside min-conflicts in C');
  print();
  const sizes = [100_000, 1_000_000, 10_000_000];
  const seeds = [1, 2, 3];
  const c = compileMinConflicts();
  if ('skip' in c) print(`C reference skipped: ${c.skip}.\n`);
  const gbOf = (runs: LargeRun[]) => (runs[0].peakBytes === null ? 'n/a' : `${fmt(median(runs.map((r) => r.peakBytes!)) / 1e9, 2)} GB`);
  const cpuOf = (runs: LargeRun[]) => (runs[0].cpuSeconds === null ? NaN : median(runs.map((r) => r.cpuSeconds!)));
  const rows: (string | number)[][] = [];
  const raw: Record<string, { ours: LargeRun[]; c: LargeRun[] }> = {};
  for (const n of sizes) {
    const ours: LargeRun[] = [];
    const cRuns: LargeRun[] = [];
    // Alternating, so that a change in the machine's load falls on both alike.
    for (const seed of seeds) {
      ours.push(solveLarge(CLI, ROOT, n, seed));
      if ('binary' in c) cRuns.push(minConflicts(c.binary, n, seed));
    }
    raw[n] = { ours, c: cRuns };
    rows.push([
      n,
      'hybrid, 2 islands',
      `${ours.filter((r) => r.solved).length}/${ours.length}`,
      fmt(median(ours.map((r) => r.wallSeconds))),
      fmt(cpuOf(ours)),
      fmt(median(ours.map((r) => r.searchSeconds))),
      fmt(median(ours.map((r) => r.startupSeconds ?? 0))),
      gbOf(ours),
    ]);
    if (cRuns.length > 0) {
      rows.push([
        n,
        'min-conflicts in C, 1 thread',
        `${cRuns.filter((r) => r.solved).length}/${cRuns.length}`,
        fmt(median(cRuns.map((r) => r.wallSeconds))),
        fmt(cpuOf(cRuns)),
        fmt(median(cRuns.map((r) => r.searchSeconds))),
        '',
        gbOf(cRuns),
      ]);
    }
  }
  print(
    table(['N', 'program', 'solved', 'median wall s', 'median CPU s', 'median search s', 'median start-up s', 'median peak memory'], rows),
  );
  const ratio = (pick: (x: { ours: LargeRun[]; c: LargeRun[] }) => LargeRun[], value: (r: LargeRun[]) => number) =>
    sizes
      .slice(1)
      .map((n, k) => fmt(value(pick(raw[n])) / value(pick(raw[sizes[k]])), 1))
      .join(', ');
  const wallOf = (runs: LargeRun[]) => median(runs.map((r) => r.wallSeconds));
  print();
  print(
    table(
      ['growth, 10^5 → 10^6, 10^6 → 10^7', 'wall', 'CPU'],
      [
        ['hybrid, whole command', ratio((x) => x.ours, wallOf), ratio((x) => x.ours, cpuOf)],
        ...('binary' in c ? [['min-conflicts in C', ratio((x) => x.c, wallOf), ratio((x) => x.c, cpuOf)]] : []),
      ],
    ),
  );
  print(
    `\nWhole commands (\`solve --config config/large-n.yaml -n N --seed S --json --quiet\`: start, worker threads, the population build, search, validation and output), seeds ${seeds.join(', ')}, ` +
      'alternating with the C program; CPU and peak memory from `/usr/bin/time` (all threads). Targets (2 cores): N = 10^7 ≤ 20 s and ≤ 2 GB, N = 10^6 ≤ 3 s, 10^6 → 10^7 time ratio ≤ 12.\n',
  );
  results.largeN = raw;
}

async function hybridSection(): Promise<void> {
  print('## Hybrid mode beside paper mode, same seeds (one island, single thread)');
  print();
  const seeds = [1, 2, 3];
  const hybrid = await benchHybrid({ sizes: [200, 500, 1000], seeds });
  const paper = await benchPaperSolve({ sizes: [200, 500, 1000], seeds });
  print(
    table(
      ['N', 'paper median s', 'hybrid median s', 'paper / hybrid', 'paper median evaluations', 'hybrid median evaluations'],
      hybrid.map((h, i) => [
        h.n,
        fmt(paper[i].medianSeconds, 3),
        fmt(h.medianMs / 1000, 3),
        fmt(paper[i].medianSeconds / (h.medianMs / 1000), 0),
        paper[i].medianEvaluations,
        h.medianEvaluations,
      ]),
    ),
  );
  const big = await benchHybrid({ sizes: [10_000, 100_000, 1_000_000], seeds });
  print();
  print(
    table(
      ['N', 'hybrid median ms', 'of which start (smart start)', 'median generations', 'all valid'],
      big.map((h) => [h.n, fmt(h.medianMs, 0), fmt(h.medianInitMs, 0), h.medianGenerations, h.allValid ? 'yes' : 'NO']),
    ),
  );
  print(`\nSeeds ${seeds.join(', ')}; no threads, no process start-up.\n`);
  results.hybrid = { hybrid, paper, big };
}

/**
 * Issue 50's cluster row: what a host's island costs against a local one for the same
 * iterations (N = 1000, 2% migrants every iteration, 600 iterations), per migration mode: CPU
 * per island (the host processes' whole CPU, islands, relays and GC, against the local
 * `solve` process's, start included, each over its islands) and evaluations per second of search.
 */
async function hostIslandCost(natsServer: string, rounds: number) {
  const seeds = [1, 2, 3];
  const modes = ['sync', 'lagged', 'async'];
  const rows = [];
  for (const mode of modes) {
    const [w] = await solveBothWays(
      natsServer,
      ['-n', '1000', '--islands', '2', '--max-iterations', '600', '--migration', mode],
      seeds,
      2,
      [THIS_BUILD],
      rounds,
    );
    const cpu = (runs: SolveTiming[], of: (r: SolveTiming) => number | null) => median(runs.map((r) => (of(r) ?? NaN) / 2000));
    const rate = (runs: SolveTiming[]) => median(runs.map((r) => r.evaluations / r.searchSeconds));
    rows.push({
      mode,
      local: cpu(w.local, (r) => r.cpuMs),
      host: cpu(w.spread, (r) => r.hostsCpuMs),
      rate: rate(w.spread) / rate(w.local),
    });
  }
  const command = '`solve -n 1000 --islands 2 --max-iterations 600 --migration M` (+ `--nats URL --hosts 2`)';
  print(
    table(
      [
        'migration',
        'local: CPU s per island',
        'host: CPU s per island',
        'host / local CPU',
        'goal',
        'evaluations/s, hosts / local',
        'goal',
      ],
      rows.map((r) => [r.mode, fmt(r.local), fmt(r.host), fmt(r.host / r.local), '≤ 1.1', fmt(r.rate), r.mode === 'sync' ? '' : '≥ 0.9']),
    ),
  );
  print(
    `\nSeeds ${seeds.join(', ')}, N = 1000, 2% migrants every iteration, 600 iterations, each seed in one process (2 islands) then on two host processes of 1 island each (signed bus, loopback broker). ` +
      "CPU from /proc: local, the whole solve process (start included) over 2; hosts, both host processes during the run over 2. Evaluations/s: the record's evaluations over its search seconds.\n",
  );
  for (const r of rows) {
    doneWhen.push([
      `host island CPU / local island CPU, ${r.mode}`,
      fmt(r.host / r.local),
      '≤ 1.1',
      r.host / r.local <= 1.1 ? 'yes' : 'no',
      command,
    ]);
    if (r.mode !== 'sync')
      doneWhen.push([`evaluations/s on hosts / local, ${r.mode}`, fmt(r.rate), '≥ 0.9', r.rate >= 0.9 ? 'yes' : 'no', command]);
  }
  return rows;
}

/** `--only host-cost`: the cluster's per-mode host island cost alone (part of the cluster section). */
async function hostCostSection(rounds: number): Promise<void> {
  print("## A host's island against a local island (NATS on loopback)");
  print();
  const server = natsServerPath();
  if ('skip' in server) print(`Skipped: ${server.skip}.\n`);
  else results.hostCost = await hostIslandCost(server.path, rounds);
}

/**
 * The cluster cases, for this build and, with `--baseline-dist DIR`, another build's dist/ in
 * the same run (issue 24's "within 10% of today's in the same bench run"): runs alternate
 * between the builds, and each figure is given with its ratio this / baseline.
 */
async function clusterSection(builds: Build[], rounds: number): Promise<void> {
  print('## Across machines (NATS on loopback)');
  print();
  const server = natsServerPath();
  if ('skip' in server) {
    print(`Skipped: ${server.skip}.\n`);
    return;
  }
  const trips = await migrantRoundTrip(server.path, 1000, 2, 2000);
  print(
    table(
      ['migrant round trip (N = 1000, 2 migrants)', 'bytes', 'p50 ms', 'p99 ms'],
      [
        ['MessagePort, thread ⇄ thread', trips.bytes, fmt(trips.messagePortP50Ms, 3), fmt(trips.messagePortP99Ms, 3)],
        ['NATS, client ⇄ broker ⇄ client', trips.bytes, fmt(trips.natsP50Ms, 3), fmt(trips.natsP99Ms, 3)],
      ],
    ),
  );
  print(`\nNATS / MessagePort p50: ${fmt(trips.natsP50Ms / trips.messagePortP50Ms, 1)}×; 2000 round trips each.\n`);
  const compared = builds.length > 1;
  const against = (value: (w: BothWays) => number, ways: BothWays[]) => (compared ? [fmt(value(ways[0]) / value(ways[1]))] : []);
  const againstHeader = compared ? [`this / ${builds[1].label}`] : [];
  const buildCell = (w: BothWays) => (compared ? [w.build.label] : []);
  const buildHeader = compared ? ['build'] : [];
  const roundsNote = rounds > 1 ? ` × ${rounds} rounds` : '';
  const buildsNote = compared
    ? ` Builds alternate run by run (${builds.map((b) => `${b.label}: ${b.dist}`).join('; ')}); the last column is this build's figure over the baseline's.`
    : '';

  // Async named explicitly: the stop across processes is the same path in every build (lagged, the default since 0.2.0, adds the wait for the finder's iteration).
  // 15 seeds: the spread of stop latencies across processes is wide (0 - 20 ms in one build), so a median of 7 moved by 2x between runs.
  // Three times the rounds of the other cases: a run takes half a second, and the median's interval narrows with the root of the runs (two 90-run medians of one build still differed by a sixth).
  const latencySeeds = Array.from({ length: 15 }, (_, i) => i + 1);
  const latencyRounds = 3 * rounds;
  // This build's hosts once more with their islands at the relay's priority: what `--island-nice` gains, apart from the rest of the build.
  const equalPriority: Build = { label: `${builds[0].label}, --island-nice 0`, dist: builds[0].dist, hostArgs: ['--island-nice', '0'] };
  const latency = await solveBothWays(
    server.path,
    ['-n', '64', '--islands', '2', '--migration', 'async'],
    latencySeeds,
    2,
    [...builds, equalPriority],
    latencyRounds,
  );
  const stops = (runs: { stopLatencyMs: number | null }[]) => runs.flatMap((r) => (r.stopLatencyMs === null ? [] : [r.stopLatencyMs]));
  const spreadP50 = (w: BothWays) => median(stops(w.spread));
  // Runs in which an island did no iteration stop at once (see SolveTiming.idleIsland): the stop's path is measured without them too.
  const busy = (w: BothWays) => w.spread.filter((r) => !r.idleIsland);
  const busyP50 = (w: BothWays) => median(stops(busy(w)));
  print(
    table(
      [
        ...buildHeader,
        'stop latency, winner found → last island stopped (N = 64, 2 islands, async)',
        'p50 ms',
        'max ms',
        'runs',
        ...againstHeader,
      ],
      latency.flatMap((w) => [
        [
          ...buildCell(w),
          'one process, 2 worker threads',
          fmt(median(stops(w.local)), 3),
          fmt(Math.max(...stops(w.local)), 3),
          w.local.length,
          ...(compared ? [''] : []),
        ],
        [
          ...buildCell(w),
          'two host processes × 1 island, over NATS',
          fmt(spreadP50(w), 3),
          fmt(Math.max(...stops(w.spread)), 3),
          w.spread.length,
          ...(compared ? [w === latency[1] ? '' : fmt(spreadP50(w) / spreadP50(latency[1]))] : []),
        ],
        [
          ...buildCell(w),
          'the same, runs where both islands iterated',
          fmt(busyP50(w), 3),
          fmt(Math.max(...stops(busy(w))), 3),
          `${busy(w).length} of ${w.spread.length}`,
          ...(compared ? [w === latency[1] ? '' : fmt(busyP50(w) / busyP50(latency[1]))] : []),
        ],
      ]),
    ),
  );
  print(
    `\nGoal across processes: p50 ≤ 5 ms on loopback. Seeds ${latencySeeds[0]}..${latencySeeds.at(-1)} × ${latencyRounds} rounds.${buildsNote} \`${equalPriority.label}\`: this build's hosts with their island threads at the priority of the thread that relays the stop (the default lowers them 10 nice steps).\n`,
  );

  const largeSeeds = [1, 2, 3];
  const settings = [
    { label: 'async, 20 emigrants every iteration (the default migrants)', args: ['--migration', 'async'] },
    { label: 'async, 1 emigrant every iteration (the default before)', args: ['--migration', 'async', '--migrants', '1'] },
  ];
  const wall = (runs: { seconds: number }[]) => median(runs.map((r) => r.seconds));
  const large: { label: string; ways: BothWays[] }[] = [];
  for (const setting of settings) {
    large.push({
      label: setting.label,
      ways: await solveBothWays(server.path, ['-n', '1000', '--islands', '2', ...setting.args], largeSeeds, 2, builds, rounds),
    });
  }
  /** One row per setting and build: `of` the runs in one process and on the hosts, their ratio, and with two builds that ratio's this / baseline. */
  const localSpreadTable = (headers: string[], of: (runs: SolveTiming[]) => number) => {
    const ratio = (w: BothWays) => of(w.spread) / of(w.local);
    print(
      table(
        [...buildHeader, ...headers, 'ratio', ...againstHeader],
        large.flatMap(({ label, ways }) =>
          ways.map((w) => [
            ...buildCell(w),
            label,
            fmt(of(w.local)),
            fmt(of(w.spread)),
            fmt(ratio(w)),
            ...(w === ways[0] ? against(ratio, ways) : compared ? [''] : []),
          ]),
        ),
      ),
    );
    return ratio;
  };
  const slowdown = localSpreadTable(
    ['N = 1000, paper mode, 2 islands, whole command', 'one process × 2 islands, median s', 'two host processes × 1 island, median s'],
    wall,
  );
  print(
    `\nGoal: ≤ 1.15× (set with 1 emigrant). Seeds ${largeSeeds[0]}..${largeSeeds.at(-1)}${roundsNote}, each in one process then on the hosts; hosts started before timing (their threads are warm). ` +
      "Both hosts, the broker and the coordinator share the machine's cores: the relays' and the broker's work per byte of migrants is taken from the islands (docs/distributed.md)." +
      `${buildsNote}\n`,
  );

  // The same runs in CPU per evaluation, all processes of a run together: what the cluster costs, much less moved by the machine's load than wall time.
  const cpuPerM = (runs: SolveTiming[]) => {
    const per = runs.flatMap((r) => (r.cpuMs === null ? [] : [r.cpuMs / 1000 / (r.evaluations / 1e6)]));
    return per.length ? median(per) : NaN;
  };
  const cpuRatio = localSpreadTable(
    [
      'N = 1000, CPU s per million evaluations (median of runs)',
      'one process × 2 islands',
      'two host processes × 1 island (coordinator + hosts + broker)',
    ],
    cpuPerM,
  );
  print(
    '\nCPU: user + system time of every process of a run while it ran (`/proc`: the solve process, waited for; spread also both hosts and nats-server), over its evaluations. ' +
      'On a machine whose cores the run has to itself, wall time follows it; on a loaded one it is the figure that still compares builds.\n',
  );

  // What the relays cost, in CPU (less dependent on the machine's load than wall time), and what was dropped.
  const relayPerThousand = (w: BothWays) => {
    const per = w.spread.flatMap((r) => (r.relayCpuMs === null ? [] : [(r.relayCpuMs / r.iterations) * 1000]));
    return per.length ? median(per) : NaN;
  };
  const droppedOf = (w: BothWays) => `${w.spread.reduce((sum, r) => sum + r.dropped, 0)} / ${w.hostsDropped}`;
  print(
    table(
      [
        ...buildHeader,
        'N = 1000, two host processes × 1 island',
        "relays' CPU per 1000 iterations, ms (both hosts' main threads, median of runs)",
        'bus messages dropped (coordinators / hosts)',
        ...againstHeader,
      ],
      [...large, { label: 'stop latency runs, N = 64', ways: latency.slice(0, builds.length) }].flatMap(({ label, ways }) =>
        ways.map((w) => [
          ...buildCell(w),
          label,
          label.startsWith('stop') ? '' : fmt(relayPerThousand(w), 0),
          droppedOf(w),
          ...(w === ways[0] && !label.startsWith('stop') ? against(relayPerThousand, ways) : compared ? [''] : []),
        ]),
      ),
    ),
  );
  print(
    "\nRelay CPU: user + system time of each host's main thread (`/proc/PID/task/PID/stat`, 10 ms ticks) over the run, both hosts together, per 1000 of the run's iterations: " +
      "the relay (signing, checking, forwarding migrants and state) and the NATS client; the islands' threads are not in it. Dropped: counted by the coordinators (each run's line) and by the hosts (when they leave); 0 is what a run with no bystander should show.\n",
  );

  const studyRounds = Math.max(3, rounds);
  const perSecond = builds.map(() => ({ one: [] as number[], two: [] as number[] }));
  let runs = 0;
  for (let r = 0; r < studyRounds; r++) {
    for (let k = 0; k < builds.length; k++) {
      const b = (r + k) % builds.length;
      const a = await studyThroughput(server.path, 1, 40, 6, builds[b]);
      const c = await studyThroughput(server.path, 2, 40, 6, builds[b]);
      perSecond[b].one.push(a.runs / a.seconds);
      perSecond[b].two.push(c.runs / c.seconds);
      runs = a.runs;
    }
  }
  const studyRatio = (b: number) => median(perSecond[b].two) / median(perSecond[b].one);
  print(
    table(
      [
        ...buildHeader,
        `study of ${runs} runs (N = 40, 1 island each)`,
        'one host, median runs/s',
        'two hosts, median runs/s',
        'ratio',
        ...againstHeader,
      ],
      builds.map((build, b) => [
        ...(compared ? [build.label] : []),
        'through `experiment --nats`',
        fmt(median(perSecond[b].one)),
        fmt(median(perSecond[b].two)),
        fmt(studyRatio(b)),
        ...(compared ? [b === 0 ? fmt(median(perSecond[0].two) / median(perSecond[1].two)) + ' (two hosts, runs/s)' : ''] : []),
      ]),
    ),
  );
  print(
    `\nWhole studies through \`experiment --nats\` (publish, pull, run, confirm, ack), the coordinator in this process, medians of ${studyRounds}; hosts started before timing.${buildsNote}\n`,
  );
  if (compared) {
    const interval = (a: number[], b: number[]) => ((i) => `${fmt(i.lower)}-${fmt(i.upper)}`)(medianRatioInterval(a, b));
    const stopInterval = (w: BothWays) => interval(stops(w.spread), stops(latency[1].spread));
    const spreadSeconds = (ways: BothWays[], b: number) => wall(ways[b].spread);
    doneWhen.push(
      [
        `stop latency p50 across two hosts (N = 64, async): this / ${builds[1].label}`,
        `${fmt(spreadP50(latency[0]) / spreadP50(latency[1]))} (95% interval ${stopInterval(latency[0])}; ${fmt(spreadP50(latency[0]), 3)} / ${fmt(spreadP50(latency[1]), 3)} ms)`,
        '≤ 1.10',
        spreadP50(latency[0]) <= 1.1 * spreadP50(latency[1]) ? 'yes' : 'no',
      ],
      [
        `the same over runs where both islands iterated: this / ${builds[1].label}`,
        `${fmt(busyP50(latency[0]) / busyP50(latency[1]))} (95% interval ${interval(stops(busy(latency[0])), stops(busy(latency[1])))}; ${fmt(busyP50(latency[0]), 3)} / ${fmt(busyP50(latency[1]), 3)} ms; ${busy(latency[0]).length} / ${busy(latency[1]).length} runs)`,
        '',
        '',
      ],
      [
        `the same with this build's islands at the relay's priority (--island-nice 0): this / ${builds[1].label}`,
        `${fmt(spreadP50(latency[2]) / spreadP50(latency[1]))} (95% interval ${stopInterval(latency[2])}; ${fmt(spreadP50(latency[2]), 3)} ms)`,
        '',
        '',
      ],
      ...large.map(({ label, ways }) => [
        `N = 1000, CPU per evaluation, two hosts / one process (${label}): this / ${builds[1].label}`,
        `${fmt(cpuRatio(ways[0]) / cpuRatio(ways[1]))} (${fmt(cpuRatio(ways[0]))} / ${fmt(cpuRatio(ways[1]))})`,
        '≤ 1.10',
        cpuRatio(ways[0]) <= 1.1 * cpuRatio(ways[1]) ? 'yes' : 'no',
      ]),
      ...large.map(({ label, ways }) => [
        `N = 1000, wall time, two hosts / one process (${label}): this / ${builds[1].label}`,
        `${fmt(slowdown(ways[0]) / slowdown(ways[1]))} (${fmt(slowdown(ways[0]))} / ${fmt(slowdown(ways[1]))}; two hosts ${fmt(spreadSeconds(ways, 0))} s / ${fmt(spreadSeconds(ways, 1))} s)`,
        '≤ 1.10',
        slowdown(ways[0]) <= 1.1 * slowdown(ways[1]) ? 'yes' : 'no',
      ]),
    );
  }
  const perMode = await hostIslandCost(server.path, rounds);
  results.cluster = { builds, rounds, trips, latency, large, studyRunsPerSecond: perSecond, perMode };
}

/** One line naming the flag and what was expected, exit 2. */
function badFlag(line: string): never {
  process.stderr.write(`bench: ${line}\n`);
  process.exit(2);
}

/** `--baseline-dist DIR`: another build's dist/ whose cluster cases run beside this build's; labelled by its commit. */
function baselineBuild(args: string[]): Build[] {
  const at = args.indexOf('--baseline-dist');
  if (at < 0) return [];
  const dist = path.resolve(args[at + 1] ?? '');
  if (
    !existsSync(path.join(dist, 'bundle', 'nqueens-islands.cjs')) ||
    !existsSync(path.join(dist, 'src', 'cluster', 'study', 'study.js'))
  ) {
    badFlag(
      `--baseline-dist: expected a built dist/ folder (with bundle/nqueens-islands.cjs and src/cluster/study/study.js), got ${JSON.stringify(args[at + 1] ?? '')}`,
    );
  }
  let commit = 'unknown commit';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', cwd: dist }).trim();
  } catch {
    // Not in a git checkout: the path names it.
  }
  return [{ label: `baseline ${commit}`, dist }];
}

/** `--rounds K`: how often the cluster cases run every seed (default 1). */
function roundsOf(args: string[]): number {
  const at = args.indexOf('--rounds');
  if (at < 0) return 1;
  const k = Number(args[at + 1]);
  if (!Number.isInteger(k) || k < 1 || k > 100)
    badFlag(`--rounds: expected an integer from 1 to 100, got ${JSON.stringify(args[at + 1] ?? '')}`);
  return k;
}

/** The flags the bench takes, with whether each takes a value. */
const FLAGS: Record<string, boolean> = {
  '--only': true,
  '--json': true,
  '--write': true,
  '--baseline-dist': true,
  '--rounds': true,
  '--help': false,
};

/** `--help` prints the usage in this file's header; anything else unknown is refused before a minute is spent measuring. */
function checkFlags(args: string[]): void {
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (flag === '--help' || flag === '-h') {
      const header = readFileSync(fileURLToPath(import.meta.url).replace(/dist\/bench\/bench\.js$/, 'bench/bench.ts'), 'utf8');
      const usage = /\/\*\*\n([\s\S]*?)\*\//.exec(header)?.[1] ?? '';
      process.stdout.write(`${usage.replace(/^ \* ?/gm, '').trimEnd()}\n`);
      process.exit(0);
    }
    if (!(flag in FLAGS)) badFlag(`${flag}: unknown flag; expected ${Object.keys(FLAGS).join(', ')}`);
    if (FLAGS[flag]) {
      if (args[i + 1] === undefined || args[i + 1].startsWith('--')) badFlag(`${flag}: expected a value after it`);
      i++;
    }
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  checkFlags(args);
  const onlyAt = args.indexOf('--only');
  const jsonAt = args.indexOf('--json');
  const writeAt = args.indexOf('--write');
  if (writeAt >= 0) {
    try {
      checkBenchDoc(args[writeAt + 1]);
    } catch (error) {
      badFlag(`--write: ${(error as Error).message}`);
    }
  }
  const builds = [THIS_BUILD, ...baselineBuild(args)];
  const rounds = roundsOf(args);
  const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? '').split(',') : [...SECTIONS];
  const unknown = only.filter((s) => !SECTIONS.includes(s as Section));
  if (unknown.length > 0) {
    badFlag(`--only: unknown section ${unknown.join(', ')}; expected some of ${SECTIONS.join(', ')}`);
  }
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', cwd: ROOT }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const loadAtStart = os.loadavg();
  print('# nqueens-islands benchmarks');
  print();
  print(`- command: \`npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}\``);
  print(
    `- machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB; Node ${process.version}; ${os.platform()} ${os.release()}`,
  );
  print(`- commit ${commit}, ${new Date().toISOString()}; load average at start ${loadAtStart.map((x) => fmt(x)).join(' ')}`);
  print();
  const baseline = compileBaseline();
  /** Runs a section and notes which "done when" rows it measured (their command in the doc). */
  const section = async (name: Section, measure: () => void | Promise<void>) => {
    const from = doneWhen.length;
    await measure();
    for (let i = from; i < doneWhen.length; i++) sectionOf[i] = name;
  };
  if (only.includes('start')) await section('start', startSection);
  if (only.includes('paper')) await section('paper', () => paperSection(baseline));
  if (only.includes('paper')) await section('paper', courseLogRow);
  if (only.includes('islands')) await section('islands', islandsSection);
  if (only.includes('threads')) await section('threads', threadsSection);
  if (only.includes('cli')) await section('cli', () => cliSection(baseline));
  if (only.includes('lagged') || only.includes('migration')) await section('lagged', laggedTable);
  if (only.includes('migration')) await section('migration', migrationSection);
  if (only.includes('hybrid')) await section('hybrid', hybridSection);
  if (only.includes('large')) await section('large', () => largeSection(baseline));
  if (only.includes('large-n')) await section('large-n', largeNSection);
  if (only.includes('hundred-million')) await section('hundred-million', hundredMillionSection);
  if (only.includes('live')) await section('live', liveSection);
  if (only.includes('trace')) await section('trace', () => traceSection(!only.includes('paper')));
  if (only.includes('cluster')) await section('cluster', () => clusterSection(builds, rounds));
  else if (only.includes('host-cost')) await section('host-cost', () => hostCostSection(rounds));
  if (doneWhen.length > 0) {
    print('## "Done when" figures (issues 9, 19, 24 and 50)');
    print();
    print(
      table(
        ['figure', 'measured', 'target', 'met?', 'command'],
        doneWhen.map((row) => [...row, ...new Array<string>(5 - row.length).fill('')]),
      ),
    );
    print();
  }
  if (jsonAt >= 0) writeFileSync(args[jsonAt + 1], `${JSON.stringify(results, null, 2)}\n`);
  if (writeAt >= 0) {
    const measured: Measured[] = doneWhen.map((row, i) => ({ row, section: sectionOf[i] }));
    writeBenchDoc(args[writeAt + 1], measured, `${commit}, ${new Date().toISOString().slice(0, 10)}, load ${fmt(loadAtStart[0], 1)}`);
  }
}

await main();
