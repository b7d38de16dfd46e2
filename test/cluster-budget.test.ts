/**
 * An evaluation budget over hosts (docs/distributed.md, "An evaluation budget over hosts is
 * a prefix too"): a sync or lagged run whose islands are spread over two host processes on
 * a real nats-server gives, under `--max-evaluations B`, exactly the record of the same run
 * on one machine under B (src/cluster/launcher/ledger-relay.ts carries the evaluation ledger
 * between the hosts), once with a B that cuts the run and once with a B it does not reach;
 * and a bystander's bogus ledger counts change nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { readFrame } from '../src/cluster/bus/frame.ts';
import type { BusMessage } from '../src/cluster/bus/messages.ts';
import { runStudyOnCluster } from '../src/cluster/study/study.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { readRuns } from '../src/experiment/store.ts';
import { runStudy } from '../src/experiment/runner.ts';
import { spawnCli } from './cli-helpers.ts';
import { repeatablePart } from './helpers.ts';
import { localCluster, nats } from './nats-server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-cluster-budget-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Record {
  solved: boolean;
  ended: string;
  evaluations: number;
  islands: { host?: string; iterations: number }[];
}

async function solve(args: string[]): Promise<{ code: number | null; stderr: string; record: Record }> {
  const run = spawnCli(['solve', '--json', ...args]);
  const exit = await run.exited;
  return { code: exit.code, stderr: run.stderr(), record: JSON.parse(run.stdout() || 'null') as Record };
}

// Small boards, 4 islands (2 on each host), runs of about 100 iterations.
const SYNC = ['-n', '40', '--seed', '4', '--islands', '4', '--topology', 'ring', '--migration', 'sync', '--interval', '3'];
const LAGGED = [
  ...['-n', '40', '--seed', '8', '--islands', '4', '--topology', 'ring-bi', '--population', '200'],
  ...['--migration', 'lagged', '--lag', '2', '--interval', '2', '--migrants', '4'],
];

describe('an evaluation budget over hosts is the one-machine record', { skip: nats.skip, timeout: 300_000 }, () => {
  const broker = localCluster('b');
  const over = (prefix: string) => ['--nats', broker.server.url, '--nats-prefix', prefix, '--hosts', '2'];

  for (const [mode, args] of [
    ['sync', SYNC],
    ['lagged', LAGGED],
  ] as const) {
    it(`${mode}: under a B that cuts and one the run does not reach, two hosts give the record of one machine`, async () => {
      const { prefix } = await broker.startHosts(['east', 'west'], { islands: 2 });
      const unlimited = await solve(args);
      assert.equal(unlimited.code, 0, unlimited.stderr);
      const needs = unlimited.record.evaluations;
      for (const budget of [Math.floor(needs / 2), needs]) {
        const limited = [...args, '--max-evaluations', String(budget)];
        const [spread, local] = await Promise.all([solve([...limited, ...over(prefix)]), solve(limited)]);
        assert.equal(local.code, budget < needs ? 1 : 0, local.stderr);
        assert.equal(spread.code, local.code, spread.stderr);
        assert.deepEqual(
          spread.record.islands.map((i) => i.host),
          ['east', 'east', 'west', 'west'],
        );
        // Everything but timings, host names and the cluster section.
        assert.deepEqual(repeatablePart(spread.record), repeatablePart(local.record), `B = ${budget}`);
        if (budget < needs) {
          assert.equal(spread.record.ended, 'max-evaluations');
          assert.ok(
            spread.record.evaluations <= budget && spread.record.evaluations > budget / 2,
            `${spread.record.evaluations} of ${budget}`,
          );
          // Not the old equal shares: every island counts the same iteration t*, and all of them a whole one.
          assert.equal(new Set(spread.record.islands.map((i) => i.iterations)).size, 1);
        } else {
          assert.equal(spread.record.evaluations, needs);
          assert.deepEqual(repeatablePart({ ...spread.record, config: null }), repeatablePart({ ...unlimited.record, config: null }));
        }
      }
    });
  }

  it("a bystander's bogus ledger counts (not a host of the run, another host's island, iterations out of order) change nothing", async () => {
    const { prefix } = await broker.startHosts(['east', 'west'], { islands: 2 });
    const raw = await connect({ servers: broker.server.url.replace('nats://', '') });
    const packr = new Packr({ moreTypes: true });
    let forged = 0;
    let ledgerAfter = -1;
    raw.subscribe(`${prefix}.run.>`, {
      callback: (_e, msg) => {
        if (msg.subject.endsWith('.coordinator')) return;
        const frame = readFrame(msg.data);
        const body = frame && (packr.unpack(frame.body) as Partial<BusMessage<'state'>>);
        if (!frame || body?.type !== 'state' || !body.ledger?.length || body.ledgerFound === undefined) return;
        if (forged > 0) return void (ledgerAfter = Math.max(ledgerAfter, body.ledger[1]));
        // The sender's island, and one of the receiver's; counts that would end the run at once if taken.
        const [mine, t] = [body.ledger[0], body.ledger[1]];
        const theirs = mine < 2 ? 2 : 0;
        const state = (ledger: number[]): BusMessage<'state'> => ({ ...(body as BusMessage<'state'>), reached: [], ledger });
        const send = (from: string, ledger: number[]) => {
          raw.publish(msg.subject, new BusCodec(from, null).encode(msg.subject, state(ledger)));
          forged++;
        };
        send('x1', [mine, t + 1, 1e12]); // not a host of the run
        send(frame.from, [theirs, 0, 1e12]); // an island the sender does not hold
        send(frame.from, [mine, t + 5, 1e12]); // iterations skipped
        send(frame.from, [mine, t + 1]); // not triples
      },
    });
    await raw.flush();
    const limited = [...SYNC, '--max-evaluations', '300000'];
    try {
      const [spread, local] = await Promise.all([solve([...limited, ...over(prefix)]), solve(limited)]);
      assert.equal(forged, 4);
      // The run went on for many iterations after the forgeries were out.
      assert.ok(ledgerAfter >= 20, `the last count seen after them: iteration ${ledgerAfter}`);
      assert.equal(local.code, 1, local.stderr);
      assert.equal(spread.code, 1, spread.stderr);
      assert.deepEqual(repeatablePart(spread.record), repeatablePart(local.record), 'the bogus counts changed nothing');
    } finally {
      await raw.close();
    }
  });

  it('a budgeted study over two hosts (experiment --nats) has the records of the same study on one machine', async () => {
    const { prefix } = await broker.startHosts(['east', 'west'], { islands: 2 });
    const env = { availableParallelism: 2, totalMemory: 8e9 };
    const studyOf = (name: string, limits: string) => {
      const file = path.join(dir, `${name}.yaml`);
      const base = `base: { overrides: { n: 40, islands: 4, ga: { populationSize: 40 }, limits: { ${limits} } } }`;
      writeFileSync(file, `${base}\nsweep:\n  migration.mode: [sync, lagged]\nrepeats: 3\nseed: 31\n`);
      return loadExperiment(file, env);
    };
    const records = (out: string) =>
      readRuns(path.join(out, 'runs.jsonl')).runs.sort((x, y) => x.cell.localeCompare(y.cell) || x.seed - y.seed);
    await runStudy(studyOf('unlimited', 'maxIterations: null'), { outDir: path.join(dir, 'unlimited'), resume: false, events: false });
    const needs = records(path.join(dir, 'unlimited')).map((r) => r.evaluations);
    // The median run's needs: some runs are cut, some are not.
    const budget = [...needs].sort((a, b) => a - b)[Math.floor(needs.length / 2)];
    const limited = studyOf('limited', `maxEvaluations: ${budget}`);
    await runStudy(limited, { outDir: path.join(dir, 'here'), resume: false, events: false });
    const hosted = { outDir: path.join(dir, 'hosts'), resume: false, events: false, nats: broker.server.url, hosts: 2, prefix };
    assert.equal((await runStudyOnCluster(limited, hosted)).completed, 6);
    const [here, spread] = [records(path.join(dir, 'here')), records(path.join(dir, 'hosts'))];
    assert.deepEqual(repeatablePart(spread), repeatablePart(here));
    assert.ok(spread.some((r) => r.solved) && spread.some((r) => !r.solved), JSON.stringify({ budget, needs }));
  });

  it('a host that leaves a budgeted run mid-run: its islands fail, its last counts stand, and the run ends within B (no gate waits for it)', async () => {
    const { prefix, hosts } = await broker.startHosts(['stays', 'leaves']);
    const budget = 1_000_000;
    const args = ['-n', '1000', '--seed', '1', '--islands', '2', '--migration', 'sync', '--max-evaluations', String(budget)];
    const run = spawnCli(['solve', '--json', ...args, ...over(prefix)]);
    await run.waitForStderr(/started N=1000 on 2 islands/);
    const leaving = hosts.get('leaves')!;
    leaving.child.kill('SIGTERM');
    assert.equal((await leaving.exited).code, 0, leaving.stderr());
    const exit = await run.exited;
    assert.equal(exit.code, 1, run.stderr());
    const record = JSON.parse(run.stdout()) as Record & { failures: { island: number; message: string }[] };
    const gone = record.islands.findIndex((i) => i.host === 'leaves');
    assert.deepEqual(
      record.failures.map((f) => [f.island, f.message]),
      [[gone, 'host leaves left']],
    );
    assert.equal(record.ended, 'max-evaluations');
    assert.ok(record.evaluations <= budget, `${record.evaluations} of ${budget}`);
  });
});
