/**
 * A bystander (a party on the broker without the cluster key) and a key-holder that is not
 * in the study, on a real nats-server with `host` processes of the built CLI (issue 39,
 * class 8): neither can stall a run or a study, nor write records that are not theirs.
 * Waits are for lines, hooks and exits only.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { encode } from '../src/archipelago/codec.ts';
import type { IslandReport } from '../src/archipelago/messages.ts';
import { SayOnce } from '../src/cluster/bus/bounded.ts';
import { carried } from '../src/cluster/bus/carried.ts';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { readFrame, writeFrame } from '../src/cluster/bus/frame.ts';
import { clusterKeyOf } from '../src/cluster/bus/key.ts';
import { BUS_FORMAT, type BusMessage } from '../src/cluster/bus/messages.ts';
import { runStudyOnCluster } from '../src/cluster/study/study.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { readRuns } from '../src/experiment/store.ts';
import { isOneLineError, spawnCli } from './cli-helpers.ts';
import { IDLE_ISLANDS } from './helpers.ts';
import { localCluster, nats } from './nats-server.ts';
import { zeroMeasures } from '../src/archipelago/island-counters.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'nq-bystander-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const KEY = 'the-cluster-key-of-the-bystander-test-0123';
const keyed = { NQI_CLUSTER_KEY: KEY };
const packr = new Packr({ moreTypes: true });
const env = { availableParallelism: 2, totalMemory: 8e9 };

function keyFile(name: string, key: string, mode = 0o600): string {
  const file = path.join(tmp, name);
  writeFileSync(file, `${key}\n`, { mode });
  chmodSync(file, mode);
  return file;
}

function experiment(name: string, text: string) {
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(file, text);
  return loadExperiment(file, env);
}

/** The body of a frame as a bystander reads it (the bus is signed, not encrypted). */
function bodyOf(data: Uint8Array): Record<string, unknown> {
  return packr.unpack(readFrame(data)!.body) as Record<string, unknown>;
}

async function rawClient(url: string): Promise<NatsConnection> {
  return connect({ servers: url.replace(/^nats:\/\//, ''), noEcho: true });
}

describe('unit: what a bystander sends is bounded', () => {
  it('a report without survivals (or any field of IslandReport) is refused where it lands, not handed on', () => {
    const report: IslandReport = {
      type: 'report',
      island: 0,
      iterations: 3,
      evaluations: 120,
      bestFitness: 1,
      best: new Uint16Array([0, 1, 2, 3]),
      solution: null,
      foundAtIteration: -1,
      foundAt: 0,
      claimed: false,
      ...zeroMeasures(),
      startedAt: 1,
      stoppedAt: 2,
      stopReason: 'stopped',
      migrations: new Int32Array(0),
      survivals: new Int32Array(0),
      evaluationsFrom: 0,
      evaluationsAt: new Float64Array(0),
      course: new Float64Array(0),
    };
    assert.notEqual(carried('report', encode(report)), null, 'the whole report passes');
    for (const field of ['survivals', 'migrantsReceived', 'evaluationsAt', 'immigrantsChecked', 'course']) {
      const { [field]: _gone, ...rest } = report as unknown as Record<string, unknown>;
      assert.equal(carried('report', encode(rest as unknown as IslandReport)), null, `a report without ${field} is refused`);
    }
  });

  it('with a key, a frame of another tool version is checked before it is read: unsigned it is unauthenticated, not a foreign sender', () => {
    const key = clusterKeyOf({ clusterKey: KEY });
    const codec = new BusCodec('me', key);
    const subject = 'nqi.hosts.heartbeat';
    const body = packr.pack({ type: 'host', id: 'x', name: 'x', islands: 1, busy: false });
    const unsigned = writeFrame({ from: 'intruder', seq: 1, scope: '', body, tool: '0.0.1-other' });
    assert.equal(codec.decode(subject, unsigned, ['host']).kind, 'unauthenticated');
    // A key-holder of another version is named, as before.
    const signedBy = new BusCodec('other', key).encode(subject, { type: 'host', id: 'other', name: 'o', islands: 1, busy: false });
    const frame = readFrame(signedBy)!;
    assert.equal(frame.format, BUS_FORMAT);
    // Without a key nothing can be checked: the foreign sender is named.
    assert.equal(new BusCodec('me', null).decode(subject, unsigned, ['host']).kind, 'foreign');
  });

  it('names are said once each, for the first few only: a flood of new names is one more line, then nothing', () => {
    const lines: string[] = [];
    const once = new SayOnce(8, (line) => lines.push(line));
    for (let k = 0; k < 1000; k++) once.say(`name${k}`, `line ${k}`);
    for (let k = 0; k < 8; k++) once.say(`name${k}`, 'again');
    assert.equal(lines.length, 9);
    assert.match(lines[8], /further ones are only counted/);
  });
});

describe('a bystander and a key-holder on a real broker', { skip: nats.skip, timeout: 240_000 }, () => {
  const cluster = localCluster('b');
  const url = () => cluster.server.url;

  it("a bystander answering every island order first (garbage, or a well-formed refusal of its own) stalls no run: the ordered hosts answer, and the text result names the winner's host", async () => {
    for (const env of [keyed, {}]) {
      const { prefix } = await cluster.startHosts(['h1', 'h2'], { env });
      const raw = await rawClient(url());
      const bystander = new BusCodec('bystander', null);
      let answered = 0;
      raw.subscribe(`${prefix}.host.*.islands`, {
        callback: (_e, msg) => {
          const runId = String(bodyOf(msg.data).runId);
          answered++;
          msg.respond(new Uint8Array([1, 2, 3]));
          msg.respond(bystander.encode(msg.reply!, { type: 'refused', runId, reason: 'a bystander says no' }));
        },
      });
      await raw.flush();
      try {
        const solve = spawnCli(
          ['solve', '-n', '12', '--seed', '3', '--islands', '2', '--nats', url(), '--nats-prefix', prefix, '--hosts', '2'],
          {
            env,
          },
        );
        const exit = await solve.exited;
        assert.equal(exit.code, 0, solve.stderr());
        assert.match(solve.stdout(), /^solved N=12/m);
        assert.match(solve.stdout(), /found by island \d on host h[12] at iteration/);
        assert.doesNotMatch(solve.stderr(), /a bystander says no|did not accept/);
        assert.ok(answered >= 2, 'the bystander answered the orders');
      } finally {
        await raw.close();
      }
    }
  });

  it('a halt forged by a bystander (keyless cluster) is not recorded as a time limit: the halted islands fail, saying why', async () => {
    const { prefix } = await cluster.startHosts(['f1'], {});
    const raw = await rawClient(url());
    let forged = false;
    // The order names the run, its hosts and the coordinator's id: all a forger needs without a key.
    raw.subscribe(`${prefix}.host.*.islands`, {
      callback: (_e, msg) => {
        const order = bodyOf(msg.data) as unknown as BusMessage<'islands'>;
        raw.subscribe(`${prefix}.run.${order.runId}.coordinator`, {
          max: 1,
          callback: () => {
            // Signed as the coordinator would be, were there a key: `from` is the coordinator's id.
            const coordinator = new BusCodec(order.coordinator, null);
            for (const host of new Set(order.hostOf))
              raw.publish(
                `${prefix}.run.${order.runId}.${host}`,
                coordinator.encode(`${prefix}.run.${order.runId}.${host}`, { type: 'halt', runId: order.runId }),
              );
            forged = true;
          },
        });
      },
    });
    await raw.flush();
    try {
      const solve = spawnCli(
        ['solve', '--json', '-n', '3000', '--seed', '3', '--islands', '1', '--nats', url(), '--nats-prefix', prefix, '--hosts', '1'],
        {},
      );
      const exit = await solve.exited;
      assert.ok(forged, 'the halt was sent');
      const record = JSON.parse(solve.stdout());
      assert.notEqual(record.ended, 'time-limit');
      assert.match(JSON.stringify(record.failures), /a halt this coordinator did not send/);
      assert.equal(exit.code, 3);
    } finally {
      await raw.close();
    }
  });

  it('a key-holder that is not in the study cannot write its records, even records valid for its runs', async () => {
    const { prefix } = await cluster.startHosts(['s1'], { env: keyed });
    const text = 'base: { overrides: { islands: 1, ga: { populationSize: 40 } } }\nsweep:\n  n: [8, 10, 12]\nrepeats: 3\nseed: 5\n';
    // A study of `text` named `name` on the keyed host, into tmp/name.
    const study = (name: string) =>
      runStudyOnCluster(experiment(name, text), {
        outDir: path.join(tmp, name),
        resume: false,
        events: false,
        nats: url(),
        hosts: 1,
        prefix,
        clusterKey: KEY,
      });
    const first = path.join(tmp, 'first');
    await study('first');
    const valid = readRuns(path.join(first, 'runs.jsonl')).runs;
    assert.equal(valid.length, 9);
    // The key-holder: as soon as the second study starts a run, it sends every record of the first, valid for the same runs.
    const raw = await rawClient(url());
    const intruder = new BusCodec('intruder', clusterKeyOf({ clusterKey: KEY }));
    let sent = 0;
    raw.subscribe(`${prefix}.study.*.started`, {
      max: 1,
      callback: (_e, msg) => {
        const session = msg.subject.split('.')[2];
        const subject = `${prefix}.study.${session}.result`;
        for (const record of valid) {
          const runId = `${record.cell}#${record.seed}`;
          const done: BusMessage<'run-done'> = {
            type: 'run-done',
            session,
            runId,
            host: 'intruder',
            record: { ...record, host: 'intruder' },
            events: [],
          };
          raw.request(subject, intruder.encode(subject, done), { timeout: 2000 }).catch(() => {});
          sent++;
        }
      },
    });
    await raw.flush();
    try {
      const second = path.join(tmp, 'second');
      const outcome = await study('second');
      assert.equal(sent, 9);
      assert.equal(outcome.completed, 9);
      const hosts = readRuns(path.join(second, 'runs.jsonl')).runs.map((r) => r.host);
      assert.deepEqual([...new Set(hosts)], ['s1']);
      assert.ok(outcome.dropped >= 1, outcome.droppedText);
    } finally {
      await raw.close();
    }
  });

  it("deleting a study's queue mid-study: the coordinator stops with one line, the host leaves it once and does not rejoin", async () => {
    // The study's runs only have to take their time while the queue is deleted: asleep (IDLE_ISLANDS).
    const { prefix, hosts } = await cluster.startHosts(['q1'], { env: IDLE_ISLANDS });
    const host = hosts.get('q1')!;
    const slow =
      'base: { overrides: { islands: 1, ga: { populationSize: 40 }, limits: { timeLimit: 1 } } }\nsweep:\n  n: [3000]\nrepeats: 4\nseed: 5\n';
    const raw = await rawClient(url());
    const jsm = await jetstreamManager(raw);
    const lines: string[] = [];
    let deleted = false;
    try {
      const outcome = await runStudyOnCluster(experiment('deleted', slow), {
        outDir: path.join(tmp, 'deleted'),
        resume: false,
        events: false,
        nats: url(),
        hosts: 1,
        prefix,
        log: (line) => lines.push(line),
        hooks: {
          onRunStart() {
            if (deleted) return;
            deleted = true;
            void (async () => {
              for await (const name of jsm.streams.names()) if (name.startsWith(`${prefix}_study_`)) await jsm.streams.delete(name);
            })();
          },
        },
      });
      assert.equal(outcome.stoppedBy, 'queue-lost');
      assert.equal(lines.filter((l) => /was deleted on the broker/.test(l)).length, 1, lines.join('\n'));
      host.child.kill('SIGTERM');
      await host.exited;
      const said = host.stderr();
      assert.ok(said.split('\n').filter((l) => /left study/.test(l)).length <= 2, said);
      assert.equal(said.split('\n').filter((l) => /joined study/.test(l)).length, 1, said);
    } finally {
      await raw.close();
    }
  });

  it('`hosts --cluster-key-file` lists only hosts that sign with that key; a key or creds file others may read is refused in one line', async () => {
    const { prefix } = await cluster.startHosts(['k1'], { env: keyed });
    const right = keyFile('right.key', KEY);
    const wrong = keyFile('wrong.key', 'another-key-entirely-0123456789');
    const list = async (file: string) => {
      const run = spawnCli(['hosts', '--json', '--nats', url(), '--nats-prefix', prefix, '--cluster-key-file', file]);
      const exit = await run.exited;
      assert.equal(exit.code, 0, run.stderr());
      return (JSON.parse(run.stdout()) as { hosts: { name: string }[] }).hosts.map((h) => h.name);
    };
    assert.deepEqual(await list(right), ['k1']);
    assert.deepEqual(await list(wrong), []);
    for (const [flag, file] of [
      ['--cluster-key-file', keyFile('open.key', KEY, 0o644)],
      ['--nats-creds', keyFile('open.pw', 'secret', 0o640)],
    ]) {
      const run = spawnCli(['host', '--nats', url(), flag, file]);
      const exit = await run.exited;
      assert.equal(exit.code, 2);
      assert.ok(isOneLineError({ code: exit.code, stdout: run.stdout(), stderr: run.stderr() }), run.stderr());
      assert.match(run.stderr(), new RegExp(`${flag} .*: other users may read it \\(mode 06[0-7]{2}\\).*chmod 600`));
    }
  });

  it('`broker` starts nats-server from PATH on loopback with JetStream, prints its URL, serves a study, and stops on Ctrl-C removing its store', async () => {
    const broker = spawnCli(['broker'], { env: { PATH: `${path.dirname(nats.path())}${path.delimiter}${process.env.PATH ?? ''}` } });
    await broker.waitForStderr(/broker ready on nats:\/\/127\.0\.0\.1:\d+/);
    const url = broker.stdout().trim();
    assert.match(url, /^nats:\/\/127\.0\.0\.1:\d+$/);
    const { prefix } = await cluster.startHosts(['local1'], { url });
    const outcome = await runStudyOnCluster(
      experiment('local', 'base: { overrides: { islands: 1 } }\nsweep:\n  n: [8]\nrepeats: 2\nseed: 5\n'),
      {
        outDir: path.join(tmp, 'local'),
        resume: false,
        events: false,
        nats: url,
        hosts: 1,
        prefix,
      },
    );
    assert.equal(outcome.completed, 2);
    broker.child.kill('SIGINT');
    const exit = await broker.exited;
    assert.equal(exit.code, 0, broker.stderr());
    assert.match(broker.stderr(), /broker stopped; its store is removed/);
  });

  it('`broker` without nats-server on PATH: one line naming what to install, exit 2', async () => {
    const run = spawnCli(['broker'], { env: { PATH: tmp } });
    const exit = await run.exited;
    assert.ok(isOneLineError({ code: exit.code, stdout: run.stdout(), stderr: run.stderr() }), run.stderr());
    assert.match(run.stderr(), /no nats-server on PATH/);
  });
});
