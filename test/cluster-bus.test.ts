/**
 * The cluster's edges that need no broker: reading --nats URLs and prefixes, the bus codec
 * (malformed and foreign messages told apart, never a throw), the CLI's one-line refusals.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Packr } from 'msgpackr';
import { Subjects } from '../src/cluster/bus/connection.ts';
import { checkPrefix, parseNatsUrl } from '../src/config/nats-url.ts';
import { busAddress } from '../src/cluster/bus/credentials.ts';
import { BUS_FORMAT, MAX_BUS_BYTES, type BusMessage } from '../src/cluster/bus/messages.ts';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { carried } from '../src/cluster/bus/carried.ts';
import { readFrame, writeFrame } from '../src/cluster/bus/frame.ts';
import { clusterKeyOf } from '../src/cluster/bus/key.ts';
import {
  connectTimeoutMs,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_HEARTBEAT_MS,
  heartbeatPeriodMs,
  LEASE_TTL_MS,
  leaseTtlMs,
  reconnectAttempts,
  TEST_CONNECT_TIMEOUT_ENV,
  TEST_HEARTBEAT_ENV,
  TEST_LEASE_TTL_ENV,
  TEST_RECONNECT_WINDOW_ENV,
} from '../src/cluster/defaults.ts';
import { warmRunPaths } from '../src/cluster/host/warm-up.ts';
import { encode } from '../src/archipelago/codec.ts';
import { ConfigError } from '../src/config/errors.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { checkResolved, RESOLVED_CONFIG_VERSION } from '../src/config/resolved-schema.ts';
import { toolInfo } from '../src/package-info.ts';
import { join } from 'node:path';
import { cli, cliInProcess, isOneLineError, ROOT } from './cli-helpers.ts';

/** A resolved config with its seed, as a study's coordinator sends it. */
const seeded = () => ({ ...resolveRunConfig({ n: 8, islands: 2 }, 'test'), seed: 1 });
/** A study's run order (`run` on the bus). */
const runOrder = (config: object = seeded()): BusMessage<'run'> =>
  ({
    type: 'run',
    session: 's1',
    runId: 'c#1',
    cell: { id: 'c', values: {} },
    configVersion: RESOLVED_CONFIG_VERSION,
    config,
    events: false,
  }) as BusMessage<'run'>;

describe('--nats URL', () => {
  it('reads host, port (default 4222), user and password or a token, and hides secrets when shown', () => {
    const address = (url: string) => busAddress(url, {}, {});
    assert.deepEqual(address('nats://127.0.0.1:4333'), {
      options: { servers: '127.0.0.1:4333' },
      display: 'nats://127.0.0.1:4333',
      secrets: [],
    });
    assert.deepEqual(address('127.0.0.1').options, { servers: '127.0.0.1:4222' });
    assert.deepEqual(address('nats://alice:s%40cret@127.0.0.1:4333'), {
      options: { servers: '127.0.0.1:4333', user: 'alice', pass: 's@cret' },
      display: 'nats://alice:***@127.0.0.1:4333',
      secrets: ['s@cret'],
    });
    assert.deepEqual(address('nats://t0ken@127.0.0.1:4333'), {
      options: { servers: '127.0.0.1:4333', token: 't0ken' },
      display: 'nats://***@127.0.0.1:4333',
      secrets: ['t0ken'],
    });
  });

  for (const bad of ['http://127.0.0.1:4222', 'nats://127.0.0.1:4222/x', 'nats://', 'nats://127.0.0.1:99999']) {
    it(`refuses ${JSON.stringify(bad)} with a ConfigError naming the flag`, () => {
      assert.throws(
        () => parseNatsUrl(bad),
        (e: unknown) => e instanceof ConfigError && e.message.startsWith('--nats: ') && !e.message.includes('\n'),
      );
    });
  }
});

describe('the test-only timer knobs', () => {
  it('leave the production figures when unset, shorten them when set, and refuse anything else in one line', () => {
    assert.equal(leaseTtlMs({}), LEASE_TTL_MS);
    assert.equal(connectTimeoutMs({ [TEST_CONNECT_TIMEOUT_ENV]: '' }), DEFAULT_CONNECT_TIMEOUT_MS);
    assert.equal(leaseTtlMs({ [TEST_LEASE_TTL_ENV]: '3000' }), 3000);
    assert.equal(connectTimeoutMs({ [TEST_CONNECT_TIMEOUT_ENV]: '2000' }), 2000);
    // Reconnect attempts every 500 ms: 10 in the production window of 5 s, 2 in the tests' 1 s.
    assert.equal(reconnectAttempts({}), 10);
    assert.equal(reconnectAttempts({ [TEST_RECONNECT_WINDOW_ENV]: '1000' }), 2);
    assert.throws(() => reconnectAttempts({ [TEST_RECONNECT_WINDOW_ENV]: '6000' }), ConfigError);
    assert.equal(heartbeatPeriodMs({}), DEFAULT_HEARTBEAT_MS);
    assert.equal(heartbeatPeriodMs({ [TEST_HEARTBEAT_ENV]: '500' }), 500);
    for (const bad of ['2000', '100', '-500', '750.5'])
      assert.throws(
        () => heartbeatPeriodMs({ [TEST_HEARTBEAT_ENV]: bad }),
        (e: unknown) =>
          e instanceof ConfigError && e.message.startsWith(`${TEST_HEARTBEAT_ENV}: expected an integer of milliseconds from 500 to 1000`),
      );
    for (const bad of ['20000', '10', '2.5', 'soon'])
      assert.throws(
        () => leaseTtlMs({ [TEST_LEASE_TTL_ENV]: bad }),
        (e: unknown) =>
          e instanceof ConfigError && e.message.startsWith(`${TEST_LEASE_TTL_ENV}: expected an integer of milliseconds from 500 to 10000`),
      );
  });
});

describe('--nats-prefix', () => {
  it('takes dot-separated subject tokens and scopes every subject and stream by them', () => {
    const s = new Subjects(checkPrefix('lab.team-a'));
    assert.equal(s.heartbeat, 'lab.team-a.hosts.heartbeat');
    assert.equal(s.study('abc', 'runs'), 'lab.team-a.study.abc.runs');
    assert.equal(s.studyStream('abc'), 'lab_team-a_study_abc');
  });
  for (const bad of ['', 'a..b', 'a.*', 'a.>', 'a b', '.a']) {
    it(`refuses ${JSON.stringify(bad)}`, () =>
      assert.throws(() => checkPrefix(bad), /^ConfigError: --nats-prefix: expected subject tokens/));
  }
});

describe('bus codec', () => {
  const heartbeat = { type: 'host', id: 'abc123', name: 'node1', islands: 2, busy: false } as const;
  const subject = 'nqi.hosts.heartbeat';
  const key = clusterKeyOf({ clusterKey: 'a test key of enough length' });
  const packr = new Packr({ moreTypes: true });
  /** A frame as another sender would write it, unsigned, with `body` packed as given. */
  const envelope = (body: unknown, over: object = {}) => writeFrame({ from: 'x1', seq: 1, scope: '', body: packr.pack(body), ...over });

  it('round-trips a message of an expected type, naming its sender', () => {
    const sender = new BusCodec('sender1', null);
    assert.deepEqual(new BusCodec('me', null).decode(subject, sender.encode(subject, heartbeat), ['host']), {
      kind: 'ok',
      message: heartbeat,
      from: 'sender1',
    });
  });

  it('calls garbage, an unexpected type, a wrong shape or type, truncation and a huge message malformed, never throwing, and counts each', () => {
    const receiver = new BusCodec('me', null);
    const good = new BusCodec('sender1', null).encode(subject, heartbeat);
    const cases = [
      new Uint8Array([0xc1, 0xff, 0x00]),
      new Uint8Array(0),
      good.subarray(0, good.length - 3),
      packr.pack('hello'),
      packr.pack({ format: BUS_FORMAT, tool: toolInfo().version, body: null }),
      new Uint8Array([BUS_FORMAT, 200, 1, 2]), // a header longer than the frame
      envelope(null),
      envelope({ ...heartbeat, islands: 0 }),
      envelope({ ...heartbeat, islands: '2' }),
      envelope({ ...heartbeat, id: 'has.dots' }),
      envelope({ type: 'discover' }),
      envelope(heartbeat, { from: 'bad sender' }),
      envelope(heartbeat, { seq: -1 }),
      new Uint8Array(64 * 1024 + 1), // a heartbeat is small: refused before decoding
    ];
    for (const bytes of cases) assert.deepEqual(receiver.decode(subject, bytes, ['host']), { kind: 'malformed' });
    assert.equal(receiver.dropped.malformed, cases.length);
    assert.deepEqual(receiver.decode('s', new Uint8Array(MAX_BUS_BYTES + 1), ['migrants']), { kind: 'malformed' });
  });

  it('tells a message of another tool version or bus format apart, naming it', () => {
    const receiver = new BusCodec('me', null);
    const older = receiver.decode(subject, packr.pack({ format: 1, tool: '0.0.1', body: heartbeat }), ['host']);
    assert.equal(older.kind, 'foreign');
    assert.equal(older.kind === 'foreign' && older.from, 'nqueens-islands 0.0.1 (bus format 1)');
    assert.equal(
      receiver.decode(subject, packr.pack({ format: BUS_FORMAT - 1, tool: toolInfo().version, body: heartbeat }), ['host']).kind,
      'foreign',
    );
    const newer = receiver.decode(
      subject,
      writeFrame({ format: BUS_FORMAT + 1, from: 'x1', seq: 1, scope: '', body: packr.pack(heartbeat) }),
      ['host'],
    );
    assert.equal(newer.kind === 'foreign' && newer.from, `nqueens-islands ${toolInfo().version} (bus format ${BUS_FORMAT + 1})`);
    assert.equal(receiver.decode(subject, envelope(heartbeat, { tool: '9.9.9' }), ['host']).kind, 'foreign');
    assert.equal(receiver.dropped.foreign, 4);
  });

  it('with a cluster key: takes only messages signed with it, for this subject and scope, each sender in increasing order', () => {
    const sender = new BusCodec('sender1', key);
    const receiver = new BusCodec('me', key);
    const first = sender.encode(subject, heartbeat);
    const second = sender.encode(subject, heartbeat);
    assert.equal(receiver.decode(subject, second, ['host']).kind, 'ok');
    assert.equal(receiver.decode(subject, first, ['host']).kind, 'unauthenticated', 'an older sequence number: a replay');
    assert.equal(receiver.decode(subject, second, ['host']).kind, 'unauthenticated', 'the same again: a replay');
    assert.equal(
      receiver.decode('nqi.hosts.leave', sender.encode(subject, heartbeat), ['host']).kind,
      'unauthenticated',
      'signed for another subject',
    );
    assert.equal(
      receiver.decode(subject, new BusCodec('sender2', null).encode(subject, heartbeat), ['host']).kind,
      'unauthenticated',
      'unsigned',
    );
    const otherKey = new BusCodec('sender3', clusterKeyOf({ clusterKey: 'another key of enough length' }));
    assert.equal(receiver.decode(subject, otherKey.encode(subject, heartbeat), ['host']).kind, 'unauthenticated', 'another key');
    // A run's message re-labelled as another run's: the scope is signed.
    const halt = sender.encode('nqi.run.r1.h1', { type: 'halt', runId: 'r1' });
    const unpacked = readFrame(halt)!;
    const relabelled = writeFrame({ ...unpacked, body: packr.pack({ type: 'halt', runId: 'r2' }) }, () => unpacked.mac!);
    assert.equal(receiver.decode('nqi.run.r1.h1', relabelled, ['halt']).kind, 'unauthenticated');
    // A redelivered work message (or a request's reply) may come out of order.
    const work = sender.encode('nqi.study.s1.runs', runOrder());
    assert.equal(receiver.decode('nqi.study.s1.runs', work, ['run'], { unordered: true }).kind, 'ok');
    assert.equal(receiver.decode('nqi.study.s1.runs', work, ['run'], { unordered: true }).kind, 'ok');
    // A request's reply reaches its caller through a promise, after messages the same read dispatched at once.
    const reply = sender.encode('_INBOX.abc.1', { type: 'accepted', runId: 'r1' });
    const later = sender.encode(subject, heartbeat);
    assert.equal(receiver.decode(subject, later, ['host']).kind, 'ok');
    assert.equal(receiver.decode('_INBOX.abc.1', reply, ['accepted'], { unordered: true }).kind, 'ok');
    assert.equal(
      receiver.decode('_INBOX.abc.2', reply, ['accepted'], { unordered: true }).kind,
      'unauthenticated',
      'signed for another request',
    );
    assert.equal(receiver.dropped.unauthenticated, 7);
  });

  it('with a cluster key: a frame with any one byte changed, cut short or lengthened is dropped and counted, the intact one taken', () => {
    const migrants = encode({
      type: 'migrants',
      from: 0,
      epoch: 1,
      iteration: 1,
      count: 2,
      genes: new Uint16Array(16).map((_, i) => i % 8),
    });
    const message = { type: 'migrants', runId: 'r1', from: 0, to: 1, bytes: migrants } as const;
    const sender = new BusCodec('sender1', key);
    const runSubject = 'nqi.run.r1.h2';
    const frame = sender.encode(runSubject, message);
    const receiver = new BusCodec('me', key);
    const spoilt: Uint8Array[] = [];
    for (let i = 0; i < frame.length; i++) {
      const copy = new Uint8Array(frame);
      copy[i] ^= 1 << (i % 8);
      spoilt.push(copy);
    }
    for (let length = 0; length < frame.length; length++) spoilt.push(frame.slice(0, length));
    spoilt.push(new Uint8Array([...frame, 0]));
    for (const bytes of spoilt) assert.notEqual(receiver.decode(runSubject, bytes, ['migrants']).kind, 'ok', `${bytes.length} bytes`);
    assert.equal(receiver.dropped.total, spoilt.length);
    const taken = receiver.decode(runSubject, frame, ['migrants']);
    assert.equal(taken.kind, 'ok');
    assert.deepEqual(taken.kind === 'ok' && [...taken.message.bytes], [...migrants]);
  });

  it('checks the thread messages a bus message carries: a snapshot or the wrong types is refused; a key no task has (a test fault) is dropped', () => {
    const { output: _o, cluster: _c, ...run } = { ...resolveRunConfig({ n: 8, islands: 2, ga: { populationSize: 10 } }, 'test'), seed: 1 };
    const task = { type: 'task', island: 0, run, progressIntervalMs: 250, sources: [1], targets: [1], snapshot: null } as const;
    assert.deepEqual(carried('task', encode(task as never)), task);
    // Test faults are no part of a task: one smuggled in never reaches a worker.
    assert.deepEqual(carried('task', encode({ ...task, testFault: { island: 0, atIteration: 1, kind: 'exit' } } as never)), task);
    assert.equal(carried('task', encode({ ...task, island: 'one' } as never)), null);
    assert.equal(carried('task', new Uint8Array([1])), null);
    const migrants = { type: 'migrants', from: 0, epoch: 0, iteration: 3, count: 1, genes: new Uint16Array([0, 1, 2, 3]) } as const;
    assert.deepEqual(carried('migrants', encode(migrants)), migrants);
    assert.equal(carried('migrants', encode({ ...migrants, genes: [0, 1, 2, 3] } as never)), null);
    assert.equal(carried('control', encode({ type: 'snapshot', generation: 1, snapshot: {} } as never)), null);
  });

  it("drops a study's run order whose config is not a resolved config of this version (counted as malformed), and names what a host's island order's run lacks", () => {
    const sender = new BusCodec('coord1', null);
    const receiver = new BusCodec('host1', null);
    const config = seeded();
    const decode = (config: object, configVersion = RESOLVED_CONFIG_VERSION) =>
      receiver.decode(
        'nqi.study.s1.runs',
        sender.encode('nqi.study.s1.runs', { ...runOrder(config), configVersion } as BusMessage<'run'>),
        ['run'],
        {
          unordered: true,
        },
      ).kind;
    assert.equal(decode(config), 'ok');
    // The file shape (what orders carried before, to be resolved again on the host) is not a resolved config.
    assert.equal(decode({ n: 8, islands: 2, seed: 1 }), 'malformed');
    assert.equal(decode({ ...config, migration: { ...config.migration, migrants: '2%' } }), 'malformed');
    assert.equal(decode({ ...config, limits: { ...config.limits, maxIterations: Infinity } }), 'malformed', 'no limit is null');
    assert.equal(decode(config, RESOLVED_CONFIG_VERSION + 1), 'malformed');
    assert.equal(receiver.dropped.malformed, 4);
    // An island task's run: checked by the host against its registries (host.ts), one line naming the key.
    const { output: _o, cluster: _c, threads: _t, ...run } = config;
    assert.deepEqual(checkResolved('run', run), { config: run });
    assert.deepEqual(checkResolved('run', { ...run, ga: { ...run.ga, populationSize: 1 } }), {
      problem: 'ga.populationSize: expected an integer >= 2, got 1',
    });
    assert.ok('problem' in checkResolved('run', config), 'a task carries no output file or broker address');
  });

  it("warms every path of a spread run with samples each check takes (signed or not), leaving the codec's own sequence untouched", () => {
    for (const k of [key, null]) {
      const codec = new BusCodec('coord1', k);
      assert.deepEqual(warmRunPaths(codec, true), [], k ? 'signed' : 'unsigned');
      // The codec's first own message still carries sequence number 1: a receiver that never saw the warm-up takes it.
      const first = readFrame(codec.encode(subject, heartbeat));
      assert.equal(first?.seq, 1);
      assert.equal(codec.dropped.total, 0);
    }
  });

  it('refuses a short cluster key, naming where it came from', () => {
    assert.throws(
      () => clusterKeyOf({}, { NQI_CLUSTER_KEY: 'short' }),
      (e: unknown) => e instanceof ConfigError && /^NQI_CLUSTER_KEY: expected one line of at least 16 characters/.test(e.message),
    );
    assert.equal(clusterKeyOf({}, {}), null);
    assert.throws(() => clusterKeyOf({ clusterKeyFile: '/nonexistent/key' }), /--cluster-key-file \/nonexistent\/key: no such file/);
  });
});

describe('cluster flags on the CLI: one line, exit 2, nothing started', () => {
  const ISLANDS_STUDY = join(ROOT, 'config', 'experiments', 'islands.yaml');
  const cases: [string, string[], RegExp][] = [
    [
      'an unreachable broker (host)',
      ['host', '--nats', 'nats://127.0.0.1:1'],
      /--nats nats:\/\/127\.0\.0\.1:1: cannot connect to the NATS broker/,
    ],
    [
      'an unreachable broker (experiment)',
      ['experiment', ISLANDS_STUDY, '--nats', 'nats://127.0.0.1:1', '--hosts', '2', '--out', '/nonexistent/never-written'],
      /--nats nats:\/\/127\.0\.0\.1:1: cannot connect/,
    ],
    ['host without --nats', ['host'], /nats/],
    ['host --islands 0', ['host', '--nats', 'nats://127.0.0.1:1', '--islands', '0'], /--islands: expected a positive integer/],
    [
      'host --island-nice 20',
      ['host', '--nats', 'nats://127.0.0.1:1', '--island-nice', '20'],
      /--island-nice: expected an integer from 0 to 19 \(how far below the host's relay its islands run\), got "20"/,
    ],
    ['experiment --nats without --hosts', ['experiment', ISLANDS_STUDY, '--nats', 'nats://127.0.0.1:1'], /--hosts: needed with --nats/],
    ['experiment --hosts without --nats', ['experiment', ISLANDS_STUDY, '--hosts', '2'], /--hosts: only with --nats/],
    [
      'experiment --hosts two',
      ['experiment', ISLANDS_STUDY, '--nats', 'nats://127.0.0.1:1', '--hosts', 'two'],
      /--hosts: expected a positive integer, got "two"/,
    ],
    [
      'experiment --wait -1',
      ['experiment', ISLANDS_STUDY, '--nats', 'nats://127.0.0.1:1', '--hosts', '1', '--wait', '-1'],
      /--wait: expected a number of seconds > 0, at most 2147483 \(24\.8 days\), got "-1"/,
    ],
    ['a bad prefix', ['host', '--nats', 'nats://127.0.0.1:1', '--nats-prefix', 'a.*'], /--nats-prefix: expected subject tokens/],
    ['a bad URL', ['host', '--nats', 'http://x'], /--nats: scheme http is not offered/],
    [
      'a missing --extension file',
      ['host', '--nats', 'nats://127.0.0.1:1', '--extension', '/nonexistent/policy.js'],
      /--extension \/nonexistent\/policy\.js: no such file/,
    ],
    [
      'a missing --cluster-key-file',
      ['host', '--nats', 'nats://127.0.0.1:1', '--cluster-key-file', '/nonexistent/key'],
      /--cluster-key-file \/nonexistent\/key: no such file/,
    ],
    [
      'hosts with a missing --cluster-key-file: the file is read before the broker is tried',
      ['hosts', '--nats', 'nats://127.0.0.1:1', '--cluster-key-file', '/nonexistent/key'],
      /--cluster-key-file \/nonexistent\/key: no such file/,
    ],
    [
      '--cluster-key-file without a cluster (solve)',
      ['solve', '-n', '8', '--cluster-key-file', '/nonexistent/key'],
      /--cluster-key-file: only with --nats URL or cluster: in the run config/,
    ],
  ];
  it('a short NQI_CLUSTER_KEY', () => {
    const r = cli(['host', '--nats', 'nats://127.0.0.1:1'], { env: { NQI_CLUSTER_KEY: 'short' } });
    assert.ok(isOneLineError(r), `${r.code} ${r.stdout} ${r.stderr}`);
    assert.match(r.stderr, /NQI_CLUSTER_KEY: expected one line of at least 16 characters/);
    assert.ok(!r.stderr.includes('short'), 'the key is never printed');
  });
  it('a test-only timer knob out of range, before any connect', () => {
    for (const [name, args] of [
      [TEST_HEARTBEAT_ENV, ['host', '--nats', 'nats://127.0.0.1:1']],
      [TEST_LEASE_TTL_ENV, ['solve', '-n', '8', '--nats', 'nats://127.0.0.1:1', '--hosts', '1']],
    ] as const) {
      const r = cli([...args], { env: { [name]: 'soon' } });
      assert.ok(isOneLineError(r), `${r.code} ${r.stdout} ${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(`${name}: expected an integer of milliseconds from 500 to \\d+ \\(a test-only knob\\), got "soon"`),
      );
    }
  });
  // In this process (runCli): the binary's parsing and checks, without a process per case.
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const r = await cliInProcess(args);
      assert.ok(isOneLineError(r), `${r.code} ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, message);
    });
  }
});
