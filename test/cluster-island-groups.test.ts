/**
 * Islands with settings of their own (`islandGroups`, docs/heterogeneous.md) spread over two
 * `host` processes of the built CLI on a real nats-server: the record of the same run in one
 * process (the cases without a broker are in island-groups.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spawnCli } from './cli-helpers.ts';
import { repeatablePart } from './helpers.ts';
import { localCluster, nats } from './nats-server.ts';

// Bounded: a run that never ends fails the test instead of hanging the suite.
describe('islandGroups: islands on two host processes over NATS', { skip: nats.skip, timeout: 300_000 }, () => {
  const broker = localCluster('g');

  it('sync, then lagged: a run with groups spread over the same two hosts gives the record of the same run in one process', async () => {
    const { prefix } = await broker.startHosts(['near', 'far'], { islands: 2 });
    for (const mode of ['sync', 'lagged'] as const) {
      const groups = {
        hy: { islands: [1], ga: { mode: 'hybrid', populationSize: 40 }, migration: { replacement: 'worst' } },
        hot: { islands: [2], ga: { mutationProbability: 1, doubleMutationProbability: 0.5 }, migration: { emigrantSelection: 'random' } },
      };
      const args = ['-n', '40', '--seed', '8', '--islands', '4', '--topology', 'ring-bi', '--population', '200', '--migration', mode];
      const solveCli = async (more: string[]) => {
        const run = spawnCli([
          'solve',
          '--json',
          ...args,
          '--interval',
          '2',
          '--migrants',
          '4',
          '--island-groups',
          JSON.stringify(groups),
          ...more,
        ]);
        const exit = await run.exited;
        assert.ok(exit.code === 0 || exit.code === 1, run.stderr());
        return JSON.parse(run.stdout()) as { islands: { host?: string; group?: string | null }[] };
      };
      const spread = await solveCli(['--nats', broker.server.url, '--nats-prefix', prefix, '--hosts', '2']);
      const local = await solveCli([]);
      assert.deepEqual(
        spread.islands.map((i) => [i.host, i.group]),
        [
          ['far', null],
          ['far', 'hy'],
          ['near', 'hot'],
          ['near', null],
        ],
      );
      assert.deepEqual(repeatablePart(spread), repeatablePart(local), mode);
    }
  });
});
