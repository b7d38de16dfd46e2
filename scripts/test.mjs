#!/usr/bin/env node
/**
 * `npm test`: the build (whose tsc type-checks src, workers, bench and test in one program, so
 * nothing is type-checked twice) and the lint at once, then the test files, which need dist/.
 * The build alone leaves a core idle much of the time, as the tests do (they wait on processes,
 * brokers and timers), so the lint fills it. The test files run in two lanes: those with a real
 * broker and host processes two at a time (each file starts its own broker on a port the
 * server picks; their hosts must keep a heartbeat every second, which a crowded machine
 * delays, so no more), the others several at a time, the slowest first so that none
 * is left running alone at the end. The main lane's report streams; the broker lane's, the
 * build's and the lint's output is shown when they end. Exits 1 if any stage fails (no test
 * runs after a failed build), after a line with each stage's wall time and, where GNU time is
 * installed, its CPU time (the suite is CPU-bound: their sum over the cores is its floor).
 *
 * The test files run as the build's tsc compiled them (dist/test/x.test.js, emitted from the
 * same sources it type-checked), with plain node: a file starts in half the CPU it takes under
 * tsx, and the suite starts some sixty (test/paths.ts finds the root and fixtures either way).
 * Stack traces name the .js lines; NODE_OPTIONS=--enable-source-maps maps them to the .ts.
 *
 * Which files are slow or quick is read from the files, not kept here: a first line
 * `// @slow` marks one of the longest (started first, the largest first), `// @unit` one that
 * runs in-process and quickly (`--unit`); a file that imports test/nats-server.ts has a broker.
 *
 *   node scripts/test.mjs [test files...]   (default: every test/*.test.ts)
 *   node scripts/test.mjs --unit            the @unit files under tsx, no build or lint (`npm run test:unit`)
 *   NQI_TEST_CONCURRENCY=N                  main-lane test files at once (default 2)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
/** A file's tag: its first line is `// @slow...` or `// @unit...`. */
const tagged = (tag) => all.filter((f) => text.get(f).startsWith(`// @${tag}`));
/** Test files that start nats-server and host processes (test/nats-server.ts): the broker lane. */
const broker = new Set(all.filter((f) => /from '\.\/nats-server\.ts'/.test(text.get(f))));

/**
 * GNU time, where there is one: it reports the CPU (user + system) of a stage's whole process
 * tree, which says whether the suite waited or computed (Node sees only its own process's).
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

/** Runs a stage; `held` output is kept and returned, else it goes straight to this process's streams. */
function stage(name, command, args, held, env = process.env) {
  const started = performance.now();
  const cpuFile = gnuTime ? cpuFileFor(name) : '';
  const [run, runArgs] = gnuTime ? [gnuTime, ['-f', '%U %S', '-o', cpuFile, command, ...args]] : [command, args];
  return new Promise((resolve) => {
    const child = spawn(run, runArgs, { cwd: root, env, stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (held) {
      child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    }
    child.on('close', (code, signal) =>
      resolve({
        name,
        ok: code === 0,
        code: code ?? signal,
        output,
        seconds: (performance.now() - started) / 1000,
        cpu: cpuSeconds(cpuFile),
      }),
    );
  });
}

/** test/x.test.ts as the build emitted it. */
const compiled = (file) => path.join('dist', file.replace(/\.ts$/, '.js'));
const nodeTest = (lane, concurrency) => ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...lane.map(compiled)];

async function runAll(given) {
  const slowest = tagged('slow').sort((a, b) => statSync(path.join(root, b)).size - statSync(path.join(root, a)).size);
  const files = given.length > 0 ? given : [...slowest, ...all.filter((f) => !slowest.includes(f))];
  const concurrency = Number(process.env.NQI_TEST_CONCURRENCY) || 2;

  const brokerLane = files.filter((f) => broker.has(f));
  const main = files.filter((f) => !broker.has(f));
  const lint = stage('lint', npm, ['run', '--silent', 'lint'], true);
  const build = await stage('build', npm, ['run', '--silent', 'build'], true);
  const held = [
    lint,
    ...(build.ok && brokerLane.length > 0 ? [stage('broker tests', process.execPath, nodeTest(brokerLane, 2), true)] : []),
  ];
  const tests = build.ok && main.length > 0 ? [stage('tests', process.execPath, nodeTest(main, concurrency), false)] : [];
  const results = [build, ...(await Promise.all([...held, ...tests]))];
  for (const r of results.slice(0, held.length + 1)) {
    if (r.output.trim() !== '' || !r.ok)
      process.stdout.write(`\n--- ${r.name} (${r.ok ? 'passed' : `failed, exit ${r.code}`}):\n${r.output}`);
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  const cpu = (r) => (r.cpu === undefined ? '' : ` (CPU ${r.cpu.toFixed(1)} s)`);
  const line = results.map((r) => `${r.name} ${r.ok ? 'ok' : 'FAILED'} ${r.seconds.toFixed(1)} s${cpu(r)}`).join(', ');
  process.stdout.write(
    `\n${line} (${build.ok ? `test files: ${concurrency} at a time, those with a broker two at a time` : 'no test ran: the build failed'})\n`,
  );
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}

if (process.argv[2] === '--unit') {
  const run = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=4', ...tagged('unit')], {
    cwd: root,
    stdio: 'inherit',
  });
  run.on('close', (code) => (process.exitCode = code ?? 1));
} else await runAll(process.argv.slice(2));
