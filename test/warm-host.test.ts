/**
 * Warm islands: one LocalHost (a worker pool) serves run after run. Every run gets fresh
 * islands, ports and shared memory, so a sync run on a reused pool gives exactly what a
 * fresh process gives, and a worker that crashed in one run does not touch the next.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { startArchipelago, type ArchipelagoOptions, type ArchipelagoResult } from '../src/archipelago/archipelago.ts';
import { LocalHost } from '../src/archipelago/local-host.ts';
import { DEFAULT_ISLAND_NICE } from '../src/cluster/defaults.ts';
import { checkIslandNice } from '../src/cluster/host/host.ts';
import { ConfigError } from '../src/config/errors.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { archipelagoOptionsFor, startSeededRun } from '../src/run/start-run.ts';
import { cli } from './cli-helpers.ts';
import { statFields } from './proc-stat.ts';
import { withFault } from './fixtures/fault-host.ts';
import type { Rows } from '../src/problem/genes.ts';

const host = new LocalHost(2);
after(() => host.close());

/** What a sync run must repeat exactly. */
const outcome = (r: {
  solution: Rows | null;
  foundBy: number | null;
  foundAtIteration: number | null;
  evaluations: number;
  islands: { iterations: number; evaluations: number }[];
}) => ({
  solution: r.solution,
  foundBy: r.foundBy,
  foundAtIteration: r.foundAtIteration,
  evaluations: r.evaluations,
  islands: r.islands.map((i) => [i.iterations, i.evaluations]),
});

function syncOptions(
  seed: number,
  extra: Partial<ArchipelagoOptions> = {},
  n = 24,
  maxIterations: number | null = null,
): ArchipelagoOptions {
  const config = resolveRunConfig(
    { n, islands: 2, migration: { mode: 'sync', interval: 3, migrants: 2 }, ga: { populationSize: 60 }, limits: { maxIterations } },
    'test',
  );
  return { ...archipelagoOptionsFor({ ...config, seed }), ...extra };
}

describe('warm host', () => {
  it('a sync run on a reused pool = the same run in a fresh process (solution, finder, iterations, evaluations)', async () => {
    const args = ['solve', '-n', '16', '--seed', '9', '--islands', '2', '--migration', 'sync', '--interval', '2', '--json', '--quiet'];
    const fresh = cli(args);
    assert.equal(fresh.code, 0, fresh.stderr);
    const record = JSON.parse(fresh.stdout);
    const config = { ...resolveRunConfig(record.config, 'solve --json'), seed: 9 };
    // Another run first, so the workers are not fresh any more.
    await startSeededRun({ ...config, n: 20, seed: 3 }, { launcher: host }).result;
    for (let round = 0; round < 2; round++) {
      const warm = await startSeededRun(config, { launcher: host }).result;
      assert.deepEqual(outcome(warm), outcome(record));
      assert.equal(warm.iterations, record.iterations);
    }
  });

  it('a worker that crashes in one run does not touch the next run on the same pool', async () => {
    const clean: ArchipelagoResult = await startArchipelago(syncOptions(4)).result; // its own pool
    // The pool's workers exit at iteration 1000 (a fault in their environment): a run that gets
    // there crashes one; the next run on the same pool, solved long before, gets a replaced worker.
    await withFault({ island: 0, atIteration: 1000, kind: 'exit' }, async (faulty) => {
      // N = 300 is far from solved at iteration 1000; the limit ends the island that goes on.
      const crashed = await startArchipelago(syncOptions(4, { launcher: faulty }, 300, 1200)).result;
      assert.match(crashed.islands[0].error?.message ?? '', /exited with code: 70/);
      const next = await startArchipelago(syncOptions(4, { launcher: faulty })).result;
      assert.equal(
        next.islands.some((i) => i.error),
        false,
      );
      assert.ok(next.foundAtIteration! < 1000, `solved at ${next.foundAtIteration}, before the fault`);
      assert.deepEqual(outcome(next), outcome(clean));
    });
  });

  it(
    'islandNice: the island threads run that many nice steps below the main thread, and a sync run gives the same result',
    { skip: process.platform !== 'linux' && 'per-thread nice is Linux only' },
    async () => {
      const niceOf = (task: string) => Number(statFields(`/proc/self/task/${task}/stat`)?.[16]);
      const main = niceOf(String(process.pid));
      const before = new Set(readdirSync('/proc/self/task'));
      const lowered = new LocalHost(2, { islandNice: 5 });
      try {
        // Two threads (a run this small defaults to one, config/defaults.ts): both must be lowered.
        const result = await startArchipelago(syncOptions(6, { launcher: lowered, threads: 2 })).result;
        assert.deepEqual(outcome(result), outcome(await startArchipelago(syncOptions(6, { launcher: host })).result));
        // The pool's threads outlive the run: exactly its two island threads were lowered, nothing else.
        const lowest = readdirSync('/proc/self/task').filter((task) => niceOf(task) !== main);
        assert.equal(lowest.length, 2, `threads off the main thread's nice ${main}: ${lowest.length}`);
        for (const task of lowest) {
          assert.ok(!before.has(task), 'a thread that was there before the pool');
          assert.equal(niceOf(task), Math.min(19, main + 5));
        }
      } finally {
        await lowered.close();
      }
    },
  );

  it('--island-nice / islandNice: an integer from 0 to 19, else one line naming the flag', () => {
    assert.equal(checkIslandNice(undefined), DEFAULT_ISLAND_NICE);
    for (const nice of [0, 7, 19]) assert.equal(checkIslandNice(nice), nice);
    for (const nice of [-1, 20, 2.5, Number.NaN, Infinity])
      assert.throws(
        () => checkIslandNice(nice),
        (e: Error) =>
          e instanceof ConfigError && /^--island-nice: expected an integer from 0 to 19/.test(e.message) && !e.message.includes('\n'),
      );
  });

  it('records search time apart from start-up', async () => {
    const result = await startArchipelago(syncOptions(5, { launcher: host })).result;
    assert.ok(result.startupSeconds >= 0 && result.seconds >= 0);
    const loop = Math.max(...result.islands.map((i) => i.seconds));
    // An island's own seconds include building its population; the run's search time does not.
    assert.ok(result.seconds <= loop + 0.001, `${result.seconds} > ${loop}`);
  });
});
