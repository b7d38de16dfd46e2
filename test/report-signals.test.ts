/**
 * `report` stops promptly on SIGINT, SIGTERM or SIGHUP, in a long step too, with one line and
 * no page or temporary file; its worker thread's errors reach the CLI as the same class, message
 * and exit code. The signal cases run the binary.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { UsageError } from '../src/cli/errors.ts';
import { fatalLine } from '../src/cli/fatal.ts';
import { SIGNAL_EXIT_CODE, SIGNAL_NOTE_ENV, type StopSignal } from '../src/cli/signals.ts';
import { ConfigError } from '../src/config/errors.ts';
import { InputError } from '../src/io/errors.ts';
import { describeError, rebuiltError, type ErrorData } from '../src/report/report-messages.ts';
import { cli, cliInProcess, oneLine, spawnCli } from './cli-helpers.ts';
import { handMadeStudy } from './hand-study.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel-studies-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A study file with a small base (8 queens, 2 islands), `rest` as YAML lines (sweep, seeds, ...). */
const study = (name: string, rest: string) => studyYaml(tmp, name, rest, 2);

describe('report honours SIGINT, SIGTERM and SIGHUP', () => {
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
