/**
 * Text from files cannot act on a terminal or a spreadsheet: report's table, --json and --csv
 * carry no control character, --json stays exactly the data, and a CSV cell that a spreadsheet
 * would take as a formula starts with a quote.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { safeText } from '../src/io/terminal.ts';
import { csvField } from '../src/report/page/table.ts';
import { cli, cliInProcess } from './cli-helpers.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A small study file (fast runs); `sweep` as YAML text. */
const studyFile = (name: string, sweep: string, seeds = '[1, 2]') => studyYaml(tmp, name, `sweep:\n${sweep}\nseeds: ${seeds}`);

// ---------------------------------------------------------------------------------------
// Class 2: output carries no commands.

describe('formulas and terminal escapes from files are neutralised', () => {
  const hostile = ['=HYPERLINK("http://x")', '\u001b]0;pwn\u0007\u001b[2Jx', '+1', '-2+3', '@SUM(A1)', '\tx', '\rx', '\u009b31m'];
  const out = join(tmp, 'hostile-study');
  before(async () => {
    const file = studyFile('hostile', `  output.file: ${JSON.stringify(hostile)}`, '[1]');
    const r = await cliInProcess(['experiment', file, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
  });

  it('report (table, --json) and report --csv to stdout carry no control character', () => {
    for (const args of [[], ['--json'], ['--csv', '/dev/stdout']]) {
      const r = cli(['report', out, ...args]);
      assert.equal(r.code, 0, r.stderr);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(r.stdout + r.stderr, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, args.join(' '));
      assert.match(r.stdout, /\\u001b\]0;pwn\\u0007\\u001b\[2Jx/);
    }
  });

  it('report --json stays exactly the data (the escapes mean the same characters)', async () => {
    const r = await cliInProcess(['report', out, '--json']);
    const cells = (JSON.parse(r.stdout) as { cells: { values: Record<string, unknown> }[] }).cells.map((c) => c.values['output.file']);
    assert.deepEqual(cells.sort(), [...hostile].sort());
  });

  it('report --csv: every text cell that a spreadsheet would take as a formula starts with a quote', async () => {
    const csv = join(tmp, 'hostile.csv');
    assert.equal((await cliInProcess(['report', out, '--csv', csv])).code, 0);
    const fields = readFileSync(csv, 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split(',')[1]);
    for (const field of fields) assert.doesNotMatch(field.replace(/^"/, ''), /^[=+\-@\t\r]/, field);
  });

  it('csvField and safeText, case by case', () => {
    const table: [unknown, string][] = [
      ['=1+1', "'=1+1"],
      ['+1', "'+1"],
      ['-1', "'-1"],
      ['@A', "'@A"],
      ['\tA', "'\tA"],
      ['\rA', "'\\u000dA"],
      [-1, '-1'],
      ['a,b', '"a,b"'],
      ['\u001b[2J', '\\u001b[2J'],
      ['ok', 'ok'],
    ];
    for (const [value, want] of table) assert.equal(csvField(value), want, JSON.stringify(value));
    assert.equal(safeText('a\u202eb\u0085c\nd\te'), 'a\\u202eb\\u0085c\nd\te');
  });
});
