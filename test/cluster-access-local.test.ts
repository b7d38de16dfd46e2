/**
 * Who may use the cluster, without a broker: a --nats URL and where its credentials come from
 * (the URL, the environment, a file), the CLI showing no password, and a broker that accepts
 * TCP and never speaks NATS (the connect timeout ends the process). The cases on a real
 * nats-server are in cluster-access.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { TEST_CONNECT_TIMEOUT_ENV } from '../src/cluster/defaults.ts';
import { busAddress } from '../src/cluster/bus/credentials.ts';
import { maskNatsUrl, parseNatsUrl } from '../src/config/nats-url.ts';
import { ConfigError } from '../src/config/errors.ts';
import { clusterHint } from '../src/cli/commands/experiment-run.ts';
import { cliAsync, isOneLineError } from './cli-helpers.ts';
import { assertNoSecret, SECRET } from './helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-access-local-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text, { mode: 0o600 });
  return p;
};

describe('--nats URLs and where credentials come from', () => {
  it('finds a password with unencoded / # @ : % whole, and shows it as ***', () => {
    const address = busAddress(`nats://alice:${SECRET}@127.0.0.1:4333`, {}, {});
    assert.deepEqual(address.options, { servers: '127.0.0.1:4333', user: 'alice', pass: SECRET });
    assert.equal(address.display, 'nats://alice:***@127.0.0.1:4333');
    assert.equal(maskNatsUrl(`nats://alice:${SECRET}@h:1`), 'nats://alice:***@h:1');
    assert.equal(parseNatsUrl(`tls://alice:${encodeURIComponent(SECRET)}@h`).password, SECRET);
  });

  for (const bad of [
    `nats://alice:${SECRET}@`,
    `http://alice:${SECRET}@h:1`,
    `nats://alice:${SECRET}@h:99999`,
    `nats://alice:${SECRET}@h:1/path`,
    `nats://alice:${SECRET}@h x`,
    `nats://:${SECRET}@h`,
  ]) {
    it(`refuses ${maskNatsUrl(bad)} in one line that does not show the password`, () => {
      assert.throws(
        () => busAddress(bad, {}, {}),
        (e: unknown) =>
          e instanceof ConfigError &&
          e.message.startsWith('--nats: ') &&
          !e.message.includes('\n') &&
          (assertNoSecret(e.message, 'the error'), true),
      );
    });
  }

  it('takes the password from NQI_NATS_PASSWORD, a token from NQI_NATS_TOKEN, and either from a plain --nats-creds file', () => {
    const fromEnv = busAddress('nats://alice@127.0.0.1:4333', {}, { NQI_NATS_PASSWORD: SECRET });
    assert.deepEqual(fromEnv.options, { servers: '127.0.0.1:4333', user: 'alice', pass: SECRET });
    assert.equal(fromEnv.display, 'nats://alice@127.0.0.1:4333');
    assert.deepEqual(busAddress('nats://127.0.0.1', {}, { NQI_NATS_TOKEN: SECRET }).options, { servers: '127.0.0.1:4222', token: SECRET });
    const plain = file('password.txt', `${SECRET}\n`);
    assert.deepEqual(busAddress('nats://alice@h', { credsFile: plain }, {}).options, { servers: 'h:4222', user: 'alice', pass: SECRET });
    assert.deepEqual(busAddress('nats://h', { credsFile: plain }, {}).options, { servers: 'h:4222', token: SECRET });
  });

  it('reads NATS creds and nkey seed files as NATS authenticators', () => {
    const seed = `SU${'A'.repeat(56)}`;
    const nkey = busAddress('nats://h', { credsFile: file('user.nk', `${seed}\n`) }, {});
    assert.equal(typeof nkey.options.authenticator, 'function');
    assert.equal(nkey.options.user, undefined);
    const creds = file(
      'user.creds',
      `-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.x\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`,
    );
    assert.equal(typeof busAddress('nats://h', { credsFile: creds }, {}).options.authenticator, 'function');
    assert.throws(
      () => busAddress('nats://alice@h', { credsFile: creds }, {}),
      /^ConfigError: --nats-creds: a NATS credentials file names its user/,
    );
  });

  const refusals: [string, () => unknown, RegExp][] = [
    [
      'a password in two places',
      () => busAddress(`nats://alice:${SECRET}@h`, {}, { NQI_NATS_PASSWORD: 'other' }),
      /^ConfigError: NQI_NATS_PASSWORD: the --nats URL already holds a password/,
    ],
    [
      'two sources at once',
      () => busAddress('nats://alice@h', {}, { NQI_NATS_PASSWORD: 'a', NQI_NATS_TOKEN: 'b' }),
      /^ConfigError: NQI_NATS_TOKEN: give one of NQI_NATS_PASSWORD, NQI_NATS_TOKEN, not several/,
    ],
    [
      'a password without a user',
      () => busAddress('nats://h', {}, { NQI_NATS_PASSWORD: 'a' }),
      /^ConfigError: NQI_NATS_PASSWORD: needs the user in the --nats URL \(nats:\/\/USER@h:4222\)/,
    ],
    ['an empty variable', () => busAddress('nats://h', {}, { NQI_NATS_TOKEN: '' }), /^ConfigError: NQI_NATS_TOKEN: expected a value/],
    [
      'a missing creds file',
      () => busAddress('nats://h', { credsFile: path.join(dir, 'nope') }, {}),
      /^ConfigError: --nats-creds .*nope: no such file/,
    ],
    [
      'TLS files for nats://',
      () => busAddress('nats://h', { caFile: 'ca.pem' }, {}),
      /^ConfigError: --nats-ca: only with a tls:\/\/ broker URL/,
    ],
    [
      'a certificate without its key',
      () => busAddress('tls://h', { certFile: 'c.pem' }, {}),
      /^ConfigError: --nats-cert: needs --nats-key/,
    ],
    [
      'a CA file that is no PEM',
      () => busAddress('tls://h', { caFile: file('ca.txt', 'hello') }, {}),
      /^ConfigError: --nats-ca .*ca\.txt: expected a CA certificate in PEM form/,
    ],
  ];
  for (const [what, call, message] of refusals) it(`refuses ${what} in one line`, () => assert.throws(call, message));
});

describe('the CLI shows no password', () => {
  it('config print shows cluster.nats with the password as ***; a bad one is refused without showing it', async () => {
    const good = file('cluster.yaml', `n: 8\ncluster: { nats: 'nats://alice:${SECRET}@lab1:4222', hosts: 2 }\n`);
    const printed = await cliAsync(['config', 'print', '--config', good]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /nats: nats:\/\/alice:\*\*\*@lab1:4222/);
    assertNoSecret(printed.stdout + printed.stderr, 'config print');
    const bad = file('bad-cluster.yaml', `n: 8\ncluster: { nats: 'nats://alice:${SECRET}@lab1:4222/x', hosts: 2 }\n`);
    for (const args of [
      ['config', 'print', '--config', bad],
      ['solve', '--config', bad],
      ['solve', '-n', '8', '--nats', `nats://alice:${SECRET}@lab 1`, '--hosts', '1'],
    ]) {
      const r = await cliAsync(args);
      assert.ok(isOneLineError(r), `${args.join(' ')}: ${r.code} ${r.stderr}`);
      assertNoSecret(r.stderr, args.join(' '));
    }
  });

  it('the resume hint of a distributed study repeats the flags as given, a password in the URL as ***', () => {
    assert.equal(
      clusterHint({ nats: `nats://alice:${SECRET}@lab1:4222`, natsPrefix: 'team', hosts: '3', wait: '60' }, {}),
      "--nats 'nats://alice:***@lab1:4222' --nats-prefix team --hosts 3 --wait 60",
    );
    assert.equal(
      clusterHint({ nats: 'tls://alice@lab1', natsCreds: '/etc/nq/pw', natsCa: 'ca.pem', hosts: '2' }, {}),
      '--nats tls://alice@lab1:4222 --nats-creds /etc/nq/pw --nats-ca ca.pem --hosts 2',
    );
    assert.equal(clusterHint({ nats: 'alice@lab1', hosts: '2' }, { NQI_NATS_PASSWORD: SECRET }), '--nats nats://alice@lab1:4222 --hosts 2');
    assert.equal(clusterHint({ nats: 'T0KEN@lab1', hosts: '2' }, {}), "--nats 'nats://***@lab1:4222' --hosts 2");
    // A keyed study resumed without its key would wait for hosts that drop what it sends.
    assert.equal(
      clusterHint({ nats: 'lab1', clusterKeyFile: '/etc/nq/cluster.key', hosts: '2' }, {}),
      '--nats nats://lab1:4222 --cluster-key-file /etc/nq/cluster.key --hosts 2',
    );
  });

  it('a host refuses to offer more islands than its cores, a --name with escapes, and stray TLS flags, in one line each', async () => {
    for (const [args, message] of [
      [
        ['host', '--nats', 'nats://127.0.0.1:1', '--islands', '1000'],
        /--islands: this machine has \d+ cores? \(os\.availableParallelism\(\)\); a host offers at most that many islands, got 1000/,
      ],
      [
        ['host', '--nats', 'nats://127.0.0.1:1', '--name', 'red\u001b[31m'],
        /--name: expected letters, digits, \., _ and -.*got "red\?\?31m"/,
      ],
      [['host', '--nats', 'nats://127.0.0.1:1', '--nats-ca', 'ca.pem'], /--nats-ca: only with a tls:\/\/ broker URL/],
      [['solve', '-n', '8', '--nats-creds', 'x'], /--nats-creds: only with --nats URL/],
    ] as const) {
      const r = await cliAsync(args);
      assert.ok(isOneLineError(r), `${args.join(' ')}: ${r.code} ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.ok(!r.stderr.includes('\u001b'), 'no escape reaches the terminal');
    }
  });
});

describe('a broker that accepts TCP and never speaks NATS', () => {
  it('ends the process with one line and exit 2 at the connect timeout (nothing left open)', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const results = await Promise.all(
        // A 1 s connect timeout (the test-only knob) instead of 5 s: the same timeout path, a shorter wait
        // (the port accepts and never answers, so the timeout ends every attempt whatever the load).
        [['host'], ['hosts'], ['solve', '-n', '8', '--hosts', '1']].map((args) =>
          cliAsync([...args, '--nats', `nats://127.0.0.1:${port}`], { env: { [TEST_CONNECT_TIMEOUT_ENV]: '1000' } }),
        ),
      );
      for (const r of results) {
        assert.ok(isOneLineError(r), `${r.code} ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`--nats nats://127\\.0\\.0\\.1:${port}: cannot connect to the NATS broker \\(timeout\\)`));
      }
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });
});
