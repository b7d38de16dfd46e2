// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { decode, encode } from '../src/archipelago/codec.ts';
import type { IslandReport, IslandTask, Message, MigrantsMessage, ProgressMessage, SolutionMessage } from '../src/archipelago/messages.ts';
import { paperParams } from '../src/ga/params.ts';
import { measuresOf } from '../src/archipelago/island-counters.ts';

const migrants: MigrantsMessage = {
  type: 'migrants',
  from: 3,
  epoch: 7,
  iteration: 70,
  count: 2,
  genes: Uint16Array.from([0, 2, 4, 1, 3, 3, 1, 4, 2, 0]),
};
const wide: MigrantsMessage = { ...migrants, genes: Int32Array.from([70000, 1, 2, 3, 4, 5, 6, 7, 8, 65536]) };
const progress: ProgressMessage = {
  type: 'progress',
  island: 1,
  iteration: 12,
  evaluations: 12345,
  bestFitness: 2,
  meanFitness: 5.25,
  diversity: 0.75,
  migrantsSent: 10,
  migrantsAccepted: 4,
  time: 1.7e12 + 0.123,
  migrations: Int32Array.from([0, 1, 0, 10, 2, 1, -1, 2, 0, 20, 2, 0]),
  survivals: Int32Array.from([0, 1, 0, 10, 2, 1, 1]),
  observation: { positions: 4, genes: Uint16Array.from([0, 1, 2, 3, 1, 0, 2, 3]), hashes: Uint32Array.from([4294967295, 7]) },
  takenOverAt: -1,
};
const solution: SolutionMessage = { type: 'solution', island: 0, iteration: 3, genes: Uint16Array.from([1, 3, 0, 2]), foundAt: 1.7e12 };
const { n: _n, ...params } = paperParams(24, { populationSize: 100 });
const task: IslandTask = {
  type: 'task',
  island: 2,
  run: {
    n: 24,
    seed: 2 ** 40 + 3,
    ga: { mode: 'paper', ...params },
    islands: 4,
    topology: { kind: 'ring' },
    migration: {
      mode: 'sync',
      lag: 2,
      interval: 5,
      migrants: 2,
      emigrantSelection: { kind: 'tournament', size: 3 },
      replacement: 'random-if-better',
      rejectDuplicates: true,
    },
    limits: { maxIterations: null, maxEvaluations: 123456, timeLimit: null },
    onIslandError: 'continue',
  },
  progressIntervalMs: 250,
  sources: [1],
  targets: [3],
  snapshot: null,
};
const report: IslandReport = {
  type: 'report',
  island: 2,
  iterations: 40,
  evaluations: 4000,
  bestFitness: 1,
  best: Uint16Array.from([3, 1, 0, 2]),
  solution: null,
  foundAtIteration: -1,
  foundAt: 0,
  claimed: false,
  ...measuresOf({ migrantsSent: 8, migrantsAccepted: 3, migrantsReceived: 6, immigrantsChecked: 3, immigrantsSurvived: 1 }),
  startedAt: 1,
  stoppedAt: 2,
  stopReason: 'other-solved',
  migrations: new Int32Array(0),
  evaluationsFrom: 35,
  evaluationsAt: Float64Array.from([3500, 3600, 3700, 3800, 3900]),
  course: Float64Array.from([0, 3000, 40, 5, 3500, 12]),
  survivals: new Int32Array(0),
};

describe('codec', () => {
  it('round-trips every message type, typed arrays as typed arrays', () => {
    for (const message of [migrants, wide, progress, solution, task, report] satisfies Message[]) {
      const back = decode(encode(message));
      assert.deepEqual(back, message);
    }
    const m = decode<MigrantsMessage>(encode(migrants));
    assert.ok(m.genes instanceof Uint16Array);
    assert.ok(decode<MigrantsMessage>(encode(wide)).genes instanceof Int32Array);
    assert.ok(decode<ProgressMessage>(encode(progress)).migrations instanceof Int32Array);
    assert.equal(decode<IslandTask>(encode(task)).run.limits.maxIterations, null, 'no limit is null on the wire too');
  });

  it('returns bytes that own exactly their buffer, unaffected by later encodes', () => {
    const first = encode(migrants);
    assert.equal(first.byteOffset, 0);
    assert.equal(first.buffer.byteLength, first.length);
    const copy = first.slice();
    for (let i = 0; i < 50; i++) encode(progress);
    assert.deepEqual(first, copy);
  });

  it('writes a message carrying large typed arrays into a buffer of its own, at offset 0, unaffected by later encodes', () => {
    const big: MigrantsMessage = { ...wide, count: 1, genes: Int32Array.from({ length: 600_000 }, (_, i) => (i * 7919) % 600_000) };
    const bytes = encode(big);
    assert.equal(bytes.byteOffset, 0);
    assert.ok(bytes.buffer.byteLength >= bytes.length && bytes.buffer.byteLength <= bytes.length + (1 << 16));
    const copy = bytes.slice();
    for (let i = 0; i < 3; i++) encode({ ...big, from: i });
    encode(progress);
    assert.deepEqual(bytes, copy);
    assert.deepEqual(decode(bytes), big);
    // Fields beyond the room left for them: msgpackr moves on to a buffer of its own, copied out as for small messages.
    const report2: IslandReport = { ...report, best: big.genes, stopReason: 'stopped', migrations: new Int32Array(0) };
    const long = { ...report2, note: 'x'.repeat(200_000) } as IslandReport;
    assert.deepEqual(decode(encode(long)), long);
    assert.deepEqual(decode(encode(report)), report);
  });

  it('survives a transfer over a MessagePort', () => {
    const { port1, port2 } = new MessageChannel();
    const bytes = encode(migrants);
    port1.postMessage(bytes, [bytes.buffer]);
    assert.equal(bytes.byteLength, 0); // transferred away
    const got = receiveMessageOnPort(port2);
    assert.ok(got);
    assert.deepEqual(decode(got.message as Uint8Array), migrants);
    port1.close();
  });
});
