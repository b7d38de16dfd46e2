#!/usr/bin/env node
/**
 * `npm test`: the build (whose tsc type-checks src, workers, bench and test in one program, so
 * nothing is type-checked twice) and the lint at once, then the test files, which need dist/.
 *
 * The test files run from one pool: at most NQI_TEST_CONCURRENCY processes of the suite at once
 * (default 4, the lint counting as one while it runs; a file that mostly waits counts as none),
 * of which at most two files with a real broker and host processes (each starts its own broker
 * on a port the server picks; their hosts must keep a heartbeat every second, which a crowded
 * machine delays, so no more). So the files fill the cores the lint and the broker files leave
 * (many of them wait on processes, brokers and timers), and none is left running alone at the
 * end: they start the longest first, as measured (test/costs.json, written by `node
 * scripts/test-times.mjs --save`; a file not in it yet starts first). Each file's report is
 * shown when it ends; the build's and the lint's when they end. Exits 1 if any stage fails (no
 * test runs after a failed build), after the count of tests and a line with each stage's wall
 * time and, where GNU time is installed, its CPU time (the suite is CPU-bound: their sum over
 * the cores is its floor).
 *
 * The test files run as the build's tsc compiled them (dist/test/x.test.js, emitted from the
 * same sources it type-checked), with plain node, each in a process of its own (as `node --test`
 * would run it, without the parent process that gathers the reports): a file starts in half the
 * CPU it takes under tsx (test/paths.ts finds the root and fixtures either way). Stack traces
 * name the .js lines; NODE_OPTIONS=--enable-source-maps maps them to the .ts.
 *
 *   node scripts/test.mjs [test files...]   (default: every test/*.test.ts)
 *   node scripts/test.mjs --unit            the `// @unit` files under tsx, no build or lint (`npm run test:unit`)
 *   NQI_TEST_CONCURRENCY=N                  processes of the suite at once (default 4)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const all = readdirSync(new URL('../test/', import.meta.url))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f}`)
  .sort();
const text = new Map(all.map((f) => [f, readFileSync(path.join(root, f), 'utf8')]));
/** Test files that start nats-server and host processes (test/nats-server.ts): at most two at once. */
const broker = new Set(all.filter((f) => /from '\.\/nats-server\.ts'/.test(text.get(f))));
const BROKER_FILES_AT_ONCE = 2;
/** The cores the costs were measured against: a file's CPU stretches over slots / cores of wall time. */
const CORES = 2;

/**
 * GNU time, where there is one: it reports the CPU (user + system) of a process tree, which says
 * whether the suite waited or computed (Node sees only its own process's).
 */
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
/** A folder of its own for GNU time's reports (made on first use, removed at the end). */
let scratch;
const cpuFileFor = (name) => path.join((scratch ??= mkdtempSync(path.join(tmpdir(), 'nqi-test-'))), `${name.replace(/\W+/g, '-')}.cpu`);

/** The CPU seconds GNU time wrote to `file` (its last line, "user system"), or undefined. */
function cpuSeconds(file) {
  if (file === '' || !existsSync(file)) return undefined;
  const last = readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '';
  const [user, system] = last.split(' ').map(Number);
  return Number.isFinite(user + system) ? user + system : undefined;
}

/** Runs a process; `held` output is kept and returned, else it goes straight to this process's streams. */
function stage(name, command, args, held) {
  const started = performance.now();
  const cpuFile = gnuTime ? cpuFileFor(name) : '';
  const [run, runArgs] = gnuTime ? [gnuTime, ['-f', '%U %S', '-o', cpuFile, command, ...args]] : [command, args];
  return new Promise((resolve) => {
    const child = spawn(run, runArgs, { cwd: root, stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (held) {
      child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    }
    child.on('close', (code, signal) => {
      const ended = performance.now();
      resolve({
        name,
        ok: code === 0,
        code: code ?? signal,
        output,
        started,
        ended,
        seconds: (ended - started) / 1000,
        cpu: cpuSeconds(cpuFile),
      });
    });
  });
}

/** test/x.test.ts as the build emitted it. */
const compiled = (file) => path.join('dist', file.replace(/\.ts$/, '.js'));

/** A file that computes for less than this share of its wall time alone mostly waits (timers, leases, a browser's minute). */
const WAITS = 0.25;

/**
 * What test/costs.json says of each file (its wall and CPU seconds alone): `length`, the wall
 * time it holds the pool for, the larger of its own waits and its CPU shared among `slots`
 * processes on the cores (a file not measured yet counts as the longest: it may be); `waits`,
 * whether it mostly waits, so takes no slot (a core stays free for the others beside it).
 */
function costsOf(slots) {
  const costsFile = path.join(root, 'test', 'costs.json');
  const costs = existsSync(costsFile) ? JSON.parse(readFileSync(costsFile, 'utf8')) : {};
  return {
    length: (file) => {
      const cost = costs[file];
      return cost === undefined ? Infinity : Math.max(cost.wall, (cost.cpu * Math.max(slots, CORES)) / CORES);
    },
    waits: (file) => costs[file] !== undefined && costs[file].cpu < WAITS * costs[file].wall,
  };
}

/**
 * Runs `files` from one pool of `slots` processes, `busy()` of them taken by other stages, at
 * most BROKER_FILES_AT_ONCE with a broker; the longest first. `onEnd` hears of each file as it
 * ends. `done` resolves with every file's result; `wake()` says another stage ended.
 */
function pool(files, slots, busy, onEnd) {
  const { length, waits } = costsOf(slots);
  const queue = [...files].sort((a, b) => length(b) - length(a));
  const results = [];
  const running = new Set();
  let brokers = 0;
  let next = () => {};
  const computing = () => [...running].filter((f) => !waits(f)).length;
  const done = new Promise((resolve) => {
    next = () => {
      while (queue.length > 0 && computing() + busy() < slots) {
        const at = queue.findIndex((f) => !broker.has(f) || brokers < BROKER_FILES_AT_ONCE);
        if (at < 0) break;
        const [file] = queue.splice(at, 1);
        running.add(file);
        if (broker.has(file)) brokers += 1;
        void stage(file, process.execPath, ['--test-reporter=spec', compiled(file)], true).then((r) => {
          running.delete(file);
          if (broker.has(file)) brokers -= 1;
          results.push(r);
          onEnd(r);
          next();
        });
      }
      if (running.size === 0 && queue.length === 0) resolve(results);
    };
  });
  return { done, wake: () => next() };
}

/** The counts the spec reporter closes a file's report with (`ℹ pass 12`). */
function counts(output) {
  const count = (what) => Number(output.match(new RegExp(`^ℹ ${what} (\\d+)$`, 'm'))?.[1] ?? 0);
  return { tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped') };
}

/** One lane's results as a stage: from its first file's start to its last one's end, CPU summed. */
function lane(name, results) {
  const cpus = results.map((r) => r.cpu);
  const started = Math.min(...results.map((r) => r.started));
  const ended = Math.max(...results.map((r) => r.ended));
  const tally = results
    .map((r) => counts(r.output))
    .reduce((a, b) => ({ tests: a.tests + b.tests, fail: a.fail + b.fail, skipped: a.skipped + b.skipped }));
  return {
    name,
    ok: results.every((r) => r.ok),
    seconds: (ended - started) / 1000,
    cpu: cpus.includes(undefined) ? undefined : cpus.reduce((a, b) => a + b, 0),
    tally,
    failed: results.filter((r) => !r.ok).map((r) => r.name),
  };
}

const show = (r) =>
  process.stdout.write(`\n--- ${r.name} (${r.ok ? 'passed' : `failed, exit ${r.code}`}, ${r.seconds.toFixed(1)} s):\n${r.output}`);

/** Starts the lint beside the build, then the test files from one pool; resolves with each stage's result. */
async function stages(files, slots) {
  let others = 1;
  let tests;
  const lint = stage('lint', npm, ['run', '--silent', 'lint'], true).then((r) => {
    others -= 1;
    tests?.wake();
    return r;
  });
  const build = await stage('build', npm, ['run', '--silent', 'build'], true);
  if (!build.ok || files.length === 0) return { build, lint: await lint, lanes: [] };
  tests = pool(files, slots, () => others, show);
  tests.wake();
  const results = await tests.done;
  const lanes = [
    ['broker tests', results.filter((r) => broker.has(r.name))],
    ['tests', results.filter((r) => !broker.has(r.name))],
  ].flatMap(([name, rs]) => (rs.length > 0 ? [lane(name, rs)] : []));
  return { build, lint: await lint, lanes };
}

async function runAll(given) {
  const slots = Number(process.env.NQI_TEST_CONCURRENCY) || 4;
  const { build, lint, lanes } = await stages(given.length > 0 ? given : all, slots);
  for (const r of [build, lint]) if (r.output.trim() !== '' || !r.ok) show(r);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  const cpu = (r) => (r.cpu === undefined ? '' : ` (CPU ${r.cpu.toFixed(1)} s)`);
  const results = [build, lint, ...lanes];
  const line = results.map((r) => `${r.name} ${r.ok ? 'ok' : 'FAILED'} ${r.seconds.toFixed(1)} s${cpu(r)}`).join(', ');
  const tallies = lanes.map((l) => `${l.name}: ${l.tally.tests} tests, ${l.tally.fail} failed, ${l.tally.skipped} skipped`).join('; ');
  const failed = lanes.flatMap((l) => l.failed);
  process.stdout.write(
    `\n${failed.length > 0 ? `failed test files: ${failed.join(' ')}\n` : ''}${tallies}\n${line} (${build.ok ? `${slots} processes at once, at most ${BROKER_FILES_AT_ONCE} test files with a broker` : 'no test ran: the build failed'})\n`,
  );
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}

if (process.argv[2] === '--unit') {
  const unit = all.filter((f) => text.get(f).startsWith('// @unit'));
  const run = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=4', ...unit], { cwd: root, stdio: 'inherit' });
  run.on('close', (code) => (process.exitCode = code ?? 1));
} else await runAll(process.argv.slice(2));
