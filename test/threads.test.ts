/**
 * Islands are not threads (issue 33): a run's islands share `threads` worker threads, each
 * thread stepping its islands in turn (src/archipelago/island-thread.ts). Sync and lagged
 * records are the same for any thread count, in one process and on host processes over a
 * real nats-server, whose hosts run their share on as many threads as they offer islands.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { threadBlocks, threadsFor } from '../src/archipelago/threads.ts';
import { configHash } from '../src/provenance.ts';
import * as library from '../src/index.ts';
import { spawnCli } from './cli-helpers.ts';
import { repeatablePart } from './helpers.ts';
import { localCluster, nats } from './nats-server.ts';

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

describe('islands on threads: hosts over NATS', { skip: nats.skip, timeout: 300_000 }, () => {
  const broker = localCluster('t');

  async function solveCli(args: string[]): Promise<{ code: number | null; stderr: string; record: library.SolveRecord }> {
    const run = spawnCli(['solve', '--json', ...args]);
    const exit = await run.exited;
    return { code: exit.code, stderr: run.stderr(), record: JSON.parse(run.stdout() || 'null') as library.SolveRecord };
  }

  for (const mode of ['sync', 'lagged'] as const) {
    it(`${mode}: 8 islands on two hosts with 1 and with 2 threads each give the record of one process`, async () => {
      const args = [
        ...['-n', '40', '--seed', '5', '--islands', '8', '--topology', 'ring-bi', '--population', '60'],
        ...['--migration', mode, '--interval', '2', '--migrants', '3', '--max-iterations', '300'],
      ];
      const local = await solveCli([...args, '--threads', '1']);
      assert.equal(local.code, 0, local.stderr);
      for (const offered of [1, 2]) {
        // A host runs its share (4 islands here) on as many threads as it offers islands.
        const { prefix } = await broker.startHosts([`a${offered}`, `b${offered}`], { islands: offered });
        const spread = await solveCli([...args, '--nats', broker.server.url, '--nats-prefix', prefix, '--hosts', '2']);
        assert.equal(spread.code, 0, spread.stderr);
        const hosts = spread.record.islands.map((i) => i.host);
        assert.deepEqual(
          [`a${offered}`, `b${offered}`].map((name) => hosts.filter((h) => h === name).length),
          [4, 4],
        );
        assert.deepEqual(repeatablePart(spread.record), repeatablePart(local.record), `hosts with ${offered} thread(s) each`);
      }
    });
  }
});
