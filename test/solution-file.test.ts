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
import { RowArray, toRows, TYPED_ROWS_N } from '../src/problem/genes.ts';
import { noSharedLine, validateSolution } from '../src/problem/validate.ts';
import { toRunRecord } from '../src/experiment/records.ts';
import type { SolveRecord } from '../src/run/result-record.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-solution-file-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const joined = (chunks: Iterable<string>) => [...chunks].join('');
const writeBin = (rows: ArrayLike<number>, name: string) => {
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

  it('typed rows (RowArray) write the same JSON, rows and .bin as the array of numbers', () => {
    const numbers = construct(5000);
    const typed = RowArray.from(numbers);
    assert.ok(typed instanceof RowArray);
    assert.equal(JSON.stringify({ solution: typed }), JSON.stringify({ solution: numbers }));
    const record = { n: 5000, solution: typed, best: typed, islands: [{ best: typed }] };
    assert.equal(joined(jsonChunks(record)), JSON.stringify({ n: 5000, solution: numbers, best: numbers, islands: [{ best: numbers }] }));
    assert.equal(joined(jsonChunks(typed)), JSON.stringify(numbers));
    assert.equal(joined(rowLines(typed)), joined(rowLines(numbers)));
    assert.deepEqual(readFileSync(writeBin(typed, 'typed.bin')), readFileSync(writeBin(numbers, 'numbers.bin')));
    // Genes become typed rows from TYPED_ROWS_N on, an array of numbers below.
    assert.ok(Array.isArray(toRows(new Int32Array(TYPED_ROWS_N - 1))));
    const rows = toRows(Int32Array.from({ length: TYPED_ROWS_N }, (_, i) => TYPED_ROWS_N - 1 - i));
    assert.ok(rows instanceof RowArray && rows[0] === TYPED_ROWS_N && rows[TYPED_ROWS_N - 1] === 1);
  });

  it("a study's record holds typed rows as an array of numbers (plain data for the bus and the record-consistency checks)", () => {
    const rows = toRows(Int32Array.from({ length: TYPED_ROWS_N }, (_, i) => i));
    const record = { seed: 1, solved: true, solution: rows, islands: [] } as unknown as SolveRecord;
    const run = toRunRecord({ id: 'c', values: {} }, record);
    assert.ok(Array.isArray(run.solution) && run.solution.length === TYPED_ROWS_N && run.solution[5] === 6);
  });

  it('the validator checks a board past its cache (N >= 2^23) by kind of line, and names the first conflict as below', () => {
    const n = 2 ** 23 + 1;
    const rows = RowArray.from(construct(n));
    assert.deepEqual(validateSolution(rows), { valid: true });
    assert.equal(noSharedLine(rows), true);
    const swapped = rows.slice();
    [swapped[n - 2], swapped[n - 1]] = [swapped[n - 1], swapped[n - 2]];
    assert.equal(noSharedLine(swapped), false, 'a permutation with a shared diagonal');
    const clash = (edit: (r: Uint32Array) => void) => {
      const r = RowArray.from(rows);
      edit(r);
      return (validateSolution(r) as { reason: string }).reason;
    };
    assert.match(
      clash((r) => (r[7] = r[3])),
      /row \d+ is used twice/,
    );
    assert.match(
      clash((r) => ([r[0], r[1]] = [r[1], r[0]])),
      /column 3 shares a ↗ diagonal/,
    );
    assert.match(
      clash((r) => (r[n - 1] = 0)),
      new RegExp(`column ${n} holds 0, outside`),
    );
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
