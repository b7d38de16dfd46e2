/**
 * Islands are not threads (issue 33), on host processes over a real nats-server: a host runs
 * its share of a run's islands on as many threads as it offers islands, and sync and lagged
 * records are those of one process (the rule and the one-process cases: threads.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as library from '../src/index.ts';
import { spawnCli } from './cli-helpers.ts';
import { repeatablePart } from './helpers.ts';
import { localCluster, nats } from './nats-server.ts';

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
