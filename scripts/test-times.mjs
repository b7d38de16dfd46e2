#!/usr/bin/env node
/**
 * Where the suite's time goes: runs test files one at a time, each as `npm test` runs it
 * (dist/test/x.test.js with plain node, after a build), and prints each file's wall time and
 * its slowest tests, the slowest file first. It decides which files carry `// @slow`
 * (docs/development.md). On a shared machine wrap it: `cpu-slot node scripts/test-times.mjs`.
 *
 *   node scripts/test-times.mjs [test files...]   (default: every test/*.test.ts)
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const given = process.argv.slice(2);
const files =
  given.length > 0
    ? given
    : readdirSync(path.join(root, 'test'))
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `test/${f}`);

/** One file's wall seconds, exit code and its tests' durations (the spec reporter's `✔ name (123ms)` lines). */
function timeFile(file) {
  const started = performance.now();
  const compiled = path.join('dist', file.replace(/\.ts$/, '.js'));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', compiled], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const tests = [...output.matchAll(/^ {2,}[✔✖] (.*) \(([\d.]+)ms\)$/gm)].map((m) => ({ name: m[1], ms: Number(m[2]) }));
      resolve({ file, code, seconds: (performance.now() - started) / 1000, tests });
    });
  });
}

const results = [];
for (const file of files) {
  const r = await timeFile(file);
  results.push(r);
  process.stderr.write(`${r.file} ${r.seconds.toFixed(1)} s${r.code === 0 ? '' : ` (exit ${r.code})`}\n`);
}
results.sort((a, b) => b.seconds - a.seconds);
for (const r of results) {
  process.stdout.write(`${r.seconds.toFixed(1).padStart(6)} s  ${r.file}${r.code === 0 ? '' : `  (exit ${r.code})`}\n`);
  for (const t of r.tests.sort((a, b) => b.ms - a.ms).slice(0, 3))
    process.stdout.write(`${(t.ms / 1000).toFixed(1).padStart(14)} s  ${t.name.slice(0, 100)}\n`);
}
process.stdout.write(
  `${results
    .reduce((sum, r) => sum + r.seconds, 0)
    .toFixed(1)
    .padStart(6)} s  in all, one file at a time\n`,
);
