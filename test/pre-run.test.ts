/**
 * One module checks a run before it starts, for the library and the CLI alike
 * (src/run/pre-run.ts): the same refusals, each in its caller's words.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startRun } from '../src/index.ts';
import { TEST_FAULT_ENV } from '../src/archipelago/test-fault.ts';
import { checkBeforeRun, checkpointSeconds } from '../src/run/pre-run.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-pre-run-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => path.join(dir, name);

/** The message of what `check` throws (it must throw). */
function refusal(check: () => unknown): string {
  try {
    check();
  } catch (error) {
    return (error as Error).message;
  }
  assert.fail('expected a refusal');
}

describe('the checks before a run', () => {
  it('refuses a result format, a file named twice, an output over the run config; a checkpoint may go where it resumed from', () => {
    const result = (f: string | null) => ({ name: '--out', file: f });
    assert.match(
      refusal(() => checkBeforeRun(2, { result: result(file('r.csv')) })),
      /^--out .*r\.csv: no result format for \.csv/,
    );
    assert.match(
      refusal(() => checkBeforeRun(2, { result: result(file('r.json')), trace: { name: '--trace', file: file('r.json') } })),
      /^--trace .*r\.json: the same file as --out/,
    );
    assert.match(
      refusal(() =>
        checkBeforeRun(2, {
          result: result(null),
          trace: { name: '--trace', file: file('c.json') },
          resume: { name: '--resume', file: file('c.json') },
        }),
      ),
      /the same file as --resume/,
    );
    const config = file('run.json');
    writeFileSync(config, '{"n": 8}\n');
    assert.match(
      refusal(() => checkBeforeRun(2, { result: result(config), inputs: [{ name: 'the run config', file: config }] })),
      /run config/,
    );
    checkBeforeRun(2, {
      result: result(null),
      checkpoint: { name: '--checkpoint', file: file('c.json') },
      resume: { name: '--resume', file: file('c.json') },
    });
    assert.equal(
      refusal(() => checkpointSeconds('--checkpoint-every', 0, '"0"')),
      '--checkpoint-every: expected a number of seconds > 0, at most 2147483 (24.8 days), got "0"',
    );
    assert.equal(checkpointSeconds('x', 2.5), 2.5);
  });

  it('the library refuses as the CLI does, in its own option names: nothing starts', () => {
    const csv = file('out.csv');
    const fromLibrary = refusal(() => startRun({ n: 8, islands: 2, output: { file: csv } }));
    assert.equal(
      fromLibrary,
      refusal(() => checkBeforeRun(2, { result: { name: 'output.file', file: csv } })),
    );
    const json = file('same.json');
    assert.match(
      refusal(() => startRun({ n: 8, islands: 2, output: { file: json } }, { checkpoint: { file: json } })),
      /^checkpoint\.file .*: the same file as output\.file/,
    );
  });

  it('the library checks the test-only fault hook as `solve` does (workers would ignore a malformed one)', () => {
    const before = process.env[TEST_FAULT_ENV];
    process.env[TEST_FAULT_ENV] = '5:3:throw';
    try {
      assert.match(
        refusal(() => startRun({ n: 8, islands: 2 })),
        new RegExp(`^${TEST_FAULT_ENV}: island 5 does not exist`),
      );
    } finally {
      if (before === undefined) delete process.env[TEST_FAULT_ENV];
      else process.env[TEST_FAULT_ENV] = before;
    }
  });
});
