// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
/**
 * Bad input, everywhere: every case of the table (bad-input-cases.ts) runs the command line in
 * this process (`runCli`: the binary's parsing and checks, no process per case) and must
 * answer with one line on stderr that names the flag, file or key and what was expected,
 * exit code 2, no stack trace, nothing on stdout, and no result file (solve cases pass --out
 * to a temporary path). No build needed; bad-input-binary.test.ts runs a dozen of them through the binary.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertSays, cases, file, runCase, tmp } from './bad-input-cases.ts';
import { cliInProcess } from './cli-helpers.ts';

describe('bad input: one line naming what to fix, exit 2, nothing written', () => {
  it('has at least 50 cases', () => assert.ok(cases.length >= 50, `${cases.length} cases`));

  cases.forEach((c, i) => {
    const [name, , says, options = {}] = c;
    if (options.env) return;
    it(name, async () => assertSays(await runCase(c, i, 'in-process'), says));
  });
});

describe('boards without a solution', () => {
  for (const n of ['2', '3']) {
    it(`N = ${n} is answered at once: exit 1, "has no solution", no file`, async () => {
      const out = join(tmp, `n${n}.json`);
      const started = Date.now();
      const r = await cliInProcess(['solve', '-n', n, '--out', out]);
      assert.ok(Date.now() - started < 10_000);
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`N = ${n} has no solution`));
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.equal(existsSync(out), false);
    });
  }
});

describe('a good tuples file of mixed lengths is fine without -n', () => {
  it('checks each tuple as its own board', async () => {
    const mixed = file('mixed.txt', '2 4 1 3\n1\n');
    const r = await cliInProcess(['verify', '--file', mixed, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      JSON.parse(r.stdout).map((x: { n: number }) => x.n),
      [4, 1],
    );
    assert.equal(readFileSync(mixed, 'utf8'), '2 4 1 3\n1\n');
  });
});
