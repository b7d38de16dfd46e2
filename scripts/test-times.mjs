#!/usr/bin/env node
/**
 * Where the suite's time goes: runs test files one at a time, each as `npm test` runs it
 * (dist/test/x.test.js with plain node in a process of its own, after a build), and prints each file's wall time, its
 * CPU time (user + system, of the file's process and every process it waited for: its workers,
 * the CLI processes and brokers it started) and its slowest tests, the most CPU first. On a
 * shared machine the CPU is the number to compare: the sum over files, halved, is the floor of
 * `npm test`'s wall time on two cores. With `--save` it writes each file's wall and CPU seconds
 * to test/costs.json (kept for the files not timed), the table `npm test` starts the longest
 * files first by (docs/development.md). Wrap it: `cpu-slot node scripts/test-times.mjs`.
 *
 * The CPU is read with GNU time (/usr/bin/time, which reports the rusage of the process tree it
 * waited for: Node's process.resourceUsage sees only its own process); without it, only wall times.
 *
 *   node scripts/test-times.mjs [test files...]   (default: every test/*.test.ts)
 *   node scripts/test-times.mjs --main            the files without a broker
 *   node scripts/test-times.mjs --save [files...] and write their times to test/costs.json
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const given = process.argv.slice(2).filter((a) => a !== '--main' && a !== '--save');
const every = readdirSync(path.join(root, 'test'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f}`)
  .sort();
const withBroker = (f) => /from '\.\/nats-server\.ts'/.test(readFileSync(path.join(root, f), 'utf8'));
const files = given.length > 0 ? given : process.argv.includes('--main') ? every.filter((f) => !withBroker(f)) : every;
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const scratch = mkdtempSync(path.join(tmpdir(), 'nqi-test-times-'));

/** One file's wall and CPU seconds, exit code and its tests' durations (the spec reporter's `✔ name (123ms)` lines). */
function timeFile(file, index) {
  const started = performance.now();
  const compiled = path.join('dist', file.replace(/\.ts$/, '.js'));
  const cpuFile = path.join(scratch, `${index}.cpu`);
  const nodeArgs = ['--test-reporter=spec', compiled];
  const [command, args] = gnuTime ? [gnuTime, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const tests = [...output.matchAll(/^ {2,}[✔✖] (.*) \(([\d.]+)ms\)$/gm)].map((m) => ({ name: m[1], ms: Number(m[2]) }));
      // GNU time writes "Command exited with non-zero status N" above the numbers when the file fails.
      const cpu = gnuTime
        ? readFileSync(cpuFile, 'utf8')
            .trim()
            .split('\n')
            .at(-1)
            .split(' ')
            .reduce((sum, s) => sum + Number(s), 0)
        : undefined;
      resolve({ file, code, seconds: (performance.now() - started) / 1000, cpu, tests });
    });
  });
}

const results = [];
for (const [index, file] of files.entries()) {
  const r = await timeFile(file, index);
  results.push(r);
  process.stderr.write(
    `${r.file} ${r.seconds.toFixed(1)} s${r.cpu === undefined ? '' : `, CPU ${r.cpu.toFixed(1)} s`}${r.code === 0 ? '' : ` (exit ${r.code})`}\n`,
  );
}
rmSync(scratch, { recursive: true, force: true });
const key = (r) => r.cpu ?? r.seconds;
results.sort((a, b) => key(b) - key(a));
const cpuColumn = (r) => (r.cpu === undefined ? '' : `${r.cpu.toFixed(1).padStart(6)} s CPU`);
for (const r of results) {
  process.stdout.write(`${r.seconds.toFixed(1).padStart(6)} s ${cpuColumn(r)}  ${r.file}${r.code === 0 ? '' : `  (exit ${r.code})`}\n`);
  for (const t of r.tests.sort((a, b) => b.ms - a.ms).slice(0, 3))
    process.stdout.write(`${(t.ms / 1000).toFixed(1).padStart(14)} s  ${t.name.slice(0, 100)}\n`);
}
const total = (pick) => results.reduce((sum, r) => sum + pick(r), 0);
process.stdout.write(
  `${total((r) => r.seconds)
    .toFixed(1)
    .padStart(6)} s ${
    gnuTime
      ? `${total((r) => r.cpu)
          .toFixed(1)
          .padStart(6)} s CPU`
      : ''
  }  in all, one file at a time\n`,
);

if (process.argv.includes('--save')) {
  const costsFile = path.join(root, 'test', 'costs.json');
  const costs = existsSync(costsFile) ? JSON.parse(readFileSync(costsFile, 'utf8')) : {};
  const round = (seconds) => Math.round(seconds * 10) / 10;
  for (const r of results) costs[r.file] = { wall: round(r.seconds), cpu: round(r.cpu ?? r.seconds) };
  const sorted = Object.fromEntries(
    Object.keys(costs)
      .sort()
      .filter((f) => every.includes(f))
      .map((f) => [f, costs[f]]),
  );
  // One line a file (as Prettier formats it), so that a change of one file's times is one line.
  const lines = Object.entries(sorted).map(([f, c]) => `  ${JSON.stringify(f)}: { "wall": ${c.wall}, "cpu": ${c.cpu} }`);
  writeFileSync(costsFile, `{\n${lines.join(',\n')}\n}\n`);
}
