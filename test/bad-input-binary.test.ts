/**
 * The built binary answers bad input as `runCli` does: a dozen cases of the table
 * (bad-input-cases.ts), one of each kind (a flag value, an unknown flag and command, a flag
 * without its value, a config key, a missing folder, a checkpoint, a tuple, an environment
 * variable, a directory for a file), run through `dist/bundle` (what the bin runs) and in-process must give the same
 * exit code and the same output. Also N = 2 (no solution: exit 1).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { assertSays, cases, runCase, tmp } from './bad-input-cases.ts';
import { cliAsync, inBatches, type CliRun } from './cli-helpers.ts';

describe('bad input through the built binary: one case of each kind answers exactly as in-process', () => {
  const picked = cases.map((c, i) => [c, i] as const).filter(([[, , , options = {}]]) => options.binary || options.env);
  it('picks twelve cases of different kinds', () => assert.equal(picked.length, 12));
  let results: { binary: CliRun; inProcess: CliRun | null }[] = [];
  // The processes run a few at a time; each result is checked by its own test below.
  before(async () => {
    results = await inBatches(picked, 4, async ([c, i]) => ({
      binary: await runCase(c, i, 'binary'),
      inProcess: c[3]?.env ? null : await runCase(c, i, 'in-process'),
    }));
  });
  picked.forEach(([[name, , says]], k) => {
    it(name, () => {
      const { binary, inProcess } = results[k];
      assertSays(binary, says);
      // The output folder differs between the two runs; the rest of the answer may not.
      if (inProcess) assert.deepEqual(binary, { ...inProcess, stderr: inProcess.stderr.replaceAll('in-process', 'binary') });
    });
  });
});

describe('a board without a solution through the binary', () => {
  it('N = 2: exit 1, "has no solution" in one line, no file', async () => {
    const out = join(tmp, 'n2.json');
    const r = await cliAsync(['solve', '-n', '2', '--out', out]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^nqueens-islands: N = 2 has no solution/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.equal(existsSync(out), false);
  });
});
