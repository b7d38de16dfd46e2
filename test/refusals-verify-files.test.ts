/**
 * `verify --file` on hostile files (issue 47, fifth round): each is one line naming the file
 * and what is wrong, exit 2, no stack trace, no hang; a value JSON cannot write (1e400) is
 * shown as what was read. Through the bundle.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { cliAsync, inBatches } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-refusals-verify-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** [file name, how it is made (text, or a maker), what the one line must say after `NAME: ` or `--file NAME: `] */
const FILES: [string, string | ((file: string) => void), RegExp][] = [
  ['dup.json', '{"solution":[1,2],"solution":[2,1]}', /key "solution" appears twice in one object/],
  ['proto.json', '{"__proto__":{"solution":[1]}}', /key "__proto__" is not allowed/],
  ['deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, /nested deeper than 256 levels/],
  ['inf.json', '[[1e400, 2]]', /tuple 1: Infinity is not a positive integer/],
  ['frac.json', '[[1.5, 2]]', /tuple 1: 1\.5 is not a positive integer/],
  ['past-2-53.json', '[[9007199254740993, 1]]', /tuple 1: 9007199254740992 is not a positive integer/],
  ['empty-tuple.json', '[[]]', /tuple 1: empty tuple/],
  ['null-solution.json', '{"solution": null}', /key "solution": expected an array of row numbers/],
  ['empty.txt', '', /the file is empty, expected tuples/],
  ['binary.txt', '\xff\xfe\x00\x01', /:1: ".*" is not a positive integer/],
  ['ragged.txt', '1 2 3\n4 5\n', /tuple 2: row 4 in column 1 is out of range 1\.\.2/],
  ['short.bin', '\x01\x00\x00', /not a \.bin solution/],
  ['fifo', (f) => execFileSync('mkfifo', [f]), /is a FIFO \(named pipe\); expected a file of tuples/],
  ['folder', (f) => mkdirSync(f), /is a directory; expected a file of tuples/],
  ['dangling', (f) => symlinkSync(path.join(dir, 'nowhere'), f), /no such file/],
  ['/dev/zero', () => {}, /is a device; expected a file of tuples/],
];

describe('verify --file refuses hostile files: one line naming the file, exit 2', () => {
  it('each file', async () => {
    const rows = FILES.map(([name, make, says]) => {
      const file = name.startsWith('/') ? name : path.join(dir, name);
      if (typeof make === 'string') writeFileSync(file, make, 'latin1');
      else make(file);
      return { file, says };
    });
    const results = await inBatches(rows, 4, ({ file }) => cliAsync(['verify', '--file', file]));
    results.forEach((r, i) => {
      const { file, says } = rows[i];
      assert.equal(r.code, 2, `${file}: ${r.stderr}`);
      assert.equal(r.stdout, '', file);
      assert.equal(r.stderr.split('\n').length, 2, `${file}: one line: ${r.stderr}`);
      assert.ok(r.stderr.startsWith(`nqueens-islands: ${file}`) || r.stderr.startsWith(`nqueens-islands: --file ${file}`), r.stderr);
      assert.match(r.stderr, says, file);
    });
  });
});
