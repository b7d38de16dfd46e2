// @unit: in-process and quick; `npm run test:unit` runs it.
/**
 * A run record that contradicts itself is refused wherever it lands: in a study folder the
 * report reads (test/input-refusals.test.ts drives that through the CLI) and from a host
 * (the coordinator's recordProblem). An unsolved run is censored at its evaluations, so
 * nothing in it may have reached fitness 0; a trajectory must be a course of its run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordProblem } from '../src/cluster/result-checks.ts';
import { recordContradiction } from '../src/experiment/record-consistency.ts';
import type { RunRecord } from '../src/experiment/records.ts';

const N = 12;
/** A solved 12-queens run of two islands, island 1 the finder. */
function solved(): RunRecord {
  const island = (id: number, bestFitness: number) => ({
    id,
    iterations: 20,
    evaluations: 125,
    evaluationsAfterSolution: null,
    bestFitness,
    migrantsSent: 0,
    migrantsAccepted: 0,
  });
  return {
    cell: 'a',
    values: {},
    seed: 1,
    solved: true,
    fitness: 0,
    seconds: 0.1,
    iterations: 20,
    evaluations: 250,
    evaluationsAfterSolution: null,
    foundBy: 1,
    stopLatencyMs: 0.1,
    migrantsSent: 0,
    migrantsAccepted: 0,
    islands: [island(0, 2), island(1, 0)],
    solution: [2, 4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 11],
    error: null,
    finishedAt: '2026-01-01T00:00:00.000Z',
    trajectory: [
      [40, 5],
      [100, 3],
      [250, 0],
    ],
  };
}

/** The same run stopped by its limit at fitness 2, consistent in every field. */
function unsolved(): RunRecord {
  const r = solved();
  return {
    ...r,
    solved: false,
    fitness: 2,
    foundBy: null,
    solution: null,
    islands: r.islands.map((i) => ({ ...i, bestFitness: 2 + i.id })),
    trajectory: [
      [40, 5],
      [100, 3],
      [250, 2],
    ],
  };
}

const cases: [string, () => RunRecord, RegExp][] = [
  // With its run's island count (2), as a study's reader and --resume check it.
  [
    'an island twice, and one past the run',
    () => ({ ...solved(), islands: [solved().islands[1], solved().islands[1], { ...solved().islands[0], id: 7 }] }),
    /^islands: lists \[1,1,7\], expected each of 0 to 1 once$/,
  ],
  ['a finder past the islands', () => ({ ...solved(), foundBy: 99 }), /^names island 99 as its finder, of 2 islands$/],
  ['unsolved with fitness 0', () => ({ ...unsolved(), fitness: 0 }), /^is unsolved with fitness 0, which only a solution has$/],
  ['unsolved with a valid solution', () => ({ ...unsolved(), solution: solved().solution }), /^is unsolved but holds a solution$/],
  ['unsolved with a finder', () => ({ ...unsolved(), foundBy: 0 }), /^is unsolved but names island 0 as its finder$/],
  [
    'unsolved with an island at 0',
    () => ({ ...unsolved(), islands: solved().islands.map((i) => ({ ...i, bestFitness: i.id === 1 ? 0 : 2 })) }),
    /^is unsolved but its island 1 reached fitness 0$/,
  ],
  ['unsolved, its trajectory at 0', () => ({ ...unsolved(), trajectory: solved().trajectory }), /^is unsolved but its trajectory reaches/],
  [
    'solved, its trajectory ending above 0',
    () => ({ ...solved(), trajectory: unsolved().trajectory }),
    /^is solved but its trajectory ends at fitness 2, expected 0$/,
  ],
  ['solved, no solution', () => ({ ...solved(), solution: null }), /^is solved but holds no solution$/],
  ['an island below the run', () => ({ ...unsolved(), fitness: 3, trajectory: [[250, 3]] }), /^has fitness 3 but its island 0 reached 2$/],
  [
    'a trajectory whose fitness rises',
    () => ({
      ...solved(),
      trajectory: [
        [40, 3],
        [100, 5],
        [250, 0],
      ],
    }),
    /^has a trajectory that goes back at point 2 \(\[100,5\]\)$/,
  ],
  [
    'a trajectory whose evaluations fall',
    () => ({
      ...solved(),
      trajectory: [
        [100, 5],
        [40, 3],
        [250, 0],
      ],
    }),
    /^has a trajectory that goes back at point 2 \(\[40,3\]\)$/,
  ],
  [
    'a trajectory past the run',
    () => ({ ...solved(), evaluations: 249 }),
    /^has a trajectory point past its 249 evaluations \(\[250,0\]\)$/,
  ],
  [
    'a trajectory below the run',
    () => ({
      ...unsolved(),
      trajectory: [
        [40, 5],
        [100, 1],
        [250, 1],
      ],
    }),
    /^has a trajectory point below its fitness 2 \(\[100,1\]\)$/,
  ],
];

describe('a run record that contradicts itself', () => {
  it('a consistent solved run and a consistent unsolved run pass, with and without a trajectory', () => {
    for (const r of [solved(), unsolved(), { ...solved(), trajectory: undefined }, { ...unsolved(), trajectory: [] }])
      assert.equal(recordContradiction(r, N, 2), null);
  });
  for (const [name, make, expected] of cases) {
    it(`${name}: refused, naming what disagrees`, () => {
      assert.match(recordContradiction(make(), N, 2) ?? 'passed', expected);
    });
  }
  it('the coordinator refuses such a record from a host (recordProblem), and takes the consistent one', () => {
    const planned = { cell: 'a', seed: 1, n: N, islands: 2 };
    assert.equal(recordProblem({ ...unsolved() }, [], planned), null);
    const record = { ...unsolved(), trajectory: solved().trajectory };
    assert.match(recordProblem(record, [], planned) ?? 'passed', /^record is unsolved but its trajectory reaches fitness 0$/);
  });
});
