import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { validateSolution } from '../src/problem/validate.ts';
import { cliInProcess, isOneLineError, ROOT } from './cli-helpers.ts';
import { paper, paperSolutions } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-cli-'));

describe('verify', () => {
  it('exits 0 for a solution and 1 for a non-solution, with the fitness', async () => {
    const good = await cliInProcess(['verify', '2', '4', '1', '3']);
    assert.equal(good.code, 0);
    assert.match(good.stdout, /permutation: yes {2}fitness: 0 {2}solution: yes/);
    const bad = await cliInProcess(['verify', '8', '6', '4', '1', '3', '5', '7', '2']);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /fitness: 1 {2}solution: no/);
  });

  it('prints the JSON shape for every paper example, each form of tuple', async () => {
    const args = paper.examples.fitness.map((e, i) =>
      i === 0 ? `(${e.tuple.join(', ')})` : i === 1 ? `[${e.tuple.join(',')}]` : e.tuple.join(' '),
    );
    const r = await cliInProcess(['verify', ...args, '--json']);
    assert.equal(r.code, 1);
    assert.deepEqual(
      JSON.parse(r.stdout),
      paper.examples.fitness.map((e) => ({ n: 8, permutation: true, fitness: e.fitness, solution: false })),
    );
  });

  it('accepts all 51 paper solutions from a file, as lines and as JSON', async () => {
    const lines = join(tmp, 'paper.txt');
    writeFileSync(lines, paperSolutions.map((s) => s.solution.join(' ')).join('\n'));
    const r = await cliInProcess(['verify', '--file', lines, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const reports = JSON.parse(r.stdout);
    assert.equal(reports.length, 51);
    assert.ok(reports.every((x: { solution: boolean; fitness: number }) => x.solution && x.fitness === 0));
    const json = join(tmp, 'paper.json');
    writeFileSync(json, JSON.stringify(paperSolutions.map((s) => s.solution)));
    assert.equal((await cliInProcess(['verify', '--file', json])).code, 0);
  });

  it('checks a million-queen solution written one row per line', async () => {
    // The classic explicit construction (evens, then odds) solves N when N mod 6 is not 2 or 3.
    const n = 1_000_000;
    const tuple = [...Array.from({ length: n / 2 }, (_, i) => 2 * i + 2), ...Array.from({ length: n / 2 }, (_, i) => 2 * i + 1)];
    assert.deepEqual(validateSolution(tuple), { valid: true });
    const file = join(tmp, 'million.txt');
    writeFileSync(file, `${tuple.join('\n')}\n`);
    const r = await cliInProcess(['verify', '--file', file, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), [{ n, permutation: true, fitness: 0, solution: true }]);
    [tuple[0], tuple[1]] = [tuple[1], tuple[0]];
    writeFileSync(file, `${tuple.join('\n')}\n`);
    assert.equal((await cliInProcess(['verify', '--file', file])).code, 1);
  });

  it('reports repeated rows as permutation: false, not as a crash', async () => {
    const r = await cliInProcess(['verify', '1', '1', '2', '--json']);
    assert.equal(r.code, 1);
    assert.deepEqual(JSON.parse(r.stdout), [{ n: 3, permutation: false, fitness: 1, solution: false }]);
  });

  for (const [name, args] of [
    ['a non-number', ['verify', '1', 'x', '3']],
    ['a row out of range', ['verify', '1', '5', '2']],
    ['a zero', ['verify', '0', '1']],
    ['no tuple', ['verify']],
    ['a missing file', ['verify', '--file', join(tmp, 'absent.txt')]],
    ['a directory as file', ['verify', '--file', tmp]],
  ] as const) {
    it(`answers ${name} with one line and exit 2`, async () => {
      const r = await cliInProcess([...args]);
      assert.ok(isOneLineError(r), `code ${r.code}, stderr ${r.stderr}, stdout ${r.stdout}`);
    });
  }
});

describe('solve', () => {
  it('prints the JSON result with a valid solution, on one island with a seed', async () => {
    const r = await cliInProcess(['solve', '-n', '12', '--seed', '5', '--islands', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    for (const key of [
      'n',
      'solved',
      'solution',
      'fitness',
      'iterations',
      'evaluations',
      'seconds',
      'seed',
      'foundBy',
      'stopLatencyMs',
      'islands',
    ]) {
      assert.ok(key in out, `missing ${key}`);
    }
    assert.equal(out.n, 12);
    assert.equal(out.seed, 5);
    assert.equal(out.solved, true);
    assert.equal(out.fitness, 0);
    assert.deepEqual(validateSolution(out.solution), { valid: true });
    assert.deepEqual(Object.keys(out.islands[0]).slice(0, 7), [
      'id',
      'iterations',
      'evaluations',
      'evaluationsAfterSolution',
      'bestFitness',
      'migrantsSent',
      'migrantsAccepted',
    ]);
  });

  it('repeats a sync run exactly for the same seed', async () => {
    const args = ['solve', '-n', '16', '--seed', '9', '--islands', '2', '--migration', 'sync', '--json'];
    const a = JSON.parse((await cliInProcess(args)).stdout);
    const b = JSON.parse((await cliInProcess(args)).stdout);
    assert.deepEqual([a.solution, a.foundBy, a.iterations, a.evaluations], [b.solution, b.foundBy, b.iterations, b.evaluations]);
  });

  it('solves N = 200 with --json and a valid solution', async () => {
    const r = await cliInProcess(['solve', '-n', '200', '--seed', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.solution.length, 200);
    assert.deepEqual(validateSolution(out.solution), { valid: true });
  });

  it('prints text with the seed and draws the board', async () => {
    const r = await cliInProcess(['solve', '-n', '8', '--seed', '3', '--islands', '1', '--board']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^solved N=8: \(/);
    assert.match(r.stdout, /seed 3/);
    assert.equal((r.stdout.match(/♛/g) ?? []).length, 8);
  });

  it('answers N = 1 at once and N = 2, 3 with "no solution" and exit 1', async () => {
    const one = await cliInProcess(['solve', '-n', '1', '--json']);
    assert.equal(one.code, 0);
    assert.deepEqual(JSON.parse(one.stdout).solution, [1]);
    for (const n of ['2', '3']) {
      const r = await cliInProcess(['solve', '-n', n]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`N = ${n} has no solution`));
    }
  });

  it('exits 1 when the limits end the run first, and reports the best found', async () => {
    const r = await cliInProcess(['solve', '-n', '60', '--seed', '2', '--islands', '1', '--max-iterations', '2', '--json']);
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout);
    assert.equal(out.solved, false);
    assert.ok(out.fitness > 0);
    assert.equal(out.best.length, 60);
  });

  it('takes the last of a repeated single-value flag (--config, --out), as it does for run flags', async () => {
    const json = join(tmp, 'last.json');
    const r = await cliInProcess([
      'solve',
      '-n',
      '8',
      '--seed',
      '1',
      '--quiet',
      '--json',
      '--config',
      join(ROOT, 'config', 'default.yaml'),
      '--config',
      join(ROOT, 'config', 'paper.yaml'),
      '--out',
      join(tmp, 'first.json'),
      '--out',
      json,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).config.islands, 1);
    assert.ok(existsSync(json) && !existsSync(join(tmp, 'first.json')));
  });

  it('writes the best so far to a .txt --out when the limits end the run first', async () => {
    const txt = join(tmp, 'best.txt');
    assert.equal(
      (await cliInProcess(['solve', '-n', '60', '--seed', '2', '--islands', '1', '--max-iterations', '2', '--quiet', '--out', txt])).code,
      1,
    );
    assert.equal(readFileSync(txt, 'utf8').trim().split('\n').length, 60);
    assert.equal((await cliInProcess(['verify', '--file', txt])).code, 1);
  });

  it('writes --out atomically, readable by verify --file', async () => {
    const json = join(tmp, 'result.json');
    assert.equal((await cliInProcess(['solve', '-n', '10', '--seed', '4', '--islands', '1', '--quiet', '--out', json])).code, 0);
    assert.equal(JSON.parse(readFileSync(json, 'utf8')).solved, true);
    assert.equal((await cliInProcess(['verify', '--file', json])).code, 0);
    const txt = join(tmp, 'result.txt');
    assert.equal((await cliInProcess(['solve', '-n', '10', '--seed', '4', '--islands', '1', '--out', txt])).code, 0);
    assert.equal(readFileSync(txt, 'utf8').trim().split('\n').length, 10);
    assert.equal((await cliInProcess(['verify', '--file', txt])).code, 0);
  });

  for (const [name, args] of [
    ['N missing', ['solve']],
    ['N = 0', ['solve', '-n', '0']],
    ['N not a number', ['solve', '-n', 'ten']],
    ['N fractional', ['solve', '-n', '8.5']],
    ['an unknown topology', ['solve', '-n', '8', '--topology', 'moebius']],
    ['a hypercube of 3 islands', ['solve', '-n', '8', '--islands', '3', '--topology', 'hypercube']],
    ['an --out folder that does not exist', ['solve', '-n', '8', '--out', join(tmp, 'no', 'such', 'r.json')]],
  ] as const) {
    it(`answers ${name} with one line and exit 2`, async () => {
      const r = await cliInProcess([...args]);
      assert.ok(isOneLineError(r), `code ${r.code}, stderr ${r.stderr}, stdout ${r.stdout}`);
    });
  }

  it('creates no output file on bad input', async () => {
    const out = join(tmp, 'never.json');
    assert.equal((await cliInProcess(['solve', '-n', '0', '--out', out])).code, 2);
    assert.equal(existsSync(out), false);
  });
});
