// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { planRuns } from '../src/experiment/runner.ts';
import { baselineOf, cellFileName, cellId, expandSweep, studySeeds } from '../src/experiment/sweep.ts';
import type { Experiment } from '../src/experiment/load.ts';

describe('expandSweep', () => {
  it('is the grid product, last key fastest', () => {
    const cells = expandSweep({ 'topology.kind': ['ring', 'fully-connected', 'none'], 'migration.interval': [1, 10, 100] });
    assert.equal(cells.length, 9);
    assert.deepEqual(
      cells.slice(0, 4).map((c) => c.id),
      [
        'topology.kind=ring,migration.interval=1',
        'topology.kind=ring,migration.interval=10',
        'topology.kind=ring,migration.interval=100',
        'topology.kind=fully-connected,migration.interval=1',
      ],
    );
    assert.deepEqual(cells[8].values, { 'topology.kind': 'none', 'migration.interval': 100 });
  });

  it('has one cell, "base", for an empty sweep', () => {
    assert.deepEqual(expandSweep({}), [{ id: 'base', values: {} }]);
  });

  it('gives ids that depend on the values only, all distinct (property)', () => {
    const values = fc.uniqueArray(
      fc.oneof(fc.integer({ min: -5, max: 500 }), fc.constantFrom('ring', 'none', 'sync', 'async'), fc.constant(null), fc.boolean()),
      {
        minLength: 1,
        maxLength: 4,
        selector: (v) => JSON.stringify(v),
      },
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('n', 'islands', 'topology.kind', 'migration.interval', 'migration.mode'), values, { minKeys: 1 }),
        (sweep) => {
          const cells = expandSweep(sweep);
          assert.equal(
            cells.length,
            Object.values(sweep).reduce((p, v) => p * v.length, 1),
          );
          assert.equal(new Set(cells.map((c) => c.id)).size, cells.length);
          for (const cell of cells) assert.equal(cell.id, cellId(cell.values));
          // The same file expands to the same ids.
          assert.deepEqual(expandSweep(sweep), cells);
        },
      ),
      { seed: 42, numRuns: 200 },
    );
  });

  it('writes values readably and file names safely', () => {
    assert.equal(
      cellId({ 'migration.interval': 10, 'migration.mode': 'sync', 'x.flag': true }),
      'migration.interval=10,migration.mode=sync,x.flag=true',
    );
    assert.equal(cellId({ 'ga.pairsPerIteration': null }), 'ga.pairsPerIteration=null');
    assert.match(cellFileName('topology.kind=ring,migration.interval=10'), /^topology\.kind=ring_migration\.interval=10~[0-9a-f]{16}$/);
    // One-to-one: ids that read alike, or alike in their first 64 characters, get their own files; bounded length.
    const ids = ['x=a/b', 'x=a_b', 'x=a b', `x=${'y'.repeat(300)}1`, `x=${'y'.repeat(300)}2`];
    assert.equal(new Set(ids.map(cellFileName)).size, ids.length);
    for (const id of ids) assert.ok(Buffer.byteLength(cellFileName(id)) <= 81, id);
  });
});

describe('baselineOf', () => {
  it('swaps in the baseline values and keeps the rest of the cell', () => {
    const [ring10] = expandSweep({ 'topology.kind': ['ring'], 'migration.interval': [10] });
    assert.equal(baselineOf(ring10, { 'topology.kind': 'none' }), 'topology.kind=none,migration.interval=10');
    assert.equal(baselineOf(ring10, undefined), null);
  });
});

describe('seeds: the same in every cell (paired design)', () => {
  it('is base, base + 1, ... or the list given', () => {
    assert.deepEqual(studySeeds({ seed: 10, repeats: 3 }), [10, 11, 12]);
    assert.deepEqual(studySeeds({ seeds: [9, 4] }), [9, 4]);
    assert.deepEqual(studySeeds({}), [1]);
  });

  it('plans every (cell, seed) once, seed-major', () => {
    const cells = expandSweep({ k: ['a', 'b'] }).map((c) => ({ ...c, baseline: null, config: {} as never }));
    const plan = planRuns({ seeds: [3, 4], cells } as unknown as Experiment);
    assert.deepEqual(
      plan.map((p) => `${p.cell.id}@${p.seed}`),
      ['k=a@3', 'k=b@3', 'k=a@4', 'k=b@4'],
    );
  });
});
