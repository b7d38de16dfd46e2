/**
 * The cluster's edges that need no broker: reading --nats URLs and prefixes, the bus codec
 * (malformed and foreign messages told apart, never a throw), the CLI's one-line refusals.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Packr } from 'msgpackr';
import { Subjects } from '../src/cluster/bus.ts';
import { checkPrefix, parseNatsUrl } from '../src/cluster/nats-url.ts';
import { busAddress } from '../src/cluster/credentials.ts';
import { BUS_FORMAT, decodeBus, encodeBus } from '../src/cluster/bus-codec.ts';
import { ConfigError } from '../src/config/errors.ts';
import { toolInfo } from '../src/package-info.ts';
import { cli, isOneLineError } from './cli-helpers.ts';

describe('--nats URL', () => {
  it('reads host, port (default 4222), user and password or a token, and hides secrets when shown', () => {
    const address = (url: string) => busAddress(url, {}, {});
    assert.deepEqual(address('nats://127.0.0.1:4333'), { options: { servers: '127.0.0.1:4333' }, display: 'nats://127.0.0.1:4333', secrets: [] });
    assert.deepEqual(address('127.0.0.1').options, { servers: '127.0.0.1:4222' });
    assert.deepEqual(address('nats://alice:s%40cret@127.0.0.1:4333'), {
      options: { servers: '127.0.0.1:4333', user: 'alice', pass: 's@cret' },
      display: 'nats://alice:***@127.0.0.1:4333',
      secrets: ['s@cret'],
    });
    assert.deepEqual(address('nats://t0ken@127.0.0.1:4333'), { options: { servers: '127.0.0.1:4333', token: 't0ken' }, display: 'nats://***@127.0.0.1:4333', secrets: ['t0ken'] });
  });

  for (const bad of ['http://127.0.0.1:4222', 'nats://127.0.0.1:4222/x', 'nats://', 'nats://127.0.0.1:99999']) {
    it(`refuses ${JSON.stringify(bad)} with a ConfigError naming the flag`, () => {
      assert.throws(() => parseNatsUrl(bad), (e: unknown) => e instanceof ConfigError && e.message.startsWith('--nats: ') && !e.message.includes('\n'));
    });
  }
});

describe('--nats-prefix', () => {
  it('takes dot-separated subject tokens and scopes every subject and stream by them', () => {
    const s = new Subjects(checkPrefix('lab.team-a'));
    assert.equal(s.heartbeat, 'lab.team-a.hosts.heartbeat');
    assert.equal(s.study('abc', 'runs'), 'lab.team-a.study.abc.runs');
    assert.equal(s.studyStream('abc'), 'lab_team-a_study_abc');
  });
  for (const bad of ['', 'a..b', 'a.*', 'a.>', 'a b', '.a']) {
    it(`refuses ${JSON.stringify(bad)}`, () => assert.throws(() => checkPrefix(bad), /^ConfigError: --nats-prefix: expected subject tokens/));
  }
});

describe('bus codec', () => {
  const heartbeat = { type: 'host', id: 'abc123', name: 'node1', islands: 2, busy: false } as const;

  it('round-trips a message of an expected type', () => {
    assert.deepEqual(decodeBus(encodeBus(heartbeat), 'host'), { kind: 'ok', message: heartbeat });
  });

  it('calls garbage, an unexpected type and a wrong shape malformed, never throwing', () => {
    const packr = new Packr({ moreTypes: true });
    const own = { format: BUS_FORMAT, tool: toolInfo().version };
    for (const bytes of [
      new Uint8Array([0xc1, 0xff, 0x00]),
      new Uint8Array(0),
      packr.pack('hello'),
      packr.pack({ ...own, body: null }),
      packr.pack({ ...own, body: { ...heartbeat, islands: 0 } }),
      packr.pack({ ...own, body: { ...heartbeat, id: 'has.dots' } }),
      encodeBus({ type: 'discover' }),
    ]) {
      assert.deepEqual(decodeBus(bytes, 'host'), { kind: 'malformed' });
    }
  });

  it('tells a message of another tool version or bus format apart, naming it', () => {
    const packr = new Packr({ moreTypes: true });
    const older = decodeBus(packr.pack({ format: BUS_FORMAT, tool: '0.0.1', body: heartbeat }), 'host');
    assert.equal(older.kind, 'incompatible');
    assert.equal(older.kind === 'incompatible' && older.from, `nqueens-islands 0.0.1 (bus format ${BUS_FORMAT})`);
    const newer = decodeBus(packr.pack({ format: BUS_FORMAT + 1, tool: toolInfo().version, body: heartbeat }), 'host');
    assert.equal(newer.kind, 'incompatible');
  });
});

describe('cluster flags on the CLI: one line, exit 2, nothing started', () => {
  const cases: [string, string[], RegExp][] = [
    ['an unreachable broker (host)', ['host', '--nats', 'nats://127.0.0.1:1'], /--nats nats:\/\/127\.0\.0\.1:1: cannot connect to the NATS broker/],
    ['an unreachable broker (experiment)', ['experiment', 'config/experiments/islands.yaml', '--nats', 'nats://127.0.0.1:1', '--hosts', '2', '--out', '/nonexistent/never-written'], /--nats nats:\/\/127\.0\.0\.1:1: cannot connect/],
    ['host without --nats', ['host'], /nats/],
    ['host --islands 0', ['host', '--nats', 'nats://127.0.0.1:1', '--islands', '0'], /--islands: expected a positive integer/],
    ['experiment --nats without --hosts', ['experiment', 'config/experiments/islands.yaml', '--nats', 'nats://127.0.0.1:1'], /--hosts: needed with --nats/],
    ['experiment --hosts without --nats', ['experiment', 'config/experiments/islands.yaml', '--hosts', '2'], /--hosts: only with --nats/],
    ['experiment --hosts two', ['experiment', 'config/experiments/islands.yaml', '--nats', 'nats://127.0.0.1:1', '--hosts', 'two'], /--hosts: expected a positive integer, got "two"/],
    ['experiment --wait -1', ['experiment', 'config/experiments/islands.yaml', '--nats', 'nats://127.0.0.1:1', '--hosts', '1', '--wait', '-1'], /--wait: expected a positive number/],
    ['a bad prefix', ['host', '--nats', 'nats://127.0.0.1:1', '--nats-prefix', 'a.*'], /--nats-prefix: expected subject tokens/],
    ['a bad URL', ['host', '--nats', 'http://x'], /--nats: scheme http is not offered/],
  ];
  for (const [what, args, message] of cases) {
    it(what, () => {
      const r = cli(args);
      assert.ok(isOneLineError(r), `${r.code} ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, message);
    });
  }
});
