/**
 * Messages larger than the broker's `max_payload` (issue 39, class 9): a study's results with
 * their event lines travel in parts (src/cluster/bus/parts.ts) on a real nats-server whose
 * `max_payload` is 16 KiB, and come out whole, recorded once, as do a spread run's orders and
 * island reports; parts out of order, of another batch or past the bound are dropped, never
 * put together wrong.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PartsAssembly, partsOf } from '../src/cluster/bus/parts.ts';
import { startLocalBroker, type NatsServer } from '../src/cluster/local-broker.ts';
import { runStudyOnCluster } from '../src/cluster/study/study.ts';
import { joinCluster } from '../src/cluster/index.ts';
import { solve } from '../src/index.ts';
import { readFrame } from '../src/cluster/bus/frame.ts';
import { connect } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { loadExperiment } from '../src/experiment/load.ts';
import { readRuns } from '../src/experiment/store.ts';
import { localCluster, nats } from './nats-server.ts';
import { cliAsync, oneLine } from './cli-helpers.ts';
import { MIN_MAX_PAYLOAD } from '../src/cluster/bus/connection.ts';
import { TEST_MAX_EVENT_BYTES_ENV } from '../src/cluster/defaults.ts';

const packr = new Packr({ moreTypes: true });

const dir = mkdtempSync(path.join(tmpdir(), 'nq-parts-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('a message cut into parts and put together again', () => {
  const frame = Uint8Array.from({ length: 10_000 }, (_, i) => i % 251);
  const parts = partsOf(frame, 3000)!;

  it('fits whole: no parts; larger: parts that each fit, in order, whole again', () => {
    assert.equal(partsOf(frame, 10_000), null);
    assert.ok(parts.length >= 5, `${parts.length} parts`);
    const assembly = new PartsAssembly(1e6);
    const kinds = parts.map((part) => assembly.add('a', part));
    assert.deepEqual(
      kinds.slice(0, -1).map((k) => k.kind),
      parts.slice(1).map(() => 'more'),
    );
    const last = kinds.at(-1)!;
    assert.equal(last.kind, 'whole');
    assert.deepEqual(last.kind === 'whole' ? [...last.frame] : null, [...frame]);
  });

  it('a part lost, out of order, of another batch or past the bound drops the batch', () => {
    const other = partsOf(frame, 3000)!;
    const cases: [string, (assembly: PartsAssembly) => string[]][] = [
      ['a part lost', (a) => [parts[0], parts[2]].map((p) => a.add('a', p).kind)],
      ['out of order', (a) => [parts[0], parts[2], parts[1]].map((p) => a.add('a', p).kind)],
      ['another batch', (a) => [parts[0], other[1]].map((p) => a.add('a', p).kind)],
      ['another sender', (a) => [a.add('a', parts[0]).kind, a.add('b', parts[1]).kind]],
    ];
    for (const [name, play] of cases) assert.equal(play(new PartsAssembly(1e6)).at(-1), 'dropped', name);
    const small = new PartsAssembly(5000);
    assert.deepEqual(
      parts.slice(0, 3).map((p) => small.add('a', p).kind),
      ['more', 'more', 'dropped'],
    );
  });
});

describe('unfinished parts are bounded, whoever sends them', () => {
  const frame = Uint8Array.from({ length: 10_000 }, (_, i) => i % 251);
  const parts = partsOf(frame, 3000)!;
  const room = parts[0].bytes.length;

  it('in bytes, over all senders: the oldest batch goes to make room, and is counted', () => {
    const assembly = new PartsAssembly(2 * room + 100);
    assert.deepEqual(
      [assembly.add('a', parts[0]), assembly.add('a', parts[1]), assembly.add('b', parts[0])].map((k) => k.kind),
      ['more', 'more', 'more'],
    );
    assert.equal(assembly.takeDropped(), 1, "a's batch made room for b's");
    assert.equal(assembly.heldBytes, room);
    assert.equal(assembly.add('a', parts[2]).kind, 'dropped');
    // Many senders (keyless parties send parts too): what is held never passes the bound.
    const crowd = new PartsAssembly(10 * room);
    for (let k = 0; k < 200; k++) {
      crowd.add(`s${k}`, parts[0]);
      assert.ok(crowd.heldBytes <= 10 * room, `${crowd.heldBytes} bytes held after ${k + 1} senders`);
    }
    assert.equal(crowd.takeDropped(), 190);
  });

  it('in time: a batch whose next part does not come within the gap is dropped, and counted', () => {
    let now = 0;
    const assembly = new PartsAssembly(1e6, 10_000, () => now);
    assert.equal(assembly.add('a', parts[0]).kind, 'more');
    now = 10_001;
    assert.equal(assembly.add('b', parts[0]).kind, 'more');
    assert.equal(assembly.takeDropped(), 1);
    assert.equal(assembly.add('a', parts[1]).kind, 'dropped');
    now = 15_000;
    assert.equal(assembly.add('b', parts[1]).kind, 'more', 'within the gap of its last part');
  });
});

describe('study results larger than the broker takes whole', { skip: nats.skip, timeout: 240_000 }, () => {
  const cluster = localCluster('p');
  let small: NatsServer;
  const maxPayload = 16 * 1024;
  before(async () => {
    small = await startLocalBroker(nats.path(), { maxPayload });
  });
  after(() => small?.stop());
  /** Two runs at N = 60 on 2 islands whose event lines pass 16 KiB, as `name.yaml` from `seed`. */
  const eventsStudy = (name: string, seed: number) => {
    const file = path.join(dir, `${name}.yaml`);
    writeFileSync(
      file,
      `base: { overrides: { islands: 2, ga: { populationSize: 40 }, limits: { maxIterations: 300 } } }\nsweep:\n  n: [60]\nrepeats: 2\nseed: ${seed}\n`,
    );
    return loadExperiment(file, { availableParallelism: 2, totalMemory: 8e9 });
  };

  it('an --events study on a broker of max_payload 16 KiB records every run once, its event lines whole', async () => {
    const { prefix, hosts } = await cluster.startHosts(['big1'], { url: small.url });
    const experiment = eventsStudy('events', 3);
    const out = path.join(dir, 'events');
    const outcome = await runStudyOnCluster(experiment, { outDir: out, resume: false, events: true, nats: small.url, hosts: 1, prefix });
    assert.deepEqual([outcome.completed, outcome.stoppedBy, outcome.droppedText], [2, null, '']);
    const { runs } = readRuns(path.join(out, 'runs.jsonl'));
    assert.deepEqual(runs.map((r) => [r.seed, r.error]).sort(), experiment.seeds.map((s) => [s, null]).sort());
    const files = readdirSync(path.join(out, 'events'));
    assert.equal(files.length, 2);
    for (const name of files) {
      const text = readFileSync(path.join(out, 'events', name), 'utf8');
      assert.ok(text.length > 2 * maxPayload, `${name}: ${text.length} bytes, more than one message could carry`);
      for (const line of text.trimEnd().split('\n')) JSON.parse(line);
    }
    assert.doesNotMatch(hosts.get('big1')!.stderr(), /not confirmed|left study \S+:/);
  });

  it('a run whose event lines pass their bound is recorded as failed, saying so, after one retry (NQI_TEST_MAX_EVENT_BYTES lowers the 240 MiB)', async () => {
    const { prefix, hosts } = await cluster.startHosts(['bound1'], { url: small.url, env: { [TEST_MAX_EVENT_BYTES_ENV]: '4096' } });
    const experiment = eventsStudy('bound', 5);
    const out = path.join(dir, 'bound');
    const retried: string[] = [];
    const hooks = { onRetry: (run: { seed: number }, error: string) => void retried.push(`${run.seed}: ${error}`) };
    const outcome = await runStudyOnCluster(experiment, {
      outDir: out,
      resume: false,
      events: true,
      nats: small.url,
      hosts: 1,
      prefix,
      hooks,
    });
    const why = "its event lines exceed the 4096 bytes a cluster study's result may carry (run it without --events, or without --cluster)";
    assert.deepEqual([outcome.completed, outcome.stoppedBy], [2, null]);
    assert.deepEqual(retried.sort(), experiment.seeds.map((s) => `${s}: ${why}`).sort(), 'each run once more, no more');
    const { runs } = readRuns(path.join(out, 'runs.jsonl'));
    assert.deepEqual(runs.map((r) => [r.seed, r.error, r.host]).sort(), experiment.seeds.map((s) => [s, why, 'bound1']).sort());
    // The same runs carry their lines under the bound (the test above): here none is written.
    assert.deepEqual(
      readdirSync(path.join(out, 'events')).filter((name) => statSync(path.join(out, 'events', name)).size > 0),
      [],
    );
    assert.doesNotMatch(hosts.get('bound1')!.stderr(), /not confirmed|left study \S+:/);
  });

  it('a run spread over two hosts (N = 4000: orders and island reports past 16 KiB) ends as the same run in one process does', async () => {
    const { prefix } = await cluster.startHosts(['wide1', 'wide2'], { url: small.url });
    const joined = await joinCluster({ nats: small.url, prefix, hosts: 2 });
    // A listener on the run's subjects counts the parts that pass (a frame's body is signed, not encrypted).
    const raw = await connect({ servers: small.url.replace('nats://', '') });
    let parts = 0;
    raw.subscribe(`${prefix}.>`, {
      callback: (_error, msg) => {
        const frame = readFrame(msg.data);
        if (frame && (packr.unpack(frame.body) as { type?: unknown }).type === 'part') parts++;
      },
    });
    try {
      const config = { n: 4000, seed: 3, migration: { mode: 'sync' as const, interval: 2 }, limits: { maxIterations: 6 } };
      const spread = await solve(config, { cluster: joined });
      const local = await solve({ ...config, islands: 2 });
      assert.equal(spread.ended, 'max-iterations', JSON.stringify(spread.failures));
      assert.deepEqual(spread.hosts, ['wide1', 'wide2']);
      assert.equal(spread.best!.length, 4000);
      assert.deepEqual([spread.fitness, spread.evaluations], [local.fitness, local.evaluations], 'a sync run repeats on any placement');
      await raw.flush();
      assert.ok(parts > 0, 'messages went in parts');
    } finally {
      await raw.close();
      await joined.close();
    }
  });
});

describe("the broker's smallest max_payload", { skip: nats.skip, timeout: 240_000 }, () => {
  const cluster = localCluster('mp');
  const brokers: NatsServer[] = [];
  after(() => Promise.all(brokers.map((b) => b.stop())));
  const broker = async (maxPayload: number) => {
    const server = await startLocalBroker(nats.path(), { maxPayload });
    brokers.push(server);
    return server;
  };

  it(`below ${MIN_MAX_PAYLOAD} bytes: a host refuses it at start in one line, exit 2`, async () => {
    const server = await broker(1024);
    const r = await cliAsync(['host', '--nats', server.url, '--islands', '1']);
    assert.equal(
      oneLine(r, 'a broker of max_payload 1024'),
      `--nats ${server.url}: the broker's max_payload is 1024 bytes; this tool needs at least ${MIN_MAX_PAYLOAD} (raise max_payload in the broker's configuration)`,
    );
  });

  it(`at ${MIN_MAX_PAYLOAD} bytes: a run spread over two hosts sends its migrants in parts and ends normally`, async () => {
    const server = await broker(MIN_MAX_PAYLOAD);
    const { prefix } = await cluster.startHosts(['tiny1', 'tiny2'], { url: server.url });
    // N = 300: each iteration's 20 migrants take ~12 KB, three times what the broker takes whole.
    // Sync: each island waits for its neighbour's migrants, so each receives every one of them.
    const r = await cliAsync([
      'solve',
      '--json',
      ...['-n', '300', '--seed', '3', '--islands', '2', '--migration', 'sync', '--interval', '1', '--max-iterations', '40'],
      ...['--nats', server.url, '--nats-prefix', prefix, '--hosts', '2'],
    ]);
    assert.equal(r.code, 1, r.stderr);
    const record = JSON.parse(r.stdout);
    assert.deepEqual(record.failures, []);
    assert.deepEqual(
      record.islands.map((i: { host: string; iterations: number; migrantsSent: number; migrantsReceived: number }) => [
        i.host,
        i.iterations,
        i.migrantsSent,
        i.migrantsReceived,
      ]),
      [
        ['tiny1', 40, 800, 800],
        ['tiny2', 40, 800, 800],
      ],
    );
  });
});
