// @slow: among the longest test files; `npm test` starts these first (scripts/test.mjs).
/**
 * Who may use the cluster, and what it shows of its secrets: credentials from the URL, the
 * environment or a file (never in `ps`, messages or outputs when given by the variable or
 * the file), TLS with a CA and client certificates made here by openssl, a connect timeout
 * that ends the process, host leases (two coordinators at once), the `hosts` listing, and
 * names and numbers from the bus that are not believed as sent. Real nats-server, real
 * host processes; every wait is for an event (a line, an exit), never a timer.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Subjects } from '../src/cluster/bus/connection.ts';
import { TEST_CONNECT_TIMEOUT_ENV } from '../src/cluster/defaults.ts';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { BusEndpoint } from '../src/cluster/bus/endpoint.ts';
import { busAddress } from '../src/cluster/bus/credentials.ts';
import { HostDirectory } from '../src/cluster/leases/host-directory.ts';
import { listHosts } from '../src/cluster/host/list.ts';
import { startLocalBroker, type NatsServer } from '../src/cluster/local-broker.ts';
import { maskNatsUrl, parseNatsUrl } from '../src/config/nats-url.ts';
import { runStudyOnCluster } from '../src/cluster/study/study.ts';
import { ConfigError } from '../src/config/errors.ts';
import { clusterHint } from '../src/cli/commands/experiment-run.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { cliAsync, isOneLineError, spawnCli, type LiveCli } from './cli-helpers.ts';
import { localCluster, nats, SHORT_LEASES } from './nats-server.ts';
import { systemTool } from './system-tools.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-access-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A password with every character a URL parser stumbles on. */
const SECRET = 'Pw/x#y@z:%q';
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text, { mode: 0o600 });
  return p;
};
/** No part of the secret long enough to mean something (a `#y@z` or `/x#`) is in `text`. */
function assertNoSecret(text: string, what: string): void {
  for (const part of [SECRET, 'Pw/x', 'x#y', 'y@z', 'z:%q'])
    assert.ok(!text.includes(part), `${what} shows the password: ${JSON.stringify(text.slice(0, 300))}`);
}

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

describe('hosts, leases and credentials on a real nats-server', { skip: nats.skip, timeout: 240_000 }, () => {
  const cluster = localCluster('a');
  let broker: NatsServer;
  let url: string;
  /** For code in this process (no `ps` to hide from). */
  let withPassword: string;
  before(async () => {
    broker = await startLocalBroker(nats.path(), { user: 'lab', password: SECRET });
    url = broker.url.replace('nats://', 'nats://lab@');
    withPassword = broker.url.replace('nats://', `nats://lab:${encodeURIComponent(SECRET)}@`);
  });
  after(() => broker?.stop());
  const env = { NQI_NATS_PASSWORD: SECRET };

  /** The process's command line as `ps` shows it to every user of the machine. */
  const cmdline = (host: LiveCli) => readFileSync(`/proc/${host.child.pid}/cmdline`, 'utf8').replace(/\0/g, ' ');

  it('hosts take the password from NQI_NATS_PASSWORD or --nats-creds: not in ps, not in their output; `hosts` lists them', async () => {
    const prefix = cluster.freshPrefix();
    const { hosts } = await cluster.startHosts(['east'], { url, prefix, env });
    const creds = file('lab.pw', `${SECRET}\n`);
    const { hosts: more } = await cluster.startHosts(['west'], { url, prefix, args: ['--nats-creds', creds] });
    for (const host of [...hosts.values(), ...more.values()]) {
      assertNoSecret(cmdline(host), 'ps');
      assert.match(cmdline(host), /--nats nats:\/\/lab@127\.0\.0\.1:\d+/);
      assert.match(
        host.stderr(),
        /^nqueens-islands: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z host \w+ ready: 1 island on nats:\/\/lab@127\.0\.0\.1:\d+; Ctrl-C leaves\n$/m,
      );
      assert.ok(
        host
          .stderr()
          .split('\n')
          .every((line) => line === '' || /^nqueens-islands: \d{4}-\d\d-\d\dT[\d:.]+Z /.test(line)),
        'every line of its log has the time',
      );
    }
    const listed = await cliAsync(['hosts', '--nats', url, '--nats-prefix', prefix, '--json'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    const listing = JSON.parse(listed.stdout) as Awaited<ReturnType<typeof listHosts>>;
    assert.deepEqual(
      listing.hosts.map((h) => [h.name, h.islands, h.state, h.compatible, h.lease]),
      [
        ['east', 1, 'idle', true, null],
        ['west', 1, 'idle', true, null],
      ],
    );
    assert.match(listing.hosts[0].version, /^nqueens-islands \d+\.\d+\.\d+.* \(bus format \d+\)$/);
    const table = await cliAsync(['hosts', '--nats', url, '--nats-prefix', prefix], { env });
    assert.match(
      table.stdout,
      /^2 hosts on nats:\/\/lab@127\.0\.0\.1:\d+ \(prefix a\d+\):\nhost +islands +version +state +held by\neast +1 +nqueens-islands .* idle +-\nwest /,
    );
    assertNoSecret(listed.stdout + listed.stderr + table.stdout + table.stderr, 'hosts');
  });

  it('a wrong password is one line and exit 2, showing neither password', async () => {
    const r = await cliAsync(['hosts', '--nats', url], { env: { NQI_NATS_PASSWORD: 'not/the#one' } });
    assert.ok(isOneLineError(r), `${r.code} ${r.stderr}`);
    assert.match(r.stderr, /cannot connect to the NATS broker \(.*[Aa]uthorization/);
    assert.ok(!r.stderr.includes('not/the#one'));
  });

  it('two coordinators at once: the second waits, saying for what, then both finish; with a short --wait it is told the hosts are busy', async () => {
    const prefix = cluster.freshPrefix();
    const { hosts } = await cluster.startHosts(['east', 'west'], { url, prefix, env });
    const common = ['--nats', url, '--nats-prefix', prefix, '--hosts', '2'];
    // The first holds the hosts until the second is seen waiting, then is stopped (SIGINT): no time limit to outlast on a slow machine.
    const first = spawnCli(['solve', '--json', '-n', '3000', '--seed', '1', '--islands', '2', '--time-limit', '600', ...common], { env });
    await first.waitForStderr(/started N=3000/);
    const told = await cliAsync(['solve', '-n', '24', '--seed', '2', ...common, '--wait', '1'], { env });
    assert.ok(isOneLineError(told), `${told.code} ${told.stderr}`);
    assert.match(
      told.stderr,
      /--hosts 2: only 0 idle hosts answered on nats:\/\/lab@127\.0\.0\.1:\d+ within 1 s; busy: east \(held by solve on .* \(pid \d+\)\), west \(held by solve on/,
    );
    // A busy host says so when asked anyway (a coordinator that ignores leases).
    const raw = await connect({ servers: broker.url.replace('nats://', ''), user: 'lab', pass: SECRET });
    try {
      const listing = await listHosts({ nats: withPassword, prefix, waitMs: 1500 });
      assert.deepEqual(
        listing.hosts.map((h) => [h.name, h.state, /^solve on .* \(pid \d+\)$/.test(h.lease?.holder ?? '')]),
        [
          ['east', 'busy', true],
          ['west', 'busy', true],
        ],
      );
      const east = listing.hosts[0];
      const bus = new BusEndpoint(raw, new BusCodec('rogue1', null));
      const order = {
        type: 'islands' as const,
        runId: 'r1',
        coordinator: 'rogue1',
        islands: 1,
        hostOf: [east.id],
        tasks: [new Uint8Array([1])],
      };
      const reply = await bus.request(new Subjects(prefix).islands(east.id), order, 5000);
      const answer = bus.decode(reply, ['refused']);
      assert.ok(
        answer.kind === 'ok' && /^host east is busy \(running the islands of another run\)$/.test(answer.message.reason),
        JSON.stringify(answer),
      );
    } finally {
      await raw.close();
    }
    const second = spawnCli(['solve', '--json', '-n', '24', '--seed', '2', ...common], { env });
    await second.waitForStderr(/waiting up to \d+ s for 2 idle hosts on nats:\/\/lab@127\.0\.0\.1:\d+: 0 free, busy: east \(held by solve/);
    first.child.kill('SIGINT');
    const [a, b] = await Promise.all([first.exited, second.exited]);
    assert.equal(a.code, 130, first.stderr());
    assert.equal(b.code, 0, second.stderr());
    assert.equal(JSON.parse(first.stdout()).ended, 'SIGINT');
    assert.equal(JSON.parse(second.stdout()).solved, true);
    assert.deepEqual(JSON.parse(second.stdout()).hosts, ['east', 'west']);
    assert.ok(!/did not accept|is busy/.test(first.stderr() + second.stderr()), 'no run lost an island to the other');
    for (const run of [first, second]) assertNoSecret(run.stdout() + run.stderr(), 'solve');
    // Both runs count, solve runs as much as study runs.
    const east = hosts.get('east')!;
    east.child.kill('SIGTERM');
    await east.exited;
    assert.match(east.stderr(), /host east left after 2 runs\n$/);
  });

  it('the leases of a coordinator that was killed expire: the next one waits for them, then runs', async () => {
    const prefix = cluster.freshPrefix();
    // Leases of 3 s (SHORT_LEASES) instead of 10: the same expiry, a shorter wait.
    const leased = { ...env, ...SHORT_LEASES };
    await cluster.startHosts(['north', 'south'], { url, prefix, env: leased });
    const common = ['--nats', url, '--nats-prefix', prefix, '--hosts', '2'];
    const killed = spawnCli(['solve', '-n', '3000', '--seed', '1', '--islands', '2', '--time-limit', '60', ...common], { env: leased });
    await killed.waitForStderr(/started N=3000/);
    // The next coordinator comes while the first holds both hosts: it waits, naming the holder
    // (seen before the kill, so however short the leases, the line cannot miss them).
    const next = spawnCli(['solve', '--json', '-n', '24', '--seed', '2', ...common, '--wait', '30'], { env: leased });
    await next.waitForStderr(
      new RegExp(`waiting up to \\d+ s for 2 idle hosts .*north \\(held by solve on .* \\(pid ${killed.child.pid}\\)\\)`),
    );
    killed.child.kill('SIGKILL');
    await killed.exited;
    const exit = await next.exited;
    assert.equal(exit.code, 0, next.stderr());
    assert.equal(JSON.parse(next.stdout()).solved, true);
  });

  it('a coordinator counts an announced host for at most 256 islands and shows its name without escapes', async () => {
    const prefix = cluster.freshPrefix();
    const nc = await connect({ servers: broker.url.replace('nats://', ''), user: 'lab', pass: SECRET });
    try {
      const directory = new HostDirectory(new BusEndpoint(nc, new BusCodec('coord1', null)), new Subjects(prefix));
      const heard = directory.waitFor(1, 10_000);
      new BusEndpoint(nc, new BusCodec('fake1', null)).publish(`${prefix}.hosts.heartbeat`, {
        type: 'host',
        id: 'fake1',
        name: 'big\u001b[2J\u202eliar',
        islands: 100_000,
        busy: false,
      });
      assert.equal(await heard, true);
      assert.deepEqual(
        [...directory.hosts.values()].map((h) => [h.name, h.islands]),
        [['big??2J?liar', 256]],
      );
      directory.close();
    } finally {
      await nc.close();
    }
  });

  it('a study removes the stream a dead study left behind, and its own', async () => {
    const prefix = cluster.freshPrefix();
    await cluster.startHosts(['solo'], { url, prefix, env });
    const nc = await connect({ servers: broker.url.replace('nats://', ''), user: 'lab', pass: SECRET });
    try {
      const jsm = await jetstreamManager(nc);
      const subjects = new Subjects(prefix);
      const dead = subjects.studyStream('0123456789abcdef');
      await jsm.streams.add({
        name: dead,
        subjects: [subjects.study('0123456789abcdef', 'runs')],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
      });
      const other = `${prefix}x_study_0123456789abcdef`;
      await jsm.streams.add({ name: other, subjects: [`${prefix}x.study.0123456789abcdef.runs`], storage: StorageType.Memory });
      const experimentFile = file('tiny.yaml', 'base: { overrides: { n: 8, islands: 1 } }\nrepeats: 2\nseed: 1\n');
      const outcome = await runStudyOnCluster(loadExperiment(experimentFile, { availableParallelism: 2, totalMemory: 8e9 }), {
        outDir: path.join(dir, 'tiny'),
        resume: false,
        events: false,
        nats: withPassword,
        prefix,
        hosts: 1,
      });
      assert.equal(outcome.completed, 2);
      const names: string[] = [];
      for await (const name of jsm.streams.names()) names.push(name);
      assert.deepEqual(
        names.filter((n) => n.includes('_study_')).sort(),
        [other],
        "the dead study's stream and this one's are gone; another prefix's is kept",
      );
    } finally {
      await nc.close();
    }
  });
});

const openssl = systemTool({ name: 'openssl', commands: ['openssl'], paths: ['/usr/bin/openssl'], install: 'apt-get install openssl' });

describe('tls:// with a CA and client certificates', { skip: nats.skip || openssl.skip, timeout: 120_000 }, () => {
  const cluster = localCluster('tls');
  let broker: NatsServer;
  const pem = (name: string) => path.join(dir, `${name}.pem`);
  before(async () => {
    const run = (...args: string[]) => execFileSync(openssl.path(), args, { cwd: dir, stdio: 'ignore' });
    run(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=nq test CA',
      '-keyout',
      pem('ca-key'),
      '-out',
      pem('ca'),
    );
    // The client (3.4.0) checks an IP address URL's certificate against the name localhost.
    for (const [name, ext] of [
      ['server', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
      ['client', 'extendedKeyUsage=clientAuth'],
    ]) {
      run('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', pem(`${name}-key`), '-out', pem(`${name}-req`));
      writeFileSync(path.join(dir, `${name}.ext`), `${ext}\n`);
      run(
        'x509',
        '-req',
        '-in',
        pem(`${name}-req`),
        '-CA',
        pem('ca'),
        '-CAkey',
        pem('ca-key'),
        '-CAcreateserial',
        '-days',
        '1',
        '-extfile',
        path.join(dir, `${name}.ext`),
        '-out',
        pem(name),
      );
    }
    broker = await startLocalBroker(nats.path(), { tls: { cert: pem('server'), key: pem('server-key'), ca: pem('ca') } });
  });
  after(() => broker?.stop());

  it('hosts and a solve connect with the CA and a client certificate; without the certificate, one line and exit 2', async () => {
    const tlsFlags = ['--nats-ca', pem('ca'), '--nats-cert', pem('client'), '--nats-key', pem('client-key')];
    assert.match(broker.url, /^tls:\/\//);
    const { prefix } = await cluster.startHosts(['t1', 't2'], { url: broker.url, args: tlsFlags });
    const r = await cliAsync([
      'solve',
      '--json',
      '-n',
      '16',
      '--seed',
      '3',
      '--nats',
      broker.url,
      '--nats-prefix',
      prefix,
      '--hosts',
      '2',
      ...tlsFlags,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).solved, true);
    for (const args of [
      ['hosts', '--nats', broker.url, '--nats-ca', pem('ca')],
      ['hosts', '--nats', broker.url.replace('tls:', 'nats:')],
    ]) {
      const refused = await cliAsync(args);
      assert.ok(isOneLineError(refused), `${args.join(' ')}: ${refused.code} ${refused.stderr}`);
      assert.match(refused.stderr, /cannot connect to the NATS broker/);
      // Said as it is, not "(timeout)": a nats:// URL for a TLS-only broker gets the hint.
      if (args[2].startsWith('nats:')) assert.match(refused.stderr, /the broker requires TLS: use tls:\/\//);
    }
  });
});
