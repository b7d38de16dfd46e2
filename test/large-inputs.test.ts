/**
 * Big traces and big studies: exact numbers and a page of bounded size from a long trace,
 * runs.jsonl read in chunks, and the curves of 300,000 runs computed without a stack overflow.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunRecord } from '../src/experiment/records.ts';
import { readRuns } from '../src/experiment/store.ts';
import { ecdfPoints, fixedBudgetPoints } from '../src/report/statistics/run-length.ts';
import { cliInProcess } from './cli-helpers.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A small study file (fast runs); `sweep` as YAML text. */
const studyFile = (name: string, sweep: string, seeds = '[1, 2]') => studyYaml(tmp, name, `sweep:\n${sweep}\nseeds: ${seeds}`);

// ---------------------------------------------------------------------------------------
// Class 8: big inputs are bounded work.

describe('big traces and big studies', () => {
  it('report --run on a trace of 120,000 progress samples: exact numbers, a page of bounded size', async () => {
    const small = join(tmp, 'small.trace');
    assert.equal((await cliInProcess(['solve', '-n', '12', '--islands', '2', '--seed', '1', '--quiet', '--trace', small])).code, 0);
    const header = readFileSync(small, 'utf8').split('\n')[0];
    const lines = [header];
    const per = 60_000;
    for (let i = 0; i < per; i++) {
      for (const island of [0, 1]) {
        lines.push(
          JSON.stringify({
            type: 'progress',
            island,
            iteration: i,
            evaluations: 1000 * (i + 1),
            bestFitness: Math.max(1, 400 - Math.floor(i / 200)) + island,
            meanFitness: 500,
            diversity: 0.5 + 0.4 * Math.sin(i / 500),
            migrantsSent: i,
            migrantsAccepted: i >> 1,
            seconds: i / 1000,
          }),
        );
      }
    }
    const trace = join(tmp, 'huge.trace');
    writeFileSync(trace, `${lines.join('\n')}\n`);
    const html = join(tmp, 'huge.html');
    const r = await cliInProcess(['report', '--run', trace, '--html', html]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /island 0: 60000 samples, iterations 0\.\.59999, best fitness 400 -> 101,/);
    assert.match(r.stdout, /island 1: 60000 samples, iterations 0\.\.59999, best fitness 401 -> 102,/);
    const page = statSync(html).size;
    assert.ok(page < 1_500_000, `${page} bytes`);
    assert.match(readFileSync(html, 'utf8'), /drawn from the first, last, lowest and highest/);
  });

  it('runs.jsonl is read in chunks: every line across chunk boundaries (multi-byte text too), a torn last line cut', async () => {
    const file = studyFile('big', '  n: [8]', '[1]');
    const dir = join(tmp, 'big');
    assert.equal((await cliInProcess(['experiment', file, '--out', dir])).code, 0);
    const line = readFileSync(join(dir, 'runs.jsonl'), 'utf8').trimEnd();
    const record = JSON.parse(line) as { cell: string; seed: number };
    // About 20 MB: more than two 8 MB chunks, lines of varying length so the cuts fall anywhere.
    const many: string[] = [];
    for (let seed = 1; seed <= 24_000; seed++) many.push(JSON.stringify({ ...record, seed, note: 'é'.repeat(seed % 700) }));
    const runsFile = join(dir, 'runs.jsonl');
    writeFileSync(runsFile, `${many.join('\n')}\n{"cell":"n=8","se`);
    const read = readRuns(runsFile, true);
    assert.equal(read.runs.length, 24_000);
    assert.deepEqual(read.runs.map((r) => r.seed).slice(-3), [23_998, 23_999, 24_000]);
    assert.equal(read.droppedBytes, Buffer.byteLength('{"cell":"n=8","se'));
    assert.ok(readFileSync(runsFile, 'utf8').endsWith('}\n'), 'the torn line is cut off');
  });
});

describe("a big study's curves are computed, never a stack overflow", () => {
  it('the run-length ECDF and fixed-budget curves of 300,000 runs (Math.min(...runs) overflowed past about 120,000)', () => {
    const runs = Array.from({ length: 300_000 }, (_, i) => {
      const solved = i % 3 > 0;
      const evaluations = 1000 + ((i * 7919) % 5000);
      return {
        cell: 'a',
        seed: i + 1,
        solved,
        evaluations,
        trajectory: [
          [40 + (i % 7), 5],
          [evaluations, solved ? 0 : 1],
        ],
      };
    }) as unknown as RunRecord[];
    const ecdf = ecdfPoints(runs, ['a']);
    assert.ok(ecdf.length > 0);
    // The least solved run's evaluations is 1000 (i = 5000: 5000 · 7919 ≡ 0 mod 5000, and 5000 % 3 > 0): every line starts there.
    assert.deepEqual([ecdf[0].evaluations, ecdf[0].solved], [1000, 0]);
    const budget = fixedBudgetPoints(runs, ['a']);
    assert.ok(budget.length > 0);
    // Budgets start past the least first point (40) and never pass the greatest last (5999).
    assert.ok(budget[0].evaluations >= 40 && budget[0].evaluations < 60, `${budget[0].evaluations}`);
    assert.ok(budget.at(-1)!.evaluations <= 5999 && budget.at(-1)!.evaluations > budget[0].evaluations);
  });
});
