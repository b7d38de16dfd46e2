/**
 * A hostile party on the broker, on a real nats-server with `host` processes of the built
 * CLI: it can read every subject and publish on any (as anyone with publish rights can).
 * It sends orders naming code, malformed messages of every subject, and forged stops,
 * halts, solutions, bests, progress, reports and study results; the tool runs no code it
 * names, stays up for the next run, and prints the result it would have printed anyway.
 * Waits are for lines, replies and exits only.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import policyExtension from './fixtures/policy-extension.ts';
import { decode, encode } from '../src/archipelago/codec.ts';
import { extendRegistries } from '../src/archipelago/extension.ts';
import type { IslandTask } from '../src/archipelago/messages.ts';
import { BUS_FORMAT, type BusMessage } from '../src/cluster/bus/messages.ts';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { carried } from '../src/cluster/bus/carried.ts';
import { readFrame, writeFrame } from '../src/cluster/bus/frame.ts';
import { clusterKeyOf } from '../src/cluster/bus/key.ts';
import { joinCluster } from '../src/cluster/launcher/join-cluster.ts';
import { startHost } from '../src/cluster/host/host.ts';
import { runStudyOnCluster } from '../src/cluster/study/study.ts';
import { REGISTRIES } from '../src/config/registries.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { readRuns } from '../src/experiment/store.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { RunFailedError } from '../src/run/errors.ts';
import { startSeededRun } from '../src/run/start-run.ts';
import { spawnCli } from './cli-helpers.ts';
import { fixtureModule } from './paths.ts';
import { repeatablePart, withSourceWorker } from './helpers.ts';
import { localCluster, nats } from './nats-server.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'nq-hostile-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const KEY = 'the-cluster-key-of-this-test-0123456789';
const keyed = { NQI_CLUSTER_KEY: KEY };
const packr = new Packr({ moreTypes: true });
const EXTENSION = fixtureModule('policy-extension');

/** What a bystander reads off the bus: the frame and its body (the bus is not encrypted). */
function read(data: Uint8Array): { from: string; body: Record<string, unknown> } {
  const frame = readFrame(data)!;
  return { from: frame.from, body: packr.unpack(frame.body) as Record<string, unknown> };
}

/** Host ids by name, from their heartbeats (a bystander learns them so). */
async function hostIds(raw: NatsConnection, prefix: string, names: readonly string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  return new Promise((resolve) => {
    const sub = raw.subscribe(`${prefix}.hosts.heartbeat`, {
      callback: (_e, msg) => {
        const { body } = read(msg.data);
        ids.set(body.name as string, body.id as string);
        if (names.every((n) => ids.has(n))) {
          sub.unsubscribe();
          resolve(ids);
        }
      },
    });
  });
}

const SYNC = ['-n', '28', '--seed', '9', '--islands', '2', '--migration', 'sync', '--interval', '4'];

describe('a hostile party on the broker', { skip: nats.skip, timeout: 300_000 }, () => {
  const cluster = localCluster('x');
  const url = () => cluster.server.url;

  async function solve(args: string[], env: NodeJS.ProcessEnv = {}) {
    const run = spawnCli(['solve', '--json', ...args], { env });
    const exit = await run.exited;
    return {
      code: exit.code,
      stderr: run.stderr(),
      record: exit.code === 0 || exit.code === 1 || exit.code === 3 ? JSON.parse(run.stdout()) : null,
    };
  }

  it('an order naming an extension module (a file, its path, a data: URL) or carrying an unreadable task or a run of a wrong shape runs nothing: the host refuses it in one line and serves the next run', async () => {
    const { prefix, hosts } = await cluster.startHosts(['ext1']);
    const host = hosts.get('ext1')!;
    const raw = await connect({ servers: url().replace('nats://', ''), noEcho: true });
    const ids = hostIds(raw, prefix, ['ext1']);
    let captured: { subject: string; data: Uint8Array } | null = null;
    raw.subscribe(`${prefix}.host.*.islands`, {
      callback: (_e, msg) => {
        captured ??= { subject: msg.subject, data: msg.data.slice() };
      },
    });
    await raw.flush();
    try {
      const first = await solve(['-n', '12', '--seed', '2', '--islands', '1', '--nats', url(), '--nats-prefix', prefix, '--hosts', '1']);
      assert.equal(first.code, 0, first.stderr);
      await host.waitForStderr(/: over/);
      await ids;
      const order = read(captured!.data).body as BusMessage<'islands'>;
      const task = decode<IslandTask>(order.tasks[0]);
      const marker = path.join(tmp, 'pwned');
      const evil = path.join(tmp, 'evil.cjs');
      writeFileSync(evil, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x'); module.exports = { default: {} };\n`);
      const dataUrl = `data:text/javascript,import('node:fs').then((fs) => fs.writeFileSync(${JSON.stringify(marker)}, 'x')); export default {};`;
      const attacker = new BusCodec('attacker1', null);
      const send = async (tasks: Uint8Array[], k: number) => {
        const forged: BusMessage<'islands'> = { ...order, runId: `evil${k}`, coordinator: 'attacker1', tasks };
        const reply = await raw.request(captured!.subject, attacker.encode(captured!.subject, forged), { timeout: 20_000 });
        const answer = attacker.decode(reply.subject, reply.data, ['refused', 'accepted']);
        assert.equal(answer.kind, 'ok');
        return answer.kind === 'ok' ? answer.message : null;
      };
      let k = 0;
      for (const named of [pathToFileURL(evil).href, evil, dataUrl]) {
        const answer = await send([encode({ ...task, extensions: [named] })], k++);
        assert.equal(answer?.type, 'refused');
        assert.match(
          answer?.type === 'refused' ? answer.reason : '',
          /^host ext1 loads no code named by a message \(the order names extension module .+\); start the host with --extension FILE instead$/,
        );
      }
      const unreadable = await send([new Uint8Array([1])], k++);
      assert.equal(unreadable?.type, 'refused');
      // A run that is not a resolved run config (a wrong shape): refused in one line naming the key, counted, never resolved again.
      const wrong = await send([encode({ ...task, run: { ...task.run, limits: { ...task.run.limits, maxIterations: Infinity } } })], k++);
      assert.equal(wrong?.type, 'refused');
      assert.match(
        wrong?.type === 'refused' ? wrong.reason : '',
        /^host ext1 got island 0 with a run that is not a resolved run config \(limits\.maxIterations: /,
      );
      assert.equal(existsSync(marker), false, 'no code ran');
      const second = await solve(['-n', '12', '--seed', '3', '--islands', '1', '--nats', url(), '--nats-prefix', prefix, '--hosts', '1']);
      assert.equal(second.code, 0, second.stderr);
      assert.match(host.stderr(), /run evil0: refused: host ext1 loads no code named by a message/);
      assert.equal(host.stdout(), '');
    } finally {
      await raw.close();
    }
  });

  it('a run needing an entry its host lacks: the host refuses in one line, which the coordinator reports; a host started with the extension runs it', async () => {
    const prefix = cluster.freshPrefix();
    const registries = extendRegistries(REGISTRIES, [policyExtension]);
    const config = {
      ...resolveRunConfig(
        { n: 12, islands: 1, migration: { replacement: 'random' } },
        'test',
        {},
        { availableParallelism: 1, totalMemory: 8e9 },
        registries,
      ),
      seed: 3,
    };
    const attempt = async (extensions: string[]) => {
      const host = await startHost({ nats: url(), prefix, name: 'lib', islands: 1, extensions });
      const joined = await joinCluster({ nats: url(), hosts: 1, prefix });
      try {
        return await startSeededRun(config, { launcher: joined.launcher, extensions: [EXTENSION] }).result.catch((error: unknown) => {
          if (error instanceof RunFailedError) return error.result;
          throw error;
        });
      } finally {
        await joined.close();
        await host.stop();
      }
    };
    const refused = await attempt([]);
    assert.equal(refused.solved, false);
    assert.deepEqual(
      refused.islands.map((i) => i.error?.message),
      ['host lib has no replacement "random": it is not built in and no --extension of this host provides it'],
    );
    const able = await withSourceWorker(() => attempt([EXTENSION]));
    assert.equal(able.solved, true);
    assert.deepEqual(validateSolution(able.solution!), { valid: true });
  });

  it('malformed messages on every subject (truncated, wrong shape, wrong types, garbage inside, huge) are dropped and counted: the result is unchanged and coordinator and hosts serve the next run and study', async () => {
    const { prefix, hosts } = await cluster.startHosts(['m1', 'm2']);
    const raw = await connect({ servers: url().replace('nats://', ''), noEcho: true });
    const seen = new Set<string>();
    const huge = new Uint8Array(900_000).fill(0x92);
    // Permutation-breaking migrants, well formed: the relay must drop them, not hand them to an island.
    const badMigrants = encode({ type: 'migrants', from: 0, epoch: 1, iteration: 1, count: 1, genes: new Uint16Array(28) });
    const spoil = (subject: string, data: Uint8Array) => {
      const frame = readFrame(data);
      let body: Record<string, unknown>;
      try {
        body = packr.unpack(frame!.body) as Record<string, unknown>;
      } catch {
        return;
      }
      const kind = `${subject.split('.').slice(1, 2).join()}:${String(body.type)}`;
      if (seen.has(kind)) return;
      seen.add(kind);
      // Unsigned (the bystander has no key): dropped for that under a key, else for what is wrong inside.
      const again = (b: Record<string, unknown>) => writeFrame({ ...frame!, seq: frame!.seq + 1e6, body: packr.pack(b) });
      raw.publish(subject, data.subarray(0, Math.max(1, data.length >> 1)));
      raw.publish(subject, huge);
      raw.publish(subject, again({ type: body.type, nonsense: true }));
      // Each field in turn of another type.
      for (const field of Object.keys(body))
        if (field !== 'type') raw.publish(subject, again({ ...body, [field]: typeof body[field] === 'string' ? 12345 : 'x' }));
      if ('bytes' in body) {
        raw.publish(subject, again({ ...body, bytes: new Uint8Array([0xc1, 1]) }));
        if (body.type === 'migrants') raw.publish(subject, again({ ...body, bytes: badMigrants }));
      }
    };
    raw.subscribe(`${prefix}.>`, { callback: (_e, msg) => spoil(msg.subject, msg.data) });
    await raw.flush();
    try {
      const [spread, local] = await Promise.all([solve([...SYNC, '--nats', url(), '--nats-prefix', prefix, '--hosts', '2']), solve(SYNC)]);
      assert.equal(spread.code, 0, spread.stderr);
      assert.deepEqual(repeatablePart(spread.record), repeatablePart(local.record), 'the garbage changed nothing');
      assert.match(spread.stderr, /nqueens-islands: [1-9]\d* bus messages dropped \([1-9]\d* malformed/);
      for (const kind of ['hosts:host', 'hosts:discover', 'host:islands', 'run:migrants', 'run:state', 'run:control', 'run:report'])
        assert.ok(seen.has(kind), `spoiled ${kind}: ${[...seen].join(' ')}`);
      const next = await solve([...SYNC, '--nats', url(), '--nats-prefix', prefix, '--hosts', '2']);
      assert.deepEqual(repeatablePart(next.record), repeatablePart(local.record));
      const file = path.join(tmp, 'spoiled.yaml');
      writeFileSync(file, 'base: { overrides: { islands: 1, ga: { populationSize: 40 } } }\nsweep:\n  n: [8, 10]\nrepeats: 2\nseed: 5\n');
      const out = path.join(tmp, 'spoiled');
      const outcome = await runStudyOnCluster(loadExperiment(file, { availableParallelism: 2, totalMemory: 8e9 }), {
        outDir: out,
        resume: false,
        events: true,
        nats: url(),
        hosts: 2,
        prefix,
      });
      assert.deepEqual([outcome.completed, outcome.stoppedBy], [4, null]);
      assert.ok(outcome.dropped > 0);
      for (const kind of ['study:run-started', 'study:run-done', 'host:invite']) assert.ok(seen.has(kind), `spoiled ${kind}`);
      assert.equal(readRuns(path.join(out, 'runs.jsonl')).runs.length, 4);
      for (const host of hosts.values()) {
        assert.equal(host.stdout(), '', "nothing on a host's stdout");
        host.child.kill('SIGTERM');
        assert.equal((await host.exited).code, 0, host.stderr());
        assert.match(host.stderr(), /[1-9]\d* bus messages dropped \(/);
      }
    } finally {
      await raw.close();
    }
  });

  it('with a cluster key, forged and replayed stops, halts, claims, bests, progress and reports change no result; without one, forged solutions and bests fail the checks', async () => {
    for (const env of [keyed, {}]) {
      const { prefix } = await cluster.startHosts(['f1', 'f2'], { env });
      const raw = await connect({ servers: url().replace('nats://', ''), noEcho: true });
      const ids = await hostIds(raw, prefix, ['f1', 'f2']);
      // Without the key (or with another one): what a bystander can sign.
      const forger = new BusCodec(ids.get('f1')!, env === keyed ? clusterKeyOf({ clusterKey: 'not-the-cluster-key-0123456789' }) : null);
      const runs = new Set<string>();
      const identity = new Uint16Array(28).map((_, i) => i);
      const control = (message: object) => encode(message as never);
      raw.subscribe(`${prefix}.run.>`, {
        callback: (_e, msg) => {
          const runId = msg.subject.split('.')[2];
          // Replay whatever passes by, once, to where it was going.
          if (env === keyed) raw.publish(msg.subject, msg.data);
          if (runs.has(runId)) return;
          runs.add(runId);
          const toCoordinator = `${prefix}.run.${runId}.coordinator`;
          const forge = (subject: string, message: BusMessage) => raw.publish(subject, forger.encode(subject, message));
          forge(toCoordinator, {
            type: 'control',
            runId,
            bytes: control({ type: 'solution', island: 0, iteration: 1, genes: identity, foundAt: Date.now() }),
          });
          forge(toCoordinator, {
            type: 'control',
            runId,
            bytes: control({ type: 'best', island: 0, bestFitness: 0, best: identity.slice(0, 27) }),
          });
          forge(toCoordinator, { type: 'control', runId, bytes: control({ type: 'best', island: 0, bestFitness: 0, best: identity }) });
          if (env !== keyed) return; // without a key the bus is trusted as it is: only what fails the checks is refused
          forge(toCoordinator, {
            type: 'control',
            runId,
            bytes: control({
              type: 'progress',
              island: 0,
              iteration: 5,
              evaluations: 1,
              bestFitness: 0,
              meanFitness: 0,
              diversity: 0,
              migrantsSent: 0,
              migrantsAccepted: 0,
              time: Date.now(),
              migrations: new Int32Array(0),
            }),
          });
          forge(toCoordinator, { type: 'state', runId, reached: [], foundEpoch: 1, stop: 2, winner: -1, ledger: [], ledgerFound: 0 });
          forge(toCoordinator, { type: 'report', runId, island: 0, bytes: null, error: 'forged' });
          for (const id of ids.values()) {
            const toHost = `${prefix}.run.${runId}.${id}`;
            forge(toHost, { type: 'halt', runId });
            forge(toHost, { type: 'state', runId, reached: [], foundEpoch: 1, stop: 1, winner: 1, ledger: [0, 0, 1], ledgerFound: 0 });
            forge(toHost, { type: 'terminate', runId });
          }
        },
      });
      await raw.flush();
      try {
        const [spread, local] = await Promise.all([
          solve([...SYNC, '--nats', url(), '--nats-prefix', prefix, '--hosts', '2'], env),
          solve(SYNC),
        ]);
        assert.equal(spread.code, 0, spread.stderr);
        assert.ok(runs.size > 0, 'the forger saw the run');
        assert.deepEqual(repeatablePart(spread.record), repeatablePart(local.record), 'the forgeries changed nothing');
        assert.deepEqual([validateSolution(spread.record.solution), spread.record.fitness], [{ valid: true }, 0]);
        assert.match(
          spread.stderr,
          env === keyed ? /bus messages dropped \(.*[1-9]\d* unauthenticated/ : /bus messages dropped \(.*[1-9]\d* invalid/,
        );
        assert.equal(/warning: no cluster key/.test(spread.stderr), env !== keyed);
      } finally {
        await raw.close();
      }
    }
  });

  it('forged study results (an identity permutation, "solved") and forged ends are never written: with a key they are unauthenticated, without one they fail the checks', async () => {
    for (const env of [keyed, {}]) {
      const { prefix } = await cluster.startHosts(['s1'], { env });
      const raw = await connect({ servers: url().replace('nats://', ''), noEcho: true });
      const forger = new BusCodec('forger1', env === keyed ? clusterKeyOf({ clusterKey: 'not-the-cluster-key-0123456789' }) : null);
      let forged = 0;
      raw.subscribe(`${prefix}.study.*.started`, {
        callback: (_e, msg) => {
          const { body, from } = read(msg.data);
          const session = body.session as string;
          const [cell, seed] = (body.runId as string).split('#');
          // Without a key a forger can claim to be the study's host (its id is on every frame): then the checks of the record stop it.
          const as = env === keyed ? forger : new BusCodec(from, null);
          const record = {
            cell,
            values: {},
            seed: Number(seed),
            solved: true,
            fitness: 0,
            seconds: 0,
            iterations: 0,
            evaluations: 1,
            foundBy: 0,
            stopLatencyMs: null,
            migrantsSent: 0,
            migrantsAccepted: 0,
            islands: [{ id: 0, iterations: 0, evaluations: 1, bestFitness: 0, migrantsSent: 0, migrantsAccepted: 0 }],
            solution: [1, 2, 3, 4, 5, 6, 7, 8],
            error: null,
            finishedAt: new Date().toISOString(),
          };
          const subject = `${prefix}.study.${session}.result`;
          forged++;
          void raw
            .request(
              subject,
              as.encode(subject, { type: 'run-done', session, runId: body.runId as string, host: 'forger', record, events: [] }),
              { timeout: 2000 },
            )
            .catch(() => {});
          if (env === keyed)
            raw.publish(`${prefix}.study.${session}.end`, forger.encode(`${prefix}.study.${session}.end`, { type: 'end', session }));
        },
      });
      await raw.flush();
      try {
        const file = path.join(tmp, 'forged.yaml');
        writeFileSync(file, 'base: { overrides: { islands: 1, ga: { populationSize: 40 } } }\nsweep:\n  n: [8]\nrepeats: 3\nseed: 5\n');
        const out = path.join(tmp, `forged-${forged}-${prefix}`);
        const outcome = await runStudyOnCluster(loadExperiment(file, { availableParallelism: 2, totalMemory: 8e9 }), {
          outDir: out,
          resume: false,
          events: false,
          nats: url(),
          hosts: 1,
          prefix,
          ...(env === keyed ? { clusterKey: KEY } : {}),
        });
        assert.deepEqual([outcome.completed, outcome.stoppedBy], [3, null]);
        assert.ok(forged > 0);
        assert.ok(outcome.droppedText.includes(env === keyed ? 'unauthenticated' : 'invalid'), outcome.droppedText);
        const { runs } = readRuns(path.join(out, 'runs.jsonl'));
        assert.equal(runs.length, 3);
        for (const r of runs) {
          assert.equal(r.host, 's1');
          assert.deepEqual(validateSolution(r.solution!), { valid: true });
        }
        assert.ok(!readFileSync(path.join(out, 'runs.jsonl'), 'utf8').includes('forger'));
      } finally {
        await raw.close();
      }
    }
  });

  it('a host whose order comes after its peer published its arrival still hears it: both islands of an async run start before either ends (none waits at the start gate for the other to finish)', async () => {
    const { prefix } = await cluster.startHosts(['late1', 'late2']);
    const raw = await connect({ servers: url().replace('nats://', ''), noEcho: true });
    const ids = hostIds(raw, prefix, ['late1', 'late2']);
    const orders = new Map<string, Uint8Array>();
    raw.subscribe(`${prefix}.host.*.islands`, { callback: (_e, msg) => void orders.set(msg.subject, msg.data.slice()) });
    await raw.flush();
    try {
      // A real order of each host, to replay as this test's coordinator, one host after the other.
      const args = ['-n', '200', '--seed', '4', '--islands', '2', '--migration', 'async', '--max-iterations', '60'];
      const first = await solve([...args, '--nats', url(), '--nats-prefix', prefix, '--hosts', '2']);
      assert.ok(first.code === 0 || first.code === 1, first.stderr);
      const hostsById = await ids;
      const [toA, toB] = ['late1', 'late2'].map((name) => `${prefix}.host.${hostsById.get(name)!}.islands`);
      const runId = 'late0run';
      const coordinator = new BusCodec('coord1', null);
      const order = (subject: string) => ({ ...(read(orders.get(subject)!).body as BusMessage<'islands'>), runId, coordinator: 'coord1' });
      const seen: string[] = [];
      const ended = new Promise<void>((resolve) => {
        raw.subscribe(`${prefix}.run.${runId}.coordinator`, {
          callback: (_e, msg) => {
            const decoded = coordinator.decode(msg.subject, msg.data, ['control', 'report', 'state']);
            if (decoded.kind !== 'ok') return;
            const message = decoded.message;
            if (message.type === 'control' && carried('control', message.bytes)?.type === 'started')
              seen.push(`island ${carried('control', message.bytes)!.island} started`);
            if (message.type === 'report') seen.push(`island ${message.island} ended`);
            if (seen.filter((line) => line.endsWith('ended')).length === 2) resolve();
          },
        });
      });
      // Host A's island at the start gate (its arrival at epoch 0, published to host B before B
      // has its order): the broker keeps none of it for B.
      const hostB = hostsById.get('late2')!;
      const published = new Promise<void>((resolve) => {
        const sub = raw.subscribe(`${prefix}.run.${runId}.${hostB}`, {
          callback: (_e, msg) => {
            const { body } = read(msg.data);
            const reached = body.type === 'state' ? (body.reached as number[]) : [];
            if (reached.some((epoch, k) => k % 2 === 1 && epoch === 0)) {
              sub.unsubscribe();
              resolve();
            }
          },
        });
      });
      await raw.flush();
      const accepted = async (subject: string) => {
        const reply = await raw.request(subject, coordinator.encode(subject, order(subject)), { timeout: 20_000 });
        const answer = coordinator.decode(reply.subject, reply.data, ['accepted', 'refused'], { unordered: true });
        assert.equal(answer.kind === 'ok' && answer.message.type, 'accepted');
      };
      await accepted(toA);
      await published;
      await accepted(toB);
      await ended;
      const firstEnd = seen.findIndex((line) => line.endsWith('ended'));
      assert.equal(seen.slice(0, firstEnd).filter((line) => line.endsWith('started')).length, 2, seen.join(', '));
    } finally {
      await raw.close();
    }
  });

  it(
    'nothing is said to a host of a run before it accepted its order (it would not be subscribed yet): with one host refusing, the other host is told its peer departed only after it accepted, and the run ends',
    { timeout: 60_000 },
    // The able host's islands import the .ts extension: workers from source (test/helpers.ts).
    () =>
      withSourceWorker(async () => {
        const prefix = cluster.freshPrefix();
        const registries = extendRegistries(REGISTRIES, [policyExtension]);
        const config = {
          ...resolveRunConfig(
            { n: 60, islands: 2, migration: { mode: 'async', replacement: 'random' }, limits: { maxIterations: 20 } },
            'test',
            {},
            { availableParallelism: 2, totalMemory: 8e9 },
            registries,
          ),
          seed: 5,
        };
        const lacking = await startHost({ nats: url(), prefix, name: 'lack', islands: 1 });
        const able = await startHost({ nats: url(), prefix, name: 'able', islands: 1, extensions: [EXTENSION] });
        const raw = await connect({ servers: url().replace('nats://', ''), noEcho: true });
        const ids = hostIds(raw, prefix, ['able']);
        // In the order the broker passed them on: replies (the hosts' answers) and what goes to the run's parties.
        const seen: { type: string; subject: string; from: string; runId: string }[] = [];
        for (const subject of ['_INBOX.>', `${prefix}.run.>`])
          raw.subscribe(subject, {
            callback: (_e, msg) => {
              // Replies of the broker's own (leases, JetStream) are not frames.
              if (msg.data[0] !== BUS_FORMAT || !readFrame(msg.data)) return;
              const { from, body } = read(msg.data);
              seen.push({ subject: msg.subject, from, type: String(body.type), runId: String(body.runId) });
            },
          });
        await raw.flush();
        const joined = await joinCluster({ nats: url(), hosts: 2, prefix });
        try {
          const ableId = (await ids).get('able')!;
          for (let k = 0; k < 3; k++) {
            seen.length = 0;
            const result = await startSeededRun(config, { launcher: joined.launcher, extensions: [EXTENSION] }).result.catch(
              (error: unknown) => {
                if (error instanceof RunFailedError) return error.result;
                throw error;
              },
            );
            assert.deepEqual(
              result.islands.map((i) => i.error?.message ?? `${i.stopReason} at ${i.iterations}`),
              [
                'max-iterations at 20',
                'host lack has no replacement "random": it is not built in and no --extension of this host provides it',
              ],
            );
            // This run's messages only: the previous run's last ones (an `alive`, a `terminate`) may still be on their way when it starts.
            const accepted = seen.findIndex((m) => m.type === 'accepted' && m.from === ableId);
            assert.ok(accepted >= 0, 'the able host accepted');
            const thisRun = `${prefix}.run.${seen[accepted].runId}.`;
            const firstToAble = seen.findIndex(
              (m) => m.subject.startsWith(thisRun) && m.subject.endsWith(`.${ableId}`) && m.from !== ableId,
            );
            assert.ok(firstToAble > accepted, seen.map((m) => `${m.type} of ${m.runId} from ${m.from}`).join(', '));
            assert.ok(
              seen.some((m, i) => i > accepted && m.type === 'depart' && m.subject.startsWith(thisRun)),
              'the able host was told its peer departed',
            );
          }
        } finally {
          await joined.close();
          await Promise.all([lacking.stop(), able.stop()]);
          await raw.close();
        }
      }),
  );
});
