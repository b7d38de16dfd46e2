/**
 * Islands are not threads (issue 33): a run's islands share `threads` worker threads, each
 * thread stepping its islands in turn (src/archipelago/island-thread.ts). Sync and lagged
 * records are the same for any thread count in one process (on host processes over a real
 * nats-server: cluster-threads.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { availableParallelism } from 'node:os';
import { threadBlocks, threadsFor } from '../src/archipelago/threads.ts';
import { defaultThreads, SMALL_RUN } from '../src/config/defaults.ts';
import { configHash } from '../src/provenance.ts';
import * as library from '../src/index.ts';
import { repeatablePart } from './helpers.ts';

/** 8 islands at N = 40 on a two-way ring, migrating every 2 iterations: islands wait for each other's migrants. */
function config(mode: 'sync' | 'lagged', threads: number | null): library.RunConfigInput {
  return {
    n: 40,
    seed: 11,
    islands: 8,
    threads,
    ga: { populationSize: 60 },
    topology: { kind: 'ring-bi' },
    migration: { mode, interval: 2, migrants: 3, ...(mode === 'lagged' ? { lag: 3 } : {}) },
    limits: { maxIterations: 120 },
  };
}

describe('islands on threads: the rule', () => {
  it('one thread per island up to the cores by default, else the given count, never more than the islands', () => {
    assert.equal(threadsFor(3, 8), 3);
    assert.equal(threadsFor(64, 2), 2);
    assert.equal(threadsFor(1), 1);
    assert.ok(threadsFor(4096) <= 4096 && threadsFor(4096) >= 1);
  });

  it('a small run (paper GA, at most 2 islands of at most 1000, N <= 100) defaults to one thread; anything larger, to the cores', () => {
    const run = (n: number, islands = 2, ga = { mode: 'paper', populationSize: 1000 }, islandGroups: object | null = null) => ({
      n,
      islands,
      ga,
      islandGroups,
    });
    assert.equal(defaultThreads(run(8)), 1);
    assert.equal(defaultThreads(run(SMALL_RUN.n)), 1);
    assert.equal(defaultThreads(run(SMALL_RUN.n + 1)), null);
    assert.equal(defaultThreads(run(8, 3)), null);
    assert.equal(defaultThreads(run(8, 2, { mode: 'hybrid', populationSize: 1000 })), null);
    assert.equal(defaultThreads(run(8, 2, { mode: 'paper', populationSize: 1001 })), null);
    assert.equal(defaultThreads(run(8, 2, undefined, { fast: {} })), null);
    assert.equal(defaultThreads(run(8, 2, undefined, [])), 1);
  });

  it('a small run: one thread by default, the same record as on two (sync, the default mode), and --threads still decides', async () => {
    const small = { n: 12, seed: 5, islands: 2, limits: { maxIterations: 30 } };
    const [byDefault, two] = [await library.solve(small), await library.solve({ ...small, threads: 2 })];
    assert.equal(byDefault.threads, 1);
    assert.equal(two.threads, 2);
    assert.equal(byDefault.config.threads, undefined, 'the default stays null in the config');
    assert.deepEqual(repeatablePart(byDefault), repeatablePart(two));
    assert.equal(
      (await library.solve({ ...small, n: SMALL_RUN.n + 1, limits: { maxIterations: 2 } })).threads,
      Math.min(2, availableParallelism()),
    );
  });

  it('contiguous blocks in ascending order, the first ones one larger', () => {
    assert.deepEqual(threadBlocks(7, 3), [
      [0, 1, 2],
      [3, 4],
      [5, 6],
    ]);
    assert.deepEqual(threadBlocks(2, 2), [[0], [1]]);
    assert.deepEqual(threadBlocks(4, 1), [[0, 1, 2, 3]]);
  });
});

describe('islands on threads: one process', () => {
  for (const mode of ['sync', 'lagged'] as const) {
    it(`${mode}: 8 islands give the same record on 1, 2 and 4 threads`, async () => {
      const records = [];
      for (const threads of [1, 2, 4]) records.push(await library.solve(config(mode, threads)));
      const [one, ...others] = records;
      assert.equal(one.config.migration?.mode, mode);
      assert.ok(
        one.islands.some((i) => i.migrantsAccepted > 0),
        'islands took in migrants',
      );
      for (const [k, record] of others.entries()) {
        assert.deepEqual(repeatablePart(record), repeatablePart(one), `threads ${[2, 4][k]} against 1`);
      }
      // Placement: the record's config says the threads, its config hash does not.
      assert.deepEqual(
        records.map((r) => r.config.threads),
        [1, 2, 4],
      );
      assert.equal(new Set(records.map((r) => r.provenance.configHash)).size, 1);
      assert.equal(one.provenance.configHash, configHash({ ...one.config, threads: undefined }));
    });
  }

  it('async: 6 islands on one thread interleave and the run ends solved, with one winner', async () => {
    const record = await library.solve({ n: 24, seed: 3, islands: 6, threads: 1, migration: { mode: 'async' } });
    assert.equal(record.solved, true);
    assert.equal(record.islands.filter((i) => i.stopReason === 'solved').length, 1);
  });
});
