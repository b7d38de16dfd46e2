/**
 * A crashing island, through the real CLI and a real worker: the test-only fault hook
 * (NQUEENS_ISLANDS_TEST_FAULT=island:iteration:throw|exit) makes one island's worker throw
 * or exit on purpose. `continue` solves anyway and records the dead island; `fail` stops
 * the run with exit 3 and a one-line error naming the island.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Evolver } from '../src/ga/evolver.ts';
import { installTestFault, parseTestFault } from '../src/archipelago/test-fault.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { checkTestFaultEnv } from '../src/run/test-fault.ts';
import { cli } from './cli-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-fail-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const RUN = ['solve', '-n', '40', '--seed', '1', '--islands', '2'];
const fault = (spec: string) => ({ env: { NQUEENS_ISLANDS_TEST_FAULT: spec } });

describe('an island that fails', () => {
  for (const kind of ['throw', 'exit'] as const) {
    it(`continue (default): the run still solves and records island 1's ${kind} at iteration 3`, () => {
      const out = join(tmp, `continue-${kind}.json`);
      // An exit ends the island's thread: on two threads (a run this small defaults to one,
      // whose islands would all end with it) island 0 goes on alone.
      const threads = kind === 'exit' ? ['--threads', '2'] : [];
      const r = cli([...RUN, ...threads, '--json', '--out', out], fault(`1:3:${kind}`));
      assert.equal(r.code, 0, r.stderr);
      const record = JSON.parse(r.stdout);
      assert.equal(record.solved, true);
      assert.equal(record.ended, 'solved');
      assert.equal(record.foundBy, 0);
      assert.deepEqual(validateSolution(record.solution), { valid: true });
      assert.equal(record.failures.length, 1);
      assert.equal(record.failures[0].island, 1);
      assert.equal(record.failures[0].iteration, 3);
      assert.match(record.failures[0].message, kind === 'throw' ? /test fault: island 1 throws at iteration 3/ : /exited with code/);
      assert.deepEqual(record.islands[1].error, { message: record.failures[0].message, iteration: 3 });
      assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')).failures, record.failures);
      assert.match(r.stderr, /island 1 failed at iteration 3: .*; the others went on/);
    });
  }

  it('continue, text output: the summary counts the failed island', () => {
    const r = cli([...RUN, '--quiet'], fault('1:3:throw'));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^solved N=40: /);
    assert.match(r.stdout, /2 islands \(1 failed\)/);
  });

  it('fail: exit 3, one error line naming the island, the best so far still printed and saved', () => {
    const out = join(tmp, 'fail.json');
    const r = cli([...RUN, '-n', '60', '--on-island-error', 'fail', '--json', '--out', out], fault('1:2:throw'));
    assert.equal(r.code, 3, r.stderr);
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => !/started N=/.test(l));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^nqueens-islands: island 1 failed at iteration 2: test fault: .*; run stopped \(--on-island-error fail\)$/);
    const record = JSON.parse(r.stdout);
    assert.equal(record.solved, false);
    assert.equal(record.ended, 'island-failed');
    assert.equal(record.best.length, 60);
    assert.deepEqual(
      record.failures.map((f: { island: number }) => f.island),
      [1],
    );
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).ended, 'island-failed');
  });

  it('the fault hook is not a config key', () => {
    const r = cli(['config', 'print', '-n', '8', '--json'], fault('0:1:throw'));
    assert.equal(r.code, 0);
    assert.ok(!/fault/i.test(r.stdout));
  });

  it('`*` for the island is every island: each one acts the fault out, and solve accepts it for any island count', () => {
    assert.deepEqual(parseTestFault('*:10:slow:100'), { island: '*', atIteration: 10, kind: 'slow', delayMs: 100 });
    const acted = (spec: string, island: number) => {
      const evolver = { iterations: 3, step: () => 'stepped' } as unknown as Evolver;
      installTestFault(parseTestFault(spec)!, () => assert.fail('no exit'))(evolver, island);
      try {
        evolver.step();
        return false;
      } catch {
        return true;
      }
    };
    assert.deepEqual(
      [0, 1, 7].map((island) => acted('*:3:throw', island)),
      [true, true, true],
    );
    assert.deepEqual(
      [0, 1, 7].map((island) => acted('1:3:throw', island)),
      [false, true, false],
    );
    checkTestFaultEnv(1, { NQUEENS_ISLANDS_TEST_FAULT: '*:3:throw' });
    assert.throws(() => checkTestFaultEnv(1, { NQUEENS_ISLANDS_TEST_FAULT: '1:3:throw' }), /island 1 does not exist/);
  });
});
