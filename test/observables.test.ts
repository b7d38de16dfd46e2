// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BETWEEN_MAX_ISLANDS, betweenIslands, BetweenTracker } from '../src/archipelago/observables/between.ts';
import { hashGenes, observe } from '../src/archipelago/observables/sample.ts';
import { ImmigrantTracker, survivalRecords } from '../src/archipelago/observables/survival.ts';
import { isScheduledIteration } from '../src/archipelago/schedule.ts';
import { replaceWorstIfBetter } from '../src/migration-policy/replacements/worst-if-better.ts';
import { Population } from '../src/ga/population.ts';
import { Rng } from '../src/ga/rng.ts';
import { SurvivalScratch } from '../src/ga/survival.ts';

/** A population of the given members (N = their length) and fitness, ranked. */
function population(rows: number[][], fitness: number[]): Population {
  const n = rows[0].length;
  const pop = new Population(n, rows.length);
  rows.forEach((row, s) => {
    pop.genes.set(row, s * n);
    pop.fitness[s] = fitness[s];
  });
  pop.rerank();
  return pop;
}

describe('between-island observables on populations worked out by hand', () => {
  // Island A: a = 0123 (fitness 1), b = 1023 (2). Island B: c = 3210 (1), a = 0123 (2).
  const A = population(
    [
      [0, 1, 2, 3],
      [1, 0, 2, 3],
    ],
    [1, 2],
  );
  const B = population(
    [
      [3, 2, 1, 0],
      [0, 1, 2, 3],
    ],
    [1, 2],
  );

  it('distance: the mean Hamming distance over the 4 cross pairs, as a fraction of N', () => {
    // a-c 4, a-a 0, b-c 4, b-a 2: (4 + 0 + 4 + 2) / (4 pairs x 4 genes) = 10 / 16.
    const s = betweenIslands(0, [observe(A), observe(B)]);
    assert.deepEqual(s.distance, [
      [0, 10 / 16],
      [10 / 16, 0],
    ]);
    assert.equal(s.meanDistance, 10 / 16);
  });

  it('distinct genotypes: 3 among the 4 sampled members (a is on both islands)', () => {
    const s = betweenIslands(0, [observe(A), observe(B)]);
    assert.deepEqual([s.distinct, s.sampled], [3, 4]);
    assert.equal(observe(A).hashes[0], hashGenes([0, 1, 2, 3], 0, 4), 'rank 0 first');
  });

  it('three islands: the matrix is symmetric with a zero diagonal, the mean is over the 3 pairs', () => {
    const C = population(
      [
        [0, 1, 2, 3],
        [0, 1, 2, 3],
      ],
      [1, 1],
    );
    // A-C: a-a 0, a-a 0, b-a 2, b-a 2 -> 4 / 16; B-C: c-a 4, c-a 4, a-a 0, a-a 0 -> 8 / 16.
    const s = betweenIslands(5, [observe(A), observe(B), observe(C)]);
    assert.deepEqual(s.distance, [
      [0, 10 / 16, 4 / 16],
      [10 / 16, 0, 8 / 16],
      [4 / 16, 8 / 16, 0],
    ]);
    assert.equal(s.meanDistance, 22 / 48);
    assert.deepEqual([s.distinct, s.sampled], [3, 6]);
  });

  it('the tracker gives an iteration once every island observed it, in any order, and drops none twice', () => {
    const tracker = new BetweenTracker(2);
    assert.equal(tracker.add(1, 4, observe(B)), null);
    assert.equal(tracker.add(0, 8, observe(A)), null);
    const four = tracker.add(0, 4, observe(A));
    assert.equal(four?.iteration, 4);
    assert.equal(four?.meanDistance, 10 / 16);
    assert.deepEqual(tracker.series(), [{ iteration: 4, meanDistance: 10 / 16, distinct: 3, sampled: 4 }]);
  });

  it('has no final state while some island never observed, whichever islands did (a halt before their first sample)', () => {
    for (const observed of [[2], [1, 2], [0, 2], [1]]) {
      const tracker = new BetweenTracker(3);
      observed.forEach((island, k) => tracker.add(island, 3 + k, observe(island % 2 ? A : B)));
      assert.equal(tracker.final(), null, `islands ${observed.join(', ')} observed`);
    }
  });

  it('takes no sample above BETWEEN_MAX_ISLANDS islands (its pairs would hold up the coordinator), and does at the cap', () => {
    const full = (m: number) => {
      const tracker = new BetweenTracker(m);
      let sample = null;
      for (let k = 0; k < m; k++) sample = tracker.add(k, 0, observe(k % 2 ? A : B));
      return { sample, series: tracker.series().length };
    };
    assert.equal(full(BETWEEN_MAX_ISLANDS).series, 1);
    assert.deepEqual(full(BETWEEN_MAX_ISLANDS + 1), { sample: null, series: 0 });
  });

  it('samples at the iterations of the progress schedule', () => {
    const scheduled = Array.from({ length: 50 }, (_, i) => i).filter(isScheduledIteration);
    assert.deepEqual(scheduled, [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48]);
  });
});

describe('immigrant survival on a scripted migration', () => {
  it('counts received, accepted and still present k iterations later', () => {
    // Four members of fitness 1, 3, 5, 7; three immigrants of fitness 2, 4 and 9 arrive.
    const pop = population(
      [
        [0, 1, 2, 3],
        [1, 0, 2, 3],
        [2, 1, 0, 3],
        [3, 1, 2, 0],
      ],
      [1, 3, 5, 7],
    );
    const tracker = new ImmigrantTracker(2, 10);
    const immigrants = Uint16Array.from([0, 2, 1, 3, 0, 3, 2, 1, 3, 2, 1, 0]);
    const mark = tracker.mark(pop);
    const accepted = replaceWorstIfBetter(pop, new Rng([1, 2, 3, 4]), immigrants, Int32Array.from([2, 4, 9]), 3, new SurvivalScratch(4));
    assert.equal(accepted, 2, 'fitness 2 and 4 replace the members of 7 and 5; 9 is worse than all');
    tracker.taken(pop, mark, 0, 3, 30, 3, accepted);
    // Within k iterations: the immigrant 0213 (fitness 2) is overwritten by a child; 0321 stays.
    const slotOf = (genes: number[]) => [0, 1, 2, 3].find((s) => [0, 1, 2, 3].every((i) => pop.genes[s * 4 + i] === genes[i]))!;
    pop.copyIn(slotOf([0, 2, 1, 3]), Uint16Array.from([1, 2, 3, 0]), 0, 2);
    tracker.check(pop, 39);
    assert.deepEqual(survivalRecords(tracker.take()), [], 'not due before iteration 40');
    tracker.check(pop, 40);
    assert.deepEqual(survivalRecords(tracker.take()), [{ from: 0, to: 2, epoch: 3, iteration: 30, received: 3, accepted: 2, survived: 1 }]);
    assert.deepEqual([tracker.checked, tracker.survived], [2, 1]);
  });

  it('a member changed in place (not through copyIn) did not survive', () => {
    const pop = population(
      [
        [0, 1, 2, 3],
        [1, 0, 2, 3],
      ],
      [1, 7],
    );
    const tracker = new ImmigrantTracker(0, 1);
    const mark = tracker.mark(pop);
    pop.copyIn(1, Uint16Array.from([3, 2, 1, 0]), 0, 2);
    tracker.taken(pop, mark, 1, 0, 5, 1, 1);
    pop.genes[4] = 2;
    pop.genes[5] = 3; // 2310: a swap done in place
    tracker.check(pop, 6);
    assert.deepEqual(
      survivalRecords(tracker.take()).map((r) => r.survived),
      [0],
    );
  });
});

describe('reading observables back', () => {
  it('refuses an event log whose between or survival event lacks a field the report draws, naming the line', async () => {
    const { parseEventLines } = await import('../src/report/data/run-data.ts');
    const good = '{"type":"between","iteration":4,"distance":[[0,0.5],[0.5,0]],"meanDistance":0.5,"distinct":3,"sampled":4,"seconds":0}';
    assert.equal(parseEventLines(good, 'x.jsonl').length, 1);
    assert.throws(
      () =>
        parseEventLines(
          `${good}\n{"type":"between","iteration":8,"distance":"far","meanDistance":0.5,"distinct":3,"sampled":4}\n`,
          'x.jsonl',
        ),
      /x\.jsonl: line 2 is not an event \(distance: expected array/,
    );
    assert.throws(
      () => parseEventLines('{"type":"survival","from":0,"to":1,"iteration":3,"received":2,"accepted":1}\n', 'x.jsonl'),
      /line 1 is not an event \(survived: expected number/,
    );
  });
});
