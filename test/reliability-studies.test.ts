/**
 * Issue 39, classes 4 and 5, for studies: cells spelled differently but resolving to one
 * config are refused at the door; a study too large is refused before its cells are built
 * and writes nothing; `report` stops promptly on a signal and leaves no half-written file.
 * Tables run the command line in this process (`runCli`); the signal cases run the binary.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { MessageChannel } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadExperiment } from '../src/experiment/load.ts';
import { MAX_CELLS, MAX_RUNS } from '../src/experiment/schema.ts';
import { SIGNAL_EXIT_CODE, SIGNAL_NOTE_ENV, type StopSignal } from '../src/cli/signals.ts';
import { cli, cliInProcess, oneLine, spawnCli } from './cli-helpers.ts';
import { handMadeStudy } from './hand-study.ts';
import type { RunRecord } from '../src/experiment/records.ts';
import { ecdfPoints, fixedBudgetPoints } from '../src/report/statistics/run-length.ts';
import { describeError, rebuiltError, type ErrorData } from '../src/report/report-messages.ts';
import { ConfigError } from '../src/config/errors.ts';
import { InputError } from '../src/io/errors.ts';
import { UsageError } from '../src/cli/errors.ts';
import { fatalLine } from '../src/cli/fatal.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel-studies-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A study file with a small base (8 queens, 2 islands), `rest` as YAML lines (sweep, seeds, ...). */
function study(name: string, rest: string): string {
  const file = join(tmp, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\nbase:\n  overrides:\n    n: 8\n    islands: 2\n${rest}\n`);
  return file;
}

/** `count` distinct integers from 1, as a YAML flow list. */
function ints(count: number): string {
  return `[${Array.from({ length: count }, (_, i) => i + 1).join(', ')}]`;
}

describe('class 4: values spelled differently make no duplicate cells', () => {
  // [name, sweep, the two spellings the line must name]
  const cases: [string, string, RegExp][] = [
    ['percent', 'sweep:\n  migration.migrants: [0.02, "2%"]', /migration\.migrants: 0\.02 and "2%"/],
    ['default-kind', 'sweep:\n  topology: [{ kind: ring }, {}]', /topology: \{"kind":"ring"\} and \{\}/],
    [
      'nested',
      'sweep:\n  migration: [{ migrants: 0.02 }, { migrants: "2%" }]\n  n: [8, 10]',
      /migration: \{"migrants":0\.02\} and \{"migrants":"2%"\}/,
    ],
  ];
  for (const [name, sweep, spellings] of cases) {
    it(`${name}: refused at load time, naming both cells and spellings`, async () => {
      const out = join(tmp, `out-${name}`);
      const line = oneLine(await cliInProcess(['experiment', study(name, `${sweep}\nrepeats: 1`), '--out', out]), name);
      assert.match(line, /sweep: cells .+ and .+ resolve to the same run config/);
      assert.match(line, spellings);
      assert.ok(!existsSync(out), `${name}: no result folder`);
    });
  }

  it('distinct values that resolve differently still make a study (no false alarm)', () => {
    const experiment = loadExperiment(study('distinct', 'sweep:\n  migration.migrants: [0.02, "4%"]\nrepeats: 1'));
    assert.equal(experiment.cells.length, 2);
  });
});

describe('class 5: a cap on cells and on runs, checked before the cells are built', () => {
  // [name, YAML after base, what the line must say]
  const cases: [string, string, RegExp][] = [
    [
      '100,000 cells',
      `sweep:\n  migration.interval: ${ints(100)}\n  migration.migrants: ${ints(1000)}\nrepeats: 1`,
      new RegExp(`sweep: 100000 cells \\(100 × 1000\\); expected at most ${MAX_CELLS} cells`),
    ],
    [
      'one key past the cap',
      `sweep:\n  migration.interval: ${ints(MAX_CELLS + 1)}`,
      new RegExp(`sweep: ${MAX_CELLS + 1} cells \\(${MAX_CELLS + 1}\\); expected at most ${MAX_CELLS} cells`),
    ],
    [
      'cells × seeds',
      `sweep:\n  migration.interval: ${ints(200)}\nrepeats: 10000`,
      new RegExp(`sweep: 200 cells × 10000 seeds = 2000000 runs; expected at most ${MAX_RUNS} runs`),
    ],
  ];
  for (const [name, rest, expected] of cases) {
    it(`${name}: one line naming the count, exit 2, no manifest`, async () => {
      const out = join(tmp, `out-${name.replace(/\W+/g, '-')}`);
      const line = oneLine(await cliInProcess(['experiment', study(name.replace(/\W+/g, '-'), rest), '--out', out]), name);
      assert.match(line, expected);
      assert.ok(!existsSync(out), `${name}: no result folder, no manifest`);
    });
  }

  it('a study at the cap is not refused for its size', () => {
    const experiment = loadExperiment(study('at-cap', `sweep:\n  migration.interval: ${ints(100)}\nrepeats: ${MAX_RUNS / 100}`));
    assert.equal(experiment.cells.length * experiment.seeds.length, MAX_RUNS);
  });
});

describe('class 5: report honours SIGINT, SIGTERM and SIGHUP', () => {
  const dir = join(tmp, 'study');
  before(() => {
    const file = study('signalled', 'sweep:\n  migration.interval: [1, 5]\nrepeats: 2');
    const r = cli(['experiment', file, '--out', dir]);
    assert.equal(r.code, 0, r.stderr);
  });
  // The signal goes as soon as report has claimed the signals, long before its worker thread has
  // rendered the page (vega loads and draws for hundreds of ms): report's own thread hears it at
  // once, says so in one line and ends with 128 + n, having written nothing. (Before, a step that
  // removed report's listeners to run with the signal's default action could drop a signal caught
  // but not yet handed on: 2 to 30 runs in 100 wrote both files and exited 0.)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as StopSignal[]) {
    it(`${signal}: exit ${SIGNAL_EXIT_CODE[signal]} and one line; no page and no temporary file`, async () => {
      const out = join(tmp, `html-${signal}`);
      mkdirSync(out);
      const live = spawnCli(['report', dir, '--html', join(out, 'x.html'), '--csv', join(out, 'x.csv')], {
        env: { [SIGNAL_NOTE_ENV]: '1' },
      });
      await live.waitForStderr(/signals claimed/);
      live.child.kill(signal);
      const exit = await live.exited;
      assert.deepEqual([exit.code, exit.signal], [SIGNAL_EXIT_CODE[signal], null], live.stderr());
      // The test hook's notes, then the one line: nothing else (no stack trace, no "wrote").
      assert.match(
        live.stderr(),
        new RegExp(
          `^signal handlers installed\\nsignals claimed\\n(report work started\\n)?nqueens-islands: ${signal}: report stopped; a file it named as written is whole, no other was written\\n$`,
        ),
      );
      assert.equal(live.stdout(), '');
      assert.deepEqual(readdirSync(out), [], 'nothing written, no temporary file left');
    });
  }

  it("a signal during a long step (a big study's statistics) ends report at once with its line, writing nothing", async () => {
    const seeds = Array.from({ length: 8000 }, (_, i) => ({
      seed: i + 1,
      solved: i % 3 > 0,
      evaluations: 1000 + ((i * 7919) % 5000),
      iterations: 10,
    }));
    const big = handMadeStudy(tmp, 'big', 100, { 1: seeds, 2: seeds });
    const out = join(tmp, 'html-big');
    mkdirSync(out);
    const live = spawnCli(['report', big, '--html', join(out, 'x.html'), '--ioh', join(out, 'ioh')], { env: { [SIGNAL_NOTE_ENV]: '1' } });
    // The worker thread then reads 16,000 runs and computes their statistics: seconds of synchronous work.
    await live.waitForStderr(/report work started\n/);
    live.child.kill('SIGTERM');
    const exit = await live.exited;
    assert.deepEqual([exit.code, exit.signal], [SIGNAL_EXIT_CODE.SIGTERM, null], live.stderr());
    assert.match(
      live.stderr(),
      /^signal handlers installed\nsignals claimed\nreport work started\nnqueens-islands: SIGTERM: report stopped; a file it named as written is whole, no other was written\n$/,
    );
    assert.equal(live.stdout(), '');
    assert.deepEqual(readdirSync(out), [], 'nothing written, no staging folder left');
  });

  // The binary makes the report in a worker thread, runCli in its own: an error crosses as data.
  for (const [what, args] of [
    ['a --run that names no cell (ConfigError)', ['--run', 'nope@1']],
    ["--paper-table1 on a study that is not the paper's (ConfigError)", ['--paper-table1']],
    ['a --baseline no cell has (ConfigError)', ['--baseline', 'migration.interval=7']],
  ] as const) {
    it(`${what}: from the worker thread, the same one line and exit 2 as in-process`, async () => {
      const binary = oneLine(cli(['report', dir, ...args]), what);
      assert.equal(binary, oneLine(await cliInProcess(['report', dir, ...args]), what));
    });
  }

  it('an error crosses a real MessagePort as the same class, message and fields (describeError, rebuiltError)', async () => {
    const channel = new MessageChannel();
    const cross = (error: unknown) =>
      new Promise<Error>((resolve) => {
        channel.port2.once('message', (data: ErrorData) => resolve(rebuiltError(data)));
        channel.port1.postMessage(describeError(error));
      });
    try {
      const config = await cross(new ConfigError('--run x: no cell x'));
      assert.ok(config instanceof ConfigError);
      assert.equal(config.message, '--run x: no cell x');
      const input = await cross(new UsageError('a flag')); // an InputError class the report's work does not throw
      assert.ok(input instanceof InputError);
      assert.equal(input.message, 'a flag');
      const errno = await cross(Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE', path: '/s/runs.jsonl' }));
      assert.ok(!(errno instanceof InputError));
      assert.deepEqual(fatalLine(errno), {
        line: "too many open files, this process's limit (ulimit -n) reached (at /s/runs.jsonl): raise it and run again",
        code: 3,
      });
      assert.equal(fatalLine(await cross('thrown text')).line, 'internal error: thrown text');
    } finally {
      channel.port1.close();
    }
  });

  it('without a signal the same command writes both files', () => {
    const out = join(tmp, 'html-none');
    mkdirSync(out);
    const r = cli(['report', dir, '--html', join(out, 'x.html'), '--csv', join(out, 'x.csv')]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readdirSync(out).sort(), ['x.csv', 'x.html']);
  });
});

describe("class 6: a big study's curves are computed, never a stack overflow", () => {
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
