/**
 * One run's islands spread over `host` processes of the built CLI, on a real nats-server:
 * migrants cross hosts over the bus, the first solution stops every island everywhere, a
 * sync run gives exactly the result of the same islands in one process, and a host killed
 * mid-run fails its islands as a crashed worker would. Waits are for lines and exits only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { placeIslands } from '../src/cluster/launcher/hosted-run.ts';
import * as library from '../src/index.ts';
import { joinCluster } from '../src/cluster/index.ts';
import { connect } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { readFrame, writeFrame } from '../src/cluster/bus/frame.ts';
import { Subjects } from '../src/cluster/bus/connection.ts';
import { startLocalBroker, type NatsServer } from '../src/cluster/local-broker.ts';
import { holderName, leaseHolders, openLeaseBucket } from '../src/cluster/leases/host-lease.ts';
import { referenceFitness } from '../src/problem/reference-fitness.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { spawnCli } from './cli-helpers.ts';
import { IDLE_ISLANDS, repeatablePart } from './helpers.ts';
import {
  localCluster,
  nats,
  SHORT_HEARTBEAT,
  SHORT_HEARTBEAT_MS,
  SHORT_LEASES,
  SHORT_RECONNECT,
  withTestEnv,
  within,
} from './nats-server.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'nq-cluster-solve-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** `waited`, unless the run ends first: then the test fails saying so, instead of waiting for ever. */
function beforeTheEnd<T>(waited: Promise<T>, run: library.RunHandle, what: string): Promise<T> {
  const ended = run.result.then(
    (r) => assert.fail(`the run ended (${r.ended}: ${JSON.stringify(r.failures)}) before ${what}`),
    (error: unknown) => assert.fail(`the run failed (${String(error)}) before ${what}`),
  );
  return Promise.race([waited, ended]);
}

describe('placeIslands', () => {
  it('splits island ids into contiguous blocks in proportion to what each host offers', () => {
    assert.deepEqual(placeIslands(4, [1, 3]), [0, 1, 1, 1]);
    assert.deepEqual(placeIslands(5, [2, 1]), [0, 0, 0, 1, 1]);
    assert.deepEqual(placeIslands(2, [1, 1]), [0, 1]);
    assert.deepEqual(placeIslands(3, [4, 4]), [0, 0, 1]);
    assert.deepEqual(placeIslands(1, [1, 1]), [0]);
  });
});

// One describe, so a machine without nats-server shows one skip line.
// Bounded: a run that never ends fails the test instead of hanging the suite.
describe('one run across host processes on NATS', { skip: nats.skip, timeout: 300_000 }, () => {
  const broker = localCluster('s');
  const startHosts = (names: string[], islands = 1) => broker.startHosts(names, { islands });

  /** This test on the bus as an idle host `name` (id `${name}0`, one island, no key): it beats every `periodMs` and when asked. */
  async function busHost(prefix: string, name: string, periodMs = 1000) {
    const subjects = new Subjects(prefix);
    const codec = new BusCodec(`${name}0`, null);
    const raw = await connect({ servers: broker.server.url.replace('nats://', '') });
    const beat = () =>
      raw.publish(subjects.heartbeat, codec.encode(subjects.heartbeat, { type: 'host', id: `${name}0`, name, islands: 1, busy: false }));
    raw.subscribe(subjects.discover, { callback: () => beat() });
    const beating = setInterval(beat, periodMs);
    await raw.flush();
    const close = async () => {
      clearInterval(beating);
      await raw.close();
    };
    return { subjects, codec, raw, beat, close };
  }

  async function solve(args: string[], env?: NodeJS.ProcessEnv) {
    const run = spawnCli(['solve', '--json', ...args], { env });
    const exit = await run.exited;
    return {
      code: exit.code,
      stderr: run.stderr(),
      record: exit.code === 0 || exit.code === 1 || exit.code === 3 ? JSON.parse(run.stdout()) : null,
    };
  }

  it('async: islands on two hosts each send their emigrants every iteration over the bus', async () => {
    // A board that 40 iterations cannot solve: both islands run exactly 40, whatever the load.
    const { prefix } = await startHosts(['east', 'west']);
    const r = await solve([
      '-n',
      '300',
      '--seed',
      '3',
      '--islands',
      '2',
      '--migration',
      'async',
      '--max-iterations',
      '40',
      '--nats',
      broker.server.url,
      '--nats-prefix',
      prefix,
      '--hosts',
      '2',
    ]);
    assert.equal(r.code, 1, r.stderr);
    const emigrants = r.record.config.migration.migrants as number; // the default: 2% of the population
    assert.equal(emigrants, 20);
    assert.deepEqual(
      r.record.islands.map((i: { host: string; iterations: number; migrantsSent: number; stopReason: string }) => [
        i.host,
        i.iterations,
        i.migrantsSent,
        i.stopReason,
      ]),
      [
        ['east', 40, 40 * emigrants, 'max-iterations'],
        ['west', 40, 40 * emigrants, 'max-iterations'],
      ],
    );
  });

  it('async: one solution stops all islands on both hosts, the result names the hosts', async () => {
    const { prefix } = await startHosts(['east', 'west']);
    const r = await solve([
      '-n',
      '24',
      '--seed',
      '3',
      '--islands',
      '2',
      '--migration',
      'async',
      '--nats',
      broker.server.url,
      '--nats-prefix',
      prefix,
      '--hosts',
      '2',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const record = r.record;
    assert.equal(record.solved, true);
    assert.deepEqual(validateSolution(record.solution), { valid: true });
    assert.deepEqual(record.hosts, ['east', 'west']);
    assert.deepEqual(
      record.islands.map((i: { host: string }) => i.host),
      ['east', 'west'],
    );
    // Every island stopped for the solution: the winner as its finder, the other because it
    // was told or (within the relay's latency) because it found one too (also-solved): one winner either way.
    const reasons = record.islands.map((i: { stopReason: string }) => i.stopReason);
    assert.equal(reasons[record.foundBy], 'solved');
    assert.equal(reasons.filter((r: string) => r === 'solved').length, 1, `one winner: ${reasons.join()}`);
    assert.ok(
      reasons.every((r: string) => r === 'solved' || r === 'also-solved' || r === 'other-solved'),
      reasons.join(),
    );
    assert.deepEqual(record.failures, []);
  });

  it('sync: five islands over two hosts give exactly the result of the same islands in one process; barrier state goes to hosts only', async () => {
    const { prefix } = await startHosts(['big', 'small'], 2);
    // Message types on the run's subjects, the coordinator's apart from the hosts'.
    const raw = await connect({ servers: broker.server.url.replace('nats://', '') });
    const packr = new Packr({ moreTypes: true });
    const seen = { coordinator: new Set<string>(), hosts: new Set<string>() };
    raw.subscribe(`${prefix}.run.>`, {
      callback: (_e, msg) => {
        const frame = readFrame(msg.data);
        const type = frame && (packr.unpack(frame.body) as { type?: string }).type;
        if (type) seen[msg.subject.endsWith('.coordinator') ? 'coordinator' : 'hosts'].add(type);
      },
    });
    await raw.flush();
    const args = ['-n', '30', '--seed', '4', '--islands', '5', '--topology', 'fully-connected', '--migration', 'sync', '--interval', '3'];
    const [spread, local] = await Promise.all([
      solve([...args, '--nats', broker.server.url, '--nats-prefix', prefix, '--hosts', '2']),
      solve(args),
    ]).finally(async () => {
      await raw.flush();
      await raw.close();
    });
    assert.ok(seen.hosts.has('state') && seen.hosts.has('migrants'), [...seen.hosts].join());
    // The coordinator learns the stop from the claim: a copy of every barrier would only cost it CPU.
    assert.deepEqual([...seen.coordinator].sort(), ['control', 'report']);
    assert.equal(spread.code, 0, spread.stderr);
    assert.equal(local.code, 0, local.stderr);
    assert.deepEqual(repeatablePart(spread.record), repeatablePart(local.record));
    assert.deepEqual(
      spread.record.islands.map((i: { host: string }) => i.host),
      ['big', 'big', 'big', 'small', 'small'],
    );
    assert.ok(spread.record.islands.some((i: { migrantsAccepted: number }) => i.migrantsAccepted > 0));
    // Lineage crossed the bus: a member descended from an island of the other host (the records are equal, lineage included).
    const hostOf = (island: number) => (island < 3 ? 'big' : 'small');
    const mixes = (spread.record.between as { lineage: number[][] }[]).flatMap((p) => p.lineage.map((mix, island) => ({ mix, island })));
    assert.ok(mixes.some(({ mix, island }) => mix.some((o, k) => k % 2 === 0 && o >= 0 && hostOf(o) !== hostOf(island))));
  });

  it('lagged: four islands over two hosts give exactly the record of the same run in one process, twice, and with one island slowed', async () => {
    const { prefix } = await startHosts(['near', 'far'], 2);
    const args = [
      '-n',
      '40',
      '--seed',
      '8',
      '--islands',
      '4',
      '--topology',
      'ring-bi',
      '--population',
      '200',
      '--migration',
      'lagged',
      '--lag',
      '3',
      '--interval',
      '2',
      '--migrants',
      '4',
    ];
    const spread = await solve([...args, '--nats', broker.server.url, '--nats-prefix', prefix, '--hosts', '2']);
    const local = await solve(args);
    assert.equal(spread.code, 0, spread.stderr);
    assert.equal(local.code, 0, local.stderr);
    assert.equal(spread.record.config.migration.mode, 'lagged');
    assert.deepEqual(
      spread.record.islands.map((i: { host: string }) => i.host),
      ['far', 'far', 'near', 'near'],
    );
    // What must repeat: all but timings, host names and the cluster section of the config.
    assert.deepEqual(repeatablePart(spread.record), repeatablePart(local.record));
    assert.ok(spread.record.islands.every((i: { migrantsAccepted: number }) => i.migrantsAccepted > 0));
    // An island on one host sleeping 2 ms every iteration: the other host's islands wait for its migrants or run ahead; the record is the same.
    // The fault is in the hosts' environment (their workers read it; no task carries it): only the host of island 1 acts on it.
    const slow = await broker.startHosts(['near', 'far'], { islands: 2, env: { NQUEENS_ISLANDS_TEST_FAULT: '1:1:slow:2' } });
    const slowed = spawnCli(['solve', '--json', ...args, '--nats', broker.server.url, '--nats-prefix', slow.prefix, '--hosts', '2']);
    const exit = await slowed.exited;
    assert.equal(exit.code, 0, slowed.stderr());
    assert.deepEqual(repeatablePart(JSON.parse(slowed.stdout())), repeatablePart(local.record));
  });

  it('one winner: two islands on two hosts that both solve in their initial populations (sync, N = 6) name one finder; the other is also-solved, as in one process', async () => {
    const { prefix } = await startHosts(['one', 'two']);
    const args = ['-n', '6', '--seed', '1', '--islands', '2', '--migration', 'sync'];
    const [spread, local] = await Promise.all([
      solve([...args, '--nats', broker.server.url, '--nats-prefix', prefix, '--hosts', '2']),
      solve(args),
    ]);
    assert.equal(spread.code, 0, spread.stderr);
    for (const r of [spread, local]) {
      assert.deepEqual([r.record.foundBy, r.record.foundAtIteration], [0, 0]);
      assert.deepEqual(
        r.record.islands.map((i: { stopReason: string; iterations: number }) => [i.stopReason, i.iterations]),
        [
          ['solved', 0],
          ['also-solved', 0],
        ],
      );
    }
    assert.deepEqual(spread.record.solution, local.record.solution);
  });

  it('a host SIGKILLed mid-run fails its island like a crashed worker: --on-island-error fail stops the run, exit 3', async () => {
    // Found lost after three heartbeats of 0.5 s (SHORT_HEARTBEAT), not of 1 s: the same rule, a shorter wait.
    // Islands that sleep while the test waits (IDLE_ISLANDS): the run only has to be going.
    const { prefix, hosts: started } = await broker.startHosts(['keeps', 'dies'], { env: { ...SHORT_HEARTBEAT, ...IDLE_ISLANDS } });
    const run = spawnCli(
      [
        'solve',
        '--json',
        '-n',
        '3000',
        '--seed',
        '1',
        '--islands',
        '2',
        '--time-limit',
        '120',
        '--on-island-error',
        'fail',
        '--nats',
        broker.server.url,
        '--nats-prefix',
        prefix,
        '--hosts',
        '2',
      ],
      { env: SHORT_HEARTBEAT },
    );
    await run.waitForStderr(/started N=3000 on 2 islands/);
    started.get('dies')!.child.kill('SIGKILL');
    const exit = await run.exited;
    assert.equal(exit.code, 3, run.stderr());
    const record = JSON.parse(run.stdout());
    assert.equal(record.ended, 'island-failed');
    // Hosts are taken in name order: island 0 on 'dies', island 1 on 'keeps'.
    assert.deepEqual(
      record.islands.map((i: { host: string }) => i.host),
      ['dies', 'keeps'],
    );
    assert.deepEqual(
      record.failures.map((f: { island: number; message: string }) => [f.island, f.message]),
      [[0, 'host dies was lost (no heartbeat)']],
    );
    assert.equal(record.islands[1].stopReason, 'stopped');
    assert.match(
      run.stderr(),
      /island 0 failed at iteration \d+: host dies was lost \(no heartbeat\); run stopped \(--on-island-error fail\)/,
    );
  });

  it('a host stopped with SIGTERM mid-run reports its islands gone; with continue the run goes on and ends', async () => {
    // Island 1 goes on to the time limit asleep (IDLE_ISLANDS): the run only has to be going.
    const { prefix, hosts: started } = await broker.startHosts(['stays', 'leaves'], { env: IDLE_ISLANDS });
    const run = spawnCli([
      'solve',
      '--json',
      '-n',
      '3000',
      '--seed',
      '1',
      '--islands',
      '2',
      '--time-limit',
      '3',
      '--nats',
      broker.server.url,
      '--nats-prefix',
      prefix,
      '--hosts',
      '2',
    ]);
    await run.waitForStderr(/started N=3000 on 2 islands/);
    const leaving = started.get('leaves')!;
    leaving.child.kill('SIGTERM');
    assert.equal((await leaving.exited).code, 0, leaving.stderr());
    const exit = await run.exited;
    assert.equal(exit.code, 1, run.stderr());
    const record = JSON.parse(run.stdout());
    assert.equal(record.ended, 'time-limit');
    // Island 0 on 'leaves' (name order); island 1 went on to the time limit.
    assert.deepEqual(
      record.failures.map((f: { island: number; message: string }) => [f.island, f.message]),
      [[0, 'host leaves left']],
    );
    assert.equal(record.islands[1].stopReason, 'stopped');
    // Each says what its leaving ends: islands of a run in progress, or nothing (idle).
    assert.match(leaving.stderr(), /SIGTERM: leaving; its islands of a run in progress end, reported to that run's coordinator\n/);
    const stays = started.get('stays')!;
    stays.child.kill('SIGTERM');
    assert.equal((await stays.exited).code, 0, stays.stderr());
    assert.match(stays.stderr(), /SIGTERM: leaving\n.*host stays left after 1 run\n/);
  });

  it('the coordinator SIGKILLed mid-run: hosts end its islands when it goes silent and serve the next run', async () => {
    // Hosts find the coordinator lost after three heartbeats of 0.5 s (SHORT_HEARTBEAT), not of 1 s, and the next
    // run waits for the dead coordinator's leases to expire: 1.5 s here (SHORT_LEASES), not 10.
    const env = { ...SHORT_LEASES, ...SHORT_HEARTBEAT };
    // The doomed run's islands sleep while the hosts find its coordinator lost (IDLE_ISLANDS).
    const { prefix, hosts: started } = await broker.startHosts(['h1', 'h2'], { env: { ...env, ...IDLE_ISLANDS } });
    const args = ['--nats', broker.server.url, '--nats-prefix', prefix, '--hosts', '2'];
    const doomed = spawnCli(['solve', '--json', '-n', '3000', '--seed', '1', '--islands', '2', ...args], { env });
    await doomed.waitForStderr(/started N=3000 on 2 islands/);
    doomed.child.kill('SIGKILL');
    await Promise.all([...started.values()].map((h) => h.waitForStderr(/run [0-9a-f]+: over \(the coordinator was lost\)/)));
    const next = await solve(['-n', '16', '--seed', '2', ...args], env);
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(next.record.hosts, ['h1', 'h2']);
  });

  it('the broker killed mid-run: the run ends at once with the best so far printed and saved (ended "broker-lost"), exit 3; hosts stop their islands', async () => {
    const own = await startLocalBroker(nats.path());
    try {
      // Hosts that give up reconnecting after 1 s (SHORT_RECONNECT), not 5: the same ending, a shorter wait.
      const { prefix, hosts } = await broker.startHosts(['p1', 'p2'], { url: own.url, env: SHORT_RECONNECT });
      const out = path.join(tmp, 'broker-lost.json');
      const run = spawnCli([
        'solve',
        '-n',
        '3000',
        '--seed',
        '1',
        '--islands',
        '2',
        '--all',
        '--out',
        out,
        '--nats',
        own.url,
        '--nats-prefix',
        prefix,
        '--hosts',
        '2',
      ]);
      // Once the run is reported started, the coordinator holds every island's best (each sends it before 'started').
      await run.waitForStderr(/started N=3000 on 2 islands/);
      await own.kill();
      assert.equal((await run.exited).code, 3, run.stderr());
      const printed = /^not solved N=3000 \(broker-lost\): best fitness (\d+) \(([\d, ]+)\)$/m.exec(run.stdout());
      assert.ok(printed, run.stdout());
      const [fitness, best] = [Number(printed[1]), printed[2].split(', ').map(Number)];
      assert.deepEqual(
        [...best].sort((a, b) => a - b),
        Array.from({ length: 3000 }, (_, i) => i + 1),
        'the best is a permutation of 1..3000',
      );
      assert.equal(referenceFitness(best), fitness, 'the printed fitness is that of the printed best');
      assert.match(run.stderr(), /lost the NATS broker nats:\/\/127\.0\.0\.1:\d+: the best so far is above and in /);
      const record = JSON.parse(readFileSync(out, 'utf8'));
      assert.equal(record.ended, 'broker-lost');
      assert.deepEqual([record.fitness, record.best], [fitness, best]);
      assert.deepEqual(
        record.failures.map((f: { message: string }) => f.message),
        ['the NATS broker was lost', 'the NATS broker was lost'],
      );
      assert.ok(
        record.islands.every((i: { bestFitness: number }) => i.bestFitness >= fitness),
        JSON.stringify(record.islands),
      );
      // Hosts halt their islands at the disconnect, then leave once reconnecting fails (one line, exit 3).
      for (const host of hosts.values()) {
        assert.equal((await host.exited).code, 3);
        assert.match(host.stderr(), /run [0-9a-f]+: over \(the NATS broker was lost\)\n(.*\n)*.*lost the NATS broker; 1 run done/);
      }
    } finally {
      await own.stop();
    }
  });

  it('from the library: joinCluster, then solve() with it; islands default to what the hosts offer', async () => {
    const { prefix } = await startHosts(['lib1', 'lib2'], 2);
    const cluster = await joinCluster({ nats: broker.server.url, prefix, hosts: 2 });
    try {
      assert.equal(cluster.islands, 4);
      const record = await library.solve({ n: 20, seed: 6, migration: { mode: 'sync', interval: 4 } }, { cluster });
      assert.equal(record.solved, true);
      assert.deepEqual(record.hosts, ['lib1', 'lib2']);
      assert.deepEqual(
        record.islands.map((i) => i.host),
        ['lib1', 'lib1', 'lib2', 'lib2'],
      );
      const local = await library.solve({ n: 20, seed: 6, islands: 4, migration: { mode: 'sync', interval: 4 } });
      assert.deepEqual([record.solution, record.foundBy, record.evaluations], [local.solution, local.foundBy, local.evaluations]);
      assert.deepEqual(record.bus, { dropped: { malformed: 0, foreign: 0, unauthenticated: 0, invalid: 0 } });
      // The cluster's launcher says it takes no checkpoints: refused in one line, nothing started.
      assert.throws(
        () => library.startRun({ n: 20 }, { cluster, checkpoint: { file: path.join(tmp, 'lib.ckpt') } }),
        /^ConfigError: checkpoint: not with cluster \(islands on other hosts are not checkpointed\)$/,
      );
    } finally {
      await cluster.close();
    }
  });

  it('the exact trajectory: sync and lagged runs on two hosts give the trajectory of the same run in one process, bit for bit', async () => {
    const { prefix } = await startHosts(['traj1', 'traj2'], 2);
    const cluster = await joinCluster({ nats: broker.server.url, prefix, hosts: 2 });
    /** The run's trajectory, from its `done` event (the islands' course logs travel in their reports). */
    const trajectory = async (handle: library.RunHandle) => {
      let found: unknown = null;
      handle.events$.subscribe((e) => {
        if (e.type === 'done') found = e.result.trajectory;
      });
      await handle.result;
      return found;
    };
    try {
      for (const mode of ['sync', 'lagged'] as const) {
        const config = { n: 60, seed: 8, migration: { mode, interval: 2 }, limits: { maxIterations: 40 } };
        const spread = await trajectory(library.startRun(config, { cluster }));
        const local = await trajectory(library.startRun({ ...config, islands: 4 }));
        assert.ok(Array.isArray(local) && local.length >= 2, JSON.stringify(local));
        assert.deepEqual(spread, local, mode);
      }
    } finally {
      await cluster.close();
    }
  });

  it('from the library: a broker restart ends the run in progress as broker-lost with its best; hosts and the cluster reconnect and run the next one', async () => {
    const first = await startLocalBroker(nats.path());
    let second: NatsServer | null = null;
    try {
      // The first run's islands sleep while the broker restarts (IDLE_ISLANDS).
      const { prefix, hosts } = await broker.startHosts(['b1', 'b2'], { url: first.url, env: IDLE_ISLANDS });
      const cluster = await joinCluster({ nats: first.url, prefix, hosts: 2 });
      try {
        const run = library.startRun({ n: 3000, seed: 1, limits: { timeLimit: 120 } }, { cluster });
        const started = new Promise<void>((resolve) => run.events$.subscribe((e) => e.type === 'started' && resolve()));
        await within(60, 'the run to start', beforeTheEnd(started, run, 'it started'));
        await first.kill();
        // Back at once, as a restart is: the clients' reconnect window (5 s) runs from the kill, so the broker must not
        // wait for the run's end, which a loaded machine can make late (the reconnects then fail, the test with them).
        second = await within(60, 'the broker to start again', startLocalBroker(nats.path(), { port: first.port }));
        const lost = await within(60, 'the run to end broker-lost', run.result);
        assert.equal(lost.ended, 'broker-lost');
        assert.equal(referenceFitness(lost.best!), lost.fitness);
        await within(
          60,
          'the hosts to reconnect',
          Promise.all([...hosts.values()].map((h) => h.waitForStderr(/reconnected to nats:\/\/127\.0\.0\.1:\d+/))),
        );
        const next = await within(120, 'the next run on the reconnected cluster to end', library.solve({ n: 16, seed: 2 }, { cluster }));
        assert.equal(next.ended, 'solved', JSON.stringify(next.failures));
        assert.deepEqual(next.hosts, ['b1', 'b2']);
        // The lease bucket is in the broker's memory: the cluster leased its hosts again on the restarted broker before it ran.
        const raw = await connect({ servers: second.url.replace('nats://', '') });
        try {
          const kv = await openLeaseBucket(raw, new Subjects(prefix));
          const keys: string[] = [];
          for await (const key of await kv.keys()) keys.push(key);
          const holders = [...(await leaseHolders(kv, keys)).values()].map((h) => h.holder);
          assert.deepEqual(holders, [holderName('solve'), holderName('solve')]);
        } finally {
          await raw.close();
        }
      } finally {
        await cluster.close();
      }
    } finally {
      await first.stop();
      await second?.stop();
    }
  });

  it('from the library: a run on a cluster whose broker never came back ends broker-lost, never an error', async () => {
    const gone = await startLocalBroker(nats.path());
    try {
      // Hosts and the cluster's client give up reconnecting after 1 s (SHORT_RECONNECT), not 5: the same ending, a shorter wait.
      const { prefix, hosts } = await broker.startHosts(['g1', 'g2'], { url: gone.url, env: SHORT_RECONNECT });
      const cluster = await withTestEnv(SHORT_RECONNECT, () => joinCluster({ nats: gone.url, prefix, hosts: 2 }));
      try {
        await gone.kill();
        // The hosts give up reconnecting and leave; the cluster's client gives up alike.
        for (const host of hosts.values()) assert.equal((await host.exited).code, 3, host.stderr());
        const next = await library.solve({ n: 16, seed: 2 }, { cluster });
        assert.equal(next.ended, 'broker-lost');
        assert.deepEqual(
          next.failures.map((f) => f.message),
          ['the NATS broker was lost', 'the NATS broker was lost'],
        );
      } finally {
        await cluster.close();
      }
    } finally {
      await gone.stop();
    }
  });

  it('hosts leased by another coordinator while the broker was away are not used by the cluster that held them: their islands fail, each in one line', async () => {
    const first = await startLocalBroker(nats.path());
    let second: NatsServer | null = null;
    // The cluster reaches the broker through this proxy, shut while the test sets what the cluster finds when it is back.
    let open = true;
    const proxy = net.createServer((client) => {
      if (!open) return void client.destroy();
      const upstream = net.connect(first.port, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ])
        a.on('error', () => b.destroy()).on('close', () => b.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { prefix } = await broker.startHosts(['t1', 't2'], { url: first.url });
      const subjects = new Subjects(prefix);
      const cluster = await joinCluster({ nats: `nats://127.0.0.1:${(proxy.address() as AddressInfo).port}`, prefix, hosts: 2 });
      try {
        const before = await connect({ servers: first.url.replace('nats://', '') });
        const ids: string[] = [];
        for await (const key of await (await openLeaseBucket(before, subjects)).keys()) ids.push(key);
        await before.close();
        assert.equal(ids.length, 2);
        open = false;
        await first.kill();
        second = await startLocalBroker(nats.path(), { port: first.port });
        // Another coordinator leases both hosts on the restarted broker (its lease bucket went with the first).
        const other = await connect({ servers: second.url.replace('nats://', '') });
        const kv = await openLeaseBucket(other, subjects);
        for (const id of ids)
          await kv.create(id, JSON.stringify({ holder: 'solve on elsewhere (pid 1)', since: new Date().toISOString() }));
        open = true;
        const next = await library.solve({ n: 16, seed: 2 }, { cluster });
        assert.equal(next.ended, 'all-islands-failed');
        assert.deepEqual(
          next.failures.map((f) => f.message),
          [
            'host t1 was leased by another coordinator while the broker was away',
            'host t2 was leased by another coordinator while the broker was away',
          ],
        );
        // Theirs still.
        assert.deepEqual(
          [...(await leaseHolders(kv, ids)).values()].map((h) => h.holder),
          ['solve on elsewhere (pid 1)', 'solve on elsewhere (pid 1)'],
        );
        await other.close();
      } finally {
        await cluster.close();
      }
    } finally {
      proxy.close();
      await first.stop();
      await second?.stop();
    }
  });

  it("an order nobody listens for yet is sent again at the host's next heartbeat; a host that accepts late still hears what the run told its hosts before", async () => {
    // 'ghost' is this test on the bus, beating as an idle host; 'late' is a real host, paused (SIGSTOP) so that it
    // accepts its island only after the coordinator has failed ghost's island and told the run's hosts so.
    const { prefix, hosts } = await startHosts(['late']);
    const late = hosts.get('late')!;
    const { subjects, codec: ghost, raw, beat, close } = await busHost(prefix, 'ghost');
    const lines: string[] = [];
    let onLine = () => {};
    const cluster = await joinCluster({
      nats: broker.server.url,
      prefix,
      hosts: 2,
      log: (line) => {
        lines.push(line);
        onLine();
      },
    });
    try {
      late.child.kill('SIGSTOP');
      const run = library.startRun({ n: 16, seed: 2, limits: { timeLimit: 30 } }, { cluster });
      const islandError = new Promise<string>((resolve) => run.events$.subscribe((e) => e.type === 'island-error' && resolve(e.message)));
      // Nobody listens on ghost's orders subject: the coordinator says it asks again at ghost's next heartbeat.
      const waiting = /^host ghost is not listening for orders yet \(reconnecting\?\): asking again at its next heartbeat$/;
      const said = new Promise<void>((resolve) => {
        onLine = () => lines.some((l) => waiting.test(l)) && resolve();
        onLine();
      });
      await beforeTheEnd(said, run, 'it said so');
      // Ghost listens now (as a host does once it has reconnected), then beats: the order comes again, and ghost refuses it.
      raw.subscribe(subjects.islands('ghost0'), {
        callback: (_e, msg) => {
          const order = ghost.decode(msg.subject, msg.data, ['islands']);
          if (order.kind === 'ok')
            msg.respond(ghost.encode(msg.reply!, { type: 'refused', runId: order.message.runId, reason: 'ghost refuses: a test' }));
        },
      });
      await raw.flush();
      beat();
      assert.equal(await beforeTheEnd(islandError, run, "ghost's island failed"), 'ghost refuses: a test');
      // The coordinator has told its hosts that ghost's island departed: 'late', paused, was not listening on the run yet.
      late.child.kill('SIGCONT');
      const result = await run.result;
      assert.equal(result.ended, 'solved', JSON.stringify(result.failures));
      assert.deepEqual(result.hosts, ['ghost', 'late']);
      assert.deepEqual(
        result.failures.map((f) => [f.island, f.message]),
        [[0, 'ghost refuses: a test']],
      );
      assert.deepEqual(validateSolution(result.solution!), { valid: true });
    } finally {
      late.child.kill('SIGCONT');
      await cluster.close();
      await close();
    }
  });

  it('a host that accepts its island, keeps beating, and then never reports, even when told to terminate: the island fails three heartbeats after the terminate, and the run ends', async () => {
    // 'mute' is this test on the bus: an idle host that accepts every order and then says nothing
    // on the run, so neither the heartbeat rule nor a report ends its island: only the terminate bound can.
    // Heartbeats of 0.5 s (the coordinator's option, and mute's beat), not 1 s: a bound of 1.5 s, not 3.
    const { prefix } = await startHosts([]);
    const { subjects, codec: mute, raw, close } = await busHost(prefix, 'mute', SHORT_HEARTBEAT_MS);
    const heard: string[] = [];
    raw.subscribe(subjects.islands('mute0'), {
      callback: (_e, msg) => {
        const order = mute.decode(msg.subject, msg.data, ['islands']);
        if (order.kind !== 'ok') return;
        raw.subscribe(subjects.run(order.message.runId, 'mute0'), {
          callback: (_e2, m) => {
            const told = mute.decode(m.subject, m.data, ['alive', 'halt', 'terminate', 'depart']);
            if (told.kind === 'ok' && told.message.type !== 'alive') heard.push(told.message.type);
          },
        });
        msg.respond(mute.encode(msg.reply!, { type: 'accepted', runId: order.message.runId }));
      },
    });
    await raw.flush();
    const cluster = await joinCluster({ nats: broker.server.url, prefix, hosts: 1, heartbeatMs: SHORT_HEARTBEAT_MS });
    try {
      const result = await library.solve({ n: 16, seed: 2, islands: 1, limits: { timeLimit: 1 } }, { cluster });
      assert.deepEqual(heard, ['halt', 'terminate']);
      assert.equal(result.solved, false);
      assert.deepEqual(
        result.failures.map((f) => [f.island, f.message]),
        [[0, 'did not stop within 2000 ms of the stop and was terminated']],
      );
    } finally {
      await cluster.close();
      await close();
    }
  });

  it('a host that subscribes to its run late still learns that the islands elsewhere are at the start gate: async islands all start', async () => {
    // 'paused' accepts its island only after 'early' has said (on the bus) that its island is at the start gate.
    const { prefix, hosts } = await startHosts(['early', 'paused']);
    const paused = hosts.get('paused')!;
    const raw = await connect({ servers: broker.server.url.replace('nats://', '') });
    const packr = new Packr({ moreTypes: true });
    const stateSaid = new Promise<void>((resolve) =>
      raw.subscribe(`${prefix}.run.>`, {
        callback: (_e, msg) => {
          // A state saying an island reached epoch 0 (the gate); the relay also says -1 (not built yet) when it starts.
          const frame = readFrame(msg.data);
          const body = frame && (packr.unpack(frame.body) as { type?: unknown; reached?: unknown });
          if (body?.type === 'state' && Array.isArray(body.reached) && body.reached[1] === 0) resolve();
        },
      }),
    );
    await raw.flush();
    const cluster = await joinCluster({ nats: broker.server.url, prefix, hosts: 2 });
    try {
      paused.child.kill('SIGSTOP');
      const run = library.startRun({ n: 3000, seed: 1, islands: 2, migration: { mode: 'async' }, limits: { timeLimit: 30 } }, { cluster });
      const started = new Promise<void>((resolve) => run.events$.subscribe((e) => e.type === 'started' && resolve()));
      await beforeTheEnd(stateSaid, run, "early's island was at the start gate");
      paused.child.kill('SIGCONT');
      // Async islands meet only at the start gate: had 'paused' missed that, its island would wait there until 'early's ended.
      await beforeTheEnd(started, run, 'every island passed the start gate');
      run.stop();
      const result = await run.result;
      assert.equal(result.ended, 'stopped');
      assert.deepEqual(result.failures, []);
      assert.deepEqual(result.hosts, ['early', 'paused']);
    } finally {
      paused.child.kill('SIGCONT');
      await cluster.close();
      await raw.close();
    }
  });

  it('a run config with a cluster: section runs across hosts; the record hides its token', async () => {
    const { prefix } = await startHosts(['cfg1', 'cfg2']);
    const file = path.join(tmp, 'cluster.yaml');
    writeFileSync(
      file,
      `n: 16\nseed: 5\ncluster:\n  nats: ${broker.server.url.replace('nats://', 'nats://s3cret-token@')}\n  hosts: 2\n  prefix: ${prefix}\n`,
    );
    const r = await solve(['--config', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.record.hosts, ['cfg1', 'cfg2']);
    assert.equal(r.record.config.islands, 2, 'islands default to what the hosts offer');
    assert.deepEqual(r.record.config.cluster, { nats: broker.server.url.replace('nats://', 'nats://***@'), hosts: 2, prefix, wait: 30 });
    assert.ok(!JSON.stringify(r.record).includes('s3cret'));
    const refused = await solve(['--config', file, '--checkpoint', path.join(tmp, 'x.ckpt')]);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /^nqueens-islands: --checkpoint: not with cluster: in the run config \(islands on other hosts are not checkpointed\)$/m,
    );
  });

  it("malformed messages and messages of another run on a run's subjects are dropped and counted, never a crash", async () => {
    const { prefix } = await startHosts(['m1', 'm2']);
    const raw = await connect({ servers: broker.server.url.replace('nats://', '') });
    const packr = new Packr({ moreTypes: true });
    // The first message of the run names its subjects: answer it with garbage on each of them.
    let spoiled = false;
    raw.subscribe(`${prefix}.run.>`, {
      callback: (_e, msg) => {
        if (spoiled) return;
        spoiled = true;
        const base = msg.subject.split('.').slice(0, -1).join('.');
        for (const to of ['coordinator', ...['m1', 'm2']]) {
          raw.publish(`${base}.${to}`, new Uint8Array([0xc1, 1, 2]));
          raw.publish(
            `${base}.${to}`,
            writeFrame({ from: 'x1', seq: 1, scope: 'another0run', body: packr.pack({ type: 'halt', runId: 'another0run' }) }),
          );
        }
        raw.publish(
          `${base}.coordinator`,
          writeFrame({
            from: 'x2',
            seq: 1,
            scope: 'another0run',
            body: packr.pack({ type: 'report', runId: 'another0run', island: 0, bytes: null, error: 'x' }),
          }),
        );
      },
    });
    await raw.flush();
    try {
      const r = await solve([
        '-n',
        '28',
        '--seed',
        '9',
        '--islands',
        '2',
        '--migration',
        'sync',
        '--interval',
        '4',
        '--nats',
        broker.server.url,
        '--nats-prefix',
        prefix,
        '--hosts',
        '2',
      ]);
      const local = await solve(['-n', '28', '--seed', '9', '--islands', '2', '--migration', 'sync', '--interval', '4']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(spoiled);
      assert.deepEqual(repeatablePart(r.record), repeatablePart(local.record), 'the garbage changed nothing');
      assert.match(r.stderr, /nqueens-islands: [1-9]\d* bus messages dropped \([1-9]\d* malformed\)/);
      // The record carries the counts (solve --json, --out); a run on one machine has no bus to count.
      const { dropped } = r.record.bus;
      assert.deepEqual(Object.keys(dropped).sort(), ['foreign', 'invalid', 'malformed', 'unauthenticated']);
      assert.ok(dropped.malformed >= 1, JSON.stringify(dropped));
      assert.equal(local.record.bus, undefined);
    } finally {
      await raw.close();
    }
  });

  it('too few idle hosts within --wait: one line, exit 2', async () => {
    const r = await solve(['-n', '8', '--nats', broker.server.url, '--nats-prefix', 'nobody-here', '--hosts', '1', '--wait', '0.2']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^nqueens-islands: --hosts 1: only 0 idle hosts answered on nats:\/\/127\.0\.0\.1:\d+ within 0\.2 s/);
  });
});
