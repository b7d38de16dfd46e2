// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
/**
 * Solutions written as they are read (src/problem/solution-file.ts): the chunked JSON is
 * JSON.stringify's text, the rows are the tuple, the `.bin` form round-trips, and its
 * streamed check agrees with checkTuple on every tuple, solution or not.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { checkTuple } from '../src/problem/check-tuple.ts';
import { TupleSyntaxError } from '../src/problem/errors.ts';
import { binaryRows, checkBinaryFile, jsonChunks, rowLines } from '../src/problem/solution-file.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-solution-file-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const joined = (chunks: Iterable<string>) => [...chunks].join('');
const writeBin = (rows: number[], name: string) => {
  const file = join(tmp, name);
  writeFileSync(file, Buffer.concat([...binaryRows(rows)].map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength))));
  return file;
};
/** A solution for every n != 2, 3 (the explicit construction of Hoffman, Loessi and Moore). */
function construct(n: number): number[] {
  const even = n % 2 === 0 ? n : n - 1;
  const rows: number[] = [];
  if (even % 6 !== 2) {
    for (let i = 1; i <= even / 2; i++) rows.push(2 * i);
    for (let i = 1; i <= even / 2; i++) rows.push(2 * i - 1);
  } else {
    for (let i = 1; i <= even / 2; i++) rows.push(1 + ((2 * (i - 1) + even / 2 - 1) % even));
    for (let i = even / 2; i >= 1; i--) rows.push(even - ((2 * (i - 1) + even / 2 - 1) % even));
  }
  if (n !== even) rows.push(n);
  return rows;
}

describe('solutions written in chunks', () => {
  it('the chunked JSON is JSON.stringify, long arrays included', () => {
    const long = Array.from({ length: 200_000 }, (_, i) => i + 1);
    const record = { n: long.length, solution: long, best: long, config: { out: '@@nqi-rows-x-0@@', short: [1, 2, 3] }, none: null };
    const chunks = [...jsonChunks(record)];
    assert.ok(chunks.length > 4, 'written in parts');
    assert.equal(chunks.join(''), JSON.stringify(record));
    assert.equal(joined(jsonChunks({ empty: [] })), '{"empty":[]}');
  });

  it('rows one a line, and the .bin form, hold the tuple', () => {
    const rows = construct(100_003);
    assert.equal(joined(rowLines(rows)), `${rows.join('\n')}\n`);
    const report = checkBinaryFile(writeBin(rows, 'big.bin'));
    assert.deepEqual(report, { n: rows.length, permutation: true, fitness: 0, solution: true, head: rows.slice(0, 10) });
  });

  it("the .bin check agrees with checkTuple's on any tuple of rows in 1..N", () => {
    let k = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }).chain((n) => fc.array(fc.integer({ min: 1, max: n }), { minLength: n, maxLength: n })),
        (rows) => {
          const { head, ...report } = checkBinaryFile(writeBin(rows, `t${k++}.bin`));
          assert.deepEqual(report, checkTuple(rows, 'tuple'));
          assert.deepEqual(head, rows.slice(0, 10));
        },
      ),
      { seed: 50, numRuns: 300 },
    );
    for (const n of [1, 4, 8, 1000]) assert.equal(checkBinaryFile(writeBin(construct(n), `s${n}.bin`)).solution, n !== 2 && n !== 3);
  });

  it('a file that is not a .bin solution is one clear error', () => {
    const file = writeBin([2, 4, 1, 3], 'ok.bin');
    const bytes = readFileSync(file);
    const cases: [string, Buffer | null, RegExp][] = [
      ['text.bin', Buffer.from('2 4 1 3\n'), /not a \.bin solution/],
      ['short.bin', bytes.subarray(0, bytes.length - 2), /its header says N = 4, so 32 bytes, but it has 30/],
      [
        'zero.bin',
        Buffer.concat([bytes.subarray(0, 16), Buffer.from([0, 0, 0, 0]), bytes.subarray(20)]),
        /row 0 in column 1 is out of range 1\.\.4/,
      ],
      ['missing.bin', null, /missing\.bin: no such file/],
    ];
    for (const [name, content, message] of cases) {
      const path = join(tmp, name);
      if (content) writeFileSync(path, content);
      assert.throws(
        () => checkBinaryFile(path),
        (e: Error) => e instanceof TupleSyntaxError && message.test(e.message),
      );
    }
    assert.throws(() => checkBinaryFile(tmp), /is not a regular file/);
  });
});
