// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_BOARD_N, renderBoard } from '../src/problem/board.ts';
import { DiagonalMarks, fitness } from '../src/problem/fitness.ts';
import { allocGenes, fromOneBased, toOneBased } from '../src/problem/genes.ts';
import { referenceFitness } from '../src/problem/reference-fitness.ts';
import { smallBoardAnswer } from '../src/problem/small-boards.ts';
import { TupleSyntaxError } from '../src/problem/errors.ts';
import { formatTuple, parseTuple, parseTupleFile } from '../src/problem/tuple.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { paper, paperSolutions } from './helpers.ts';

/** A 1-based permutation of 1..n, drawn by fast-check. */
const permutation = (maxN: number) =>
  fc.integer({ min: 1, max: maxN }).chain((n) =>
    fc.shuffledSubarray(
      Array.from({ length: n }, (_, i) => i + 1),
      { minLength: n, maxLength: n },
    ),
  );

const fastFitness = (tuple: number[]) => fitness(fromOneBased(tuple), 0, tuple.length, new DiagonalMarks(tuple.length));

describe('fitness', () => {
  it("gives the paper's worked examples", () => {
    assert.equal(paper.examples.fitness.length, 3);
    for (const { tuple, fitness: expected } of paper.examples.fitness) {
      assert.equal(fastFitness(tuple), expected);
      assert.equal(referenceFitness(tuple), expected);
    }
  });

  it('is 0 for all 51 solutions printed in the paper', () => {
    assert.equal(paperSolutions.length, 51);
    for (const { solution } of paperSolutions) {
      assert.equal(fastFitness(solution), 0);
      assert.equal(referenceFitness(solution), 0);
    }
  });

  it("equals the paper's sort-based pseudo-code on thousands of random permutations", () => {
    fc.assert(
      fc.property(permutation(120), (tuple) => fastFitness(tuple) === referenceFitness(tuple)),
      { numRuns: 3000, seed: 42 },
    );
  });

  it('counts k - 1 per diagonal of k queens, not attacking pairs', () => {
    const identity = Array.from({ length: 10 }, (_, i) => i + 1);
    assert.equal(fastFitness(identity), 9);
    assert.equal(referenceFitness(identity), 9);
  });

  it('gives the same value when one DiagonalMarks is reused across many evaluations', () => {
    const marks = new DiagonalMarks(30);
    fc.assert(
      fc.property(
        permutation(30).filter((t) => t.length === 30),
        (tuple) => fitness(fromOneBased(tuple), 0, 30, marks) === referenceFitness(tuple),
      ),
      { numRuns: 500, seed: 7 },
    );
  });

  it('reads a chromosome at an offset inside a flat population', () => {
    const flat = allocGenes(8, 3);
    flat.set(fromOneBased([8, 6, 4, 1, 3, 5, 7, 2]), 8);
    assert.equal(fitness(flat, 8, 8, new DiagonalMarks(8)), 1);
  });
});

describe('genes', () => {
  it('uses Uint16Array up to N = 65,535 and Int32Array beyond', () => {
    assert.ok(allocGenes(65_535) instanceof Uint16Array);
    assert.ok(allocGenes(65_536) instanceof Int32Array);
  });

  it('converts between 0-based genes and 1-based tuples', () => {
    assert.deepEqual(toOneBased(fromOneBased([3, 1, 2])), [3, 1, 2]);
  });
});

describe('validateSolution', () => {
  it('accepts every paper solution', () => {
    for (const { solution } of paperSolutions) assert.deepEqual(validateSolution(solution), { valid: true });
  });

  it('rejects a diagonal clash, a repeated row, a row out of range and a wrong length', () => {
    assert.equal(validateSolution([8, 6, 4, 1, 3, 5, 7, 2]).valid, false);
    assert.match((validateSolution([2, 4, 1, 1]) as { reason: string }).reason, /row 1 is used twice/);
    assert.match((validateSolution([2, 4, 1, 5]) as { reason: string }).reason, /outside 1..4/);
    assert.match((validateSolution([2, 4, 1, 3], 5) as { reason: string }).reason, /expected 5/);
  });

  it('agrees with fitness 0 on random permutations', () => {
    fc.assert(
      fc.property(permutation(9), (tuple) => validateSolution(tuple).valid === (fastFitness(tuple) === 0)),
      { numRuns: 3000, seed: 3 },
    );
  });
});

describe('tuples', () => {
  it('reads the three written forms', () => {
    const expected = [8, 6, 4, 1, 3, 5, 7, 2];
    assert.deepEqual(parseTuple('8 6 4 1 3 5 7 2'), expected);
    assert.deepEqual(parseTuple('(8, 6, 4, 1, 3, 5, 7, 2)'), expected);
    assert.deepEqual(parseTuple('[8,6,4,1,3,5,7,2]'), expected);
    assert.equal(formatTuple(expected), '8 6 4 1 3 5 7 2');
  });

  it('rejects what is not a list of positive integers, naming the offending token', () => {
    assert.throws(
      () => parseTuple('8 6 x'),
      (e: Error) => e instanceof TupleSyntaxError && /"x" is not a positive integer/.test(e.message),
    );
    assert.throws(() => parseTuple('1 -2'), /"-2" is not a positive integer/);
    assert.throws(() => parseTuple('1 2.5'), /"2.5" is not a positive integer/);
    assert.throws(() => parseTuple('0 1'), /out of range/);
    assert.throws(() => parseTuple('(1 2'), /does not end with \)/);
    assert.throws(() => parseTuple('  '), /empty tuple/);
  });

  it('reads files: lines, a JSON array of arrays, a JSON solution object, one row per line', () => {
    assert.deepEqual(parseTupleFile('# paper\n8 6 4 1 3 5 7 2\n\n(2, 4, 1, 3)\n', 'f.txt'), [
      [8, 6, 4, 1, 3, 5, 7, 2],
      [2, 4, 1, 3],
    ]);
    assert.deepEqual(parseTupleFile('[[2,4,1,3],[3,1,4,2]]', 'f.json'), [
      [2, 4, 1, 3],
      [3, 1, 4, 2],
    ]);
    assert.deepEqual(parseTupleFile('{"n":4,"solution":[2,4,1,3]}', 'f.json'), [[2, 4, 1, 3]]);
    assert.deepEqual(parseTupleFile('[2, 4, 1, 3]', 'f.json'), [[2, 4, 1, 3]]);
    assert.deepEqual(parseTupleFile('2\n4\n1\n3\n', 'f.txt'), [[2, 4, 1, 3]]);
  });

  it('names the file and line of a bad entry', () => {
    assert.throws(() => parseTupleFile('1 2\n3 y\n', 'f.txt'), /f\.txt:2: "y" is not a positive integer/);
    assert.throws(() => parseTupleFile('', 'f.txt'), /f\.txt: the file is empty/);
    assert.throws(() => parseTupleFile('[[1,2],[3,"a"]]', 'f.json'), /tuple 2: "a" is not a positive integer/);
    assert.throws(() => parseTupleFile('{"solution": 3}', 'f.json'), /key "solution": expected an array/);
    assert.throws(() => parseTupleFile('[[1,2],', 'f.json'), /f\.json: not valid JSON/);
  });
});

describe('board', () => {
  it('draws one queen per column at its row, row N on top', () => {
    const lines = renderBoard([2, 4, 1, 3]).split('\n');
    assert.equal(lines.length, 4);
    const queenColumn = (line: string) => line.split(' ').indexOf('♛') + 1;
    assert.deepEqual(
      lines.map(queenColumn),
      [2, 4, 1, 3].map((_, i, t) => t.indexOf(4 - i) + 1),
    );
    for (const line of lines) assert.equal(line.split(' ').filter((c) => c === '♛').length, 1);
  });

  it(`refuses boards wider than ${MAX_BOARD_N}`, () => {
    assert.throws(() => renderBoard(Array.from({ length: MAX_BOARD_N + 1 }, (_, i) => i + 1)), /up to N = 40/);
  });
});

describe('small boards', () => {
  const permutations = (n: number): number[][] =>
    n === 0 ? [[]] : permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n, ...p.slice(i)]));

  it('answers N = 1 with its solution and N = 2, 3 as impossible, as exhaustive search confirms', () => {
    assert.deepEqual(smallBoardAnswer(1), { kind: 'solution', tuple: [1] });
    for (const n of [2, 3]) {
      assert.equal(smallBoardAnswer(n)?.kind, 'impossible');
      assert.ok(permutations(n).every((t) => !validateSolution(t).valid));
    }
    assert.equal(smallBoardAnswer(4), null);
    assert.ok(permutations(4).some((t) => validateSolution(t).valid));
  });
});
