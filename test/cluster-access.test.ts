/**
 * Who may use the cluster, and what it shows of its secrets, on a real nats-server with real
 * host processes: credentials from the environment or a file (never in `ps` or their output),
 * TLS with a CA and client certificates made here by openssl, host leases (two coordinators
 * at once), the `hosts` listing, and names and numbers from the bus that are not believed as
 * sent. Every wait is for an event (a line, an exit), never a timer. What needs no broker
 * (URLs, credential sources, the connect timeout) is in cluster-access-local.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Subjects } from '../src/cluster/bus/connection.ts';
import { TEST_CONNECT_TIMEOUT_ENV } from '../src/cluster/defaults.ts';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { BusEndpoint } from '../src/cluster/bus/endpoint.ts';
import { HostDirectory } from '../src/cluster/leases/host-directory.ts';
import { listHosts } from '../src/cluster/host/list.ts';
import { startLocalBroker, type NatsServer } from '../src/cluster/local-broker.ts';
import { runStudyOnCluster } from '../src/cluster/study/study.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { cliAsync, isOneLineError, oneLine, spawnCli, type LiveCli } from './cli-helpers.ts';
import { assertNoSecret, IDLE_ISLANDS, SECRET } from './helpers.ts';
import { localCluster, nats, SHORT_HEARTBEAT, SHORT_LEASES } from './nats-server.ts';
import { systemTool } from './system-tools.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-access-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text, { mode: 0o600 });
  return p;
};

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
    // The first run only holds the hosts: its islands sleep instead of computing (IDLE_ISLANDS).
    const { hosts } = await cluster.startHosts(['east', 'west'], { url, prefix, env: { ...env, ...IDLE_ISLANDS } });
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
    // Leases of 1.5 s (SHORT_LEASES) instead of 10, and hosts that find the coordinator lost after three heartbeats
    // of 0.5 s (SHORT_HEARTBEAT) instead of 1 s: the same expiry and loss, a shorter wait.
    const leased = { ...env, ...SHORT_LEASES, ...SHORT_HEARTBEAT };
    await cluster.startHosts(['north', 'south'], { url, prefix, env: { ...leased, ...IDLE_ISLANDS } });
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
      // Without its certificate the client retries the handshake until its connect timeout: 1 s here (the test-only knob), not 5.
      const refused = await cliAsync(args, { env: { [TEST_CONNECT_TIMEOUT_ENV]: '1000' } });
      assert.ok(isOneLineError(refused), `${args.join(' ')}: ${refused.code} ${refused.stderr}`);
      assert.match(refused.stderr, /cannot connect to the NATS broker/);
      // Said as it is, not "(timeout)": a nats:// URL for a TLS-only broker gets the hint.
      if (args[2].startsWith('nats:')) assert.match(refused.stderr, /the broker requires TLS: use tls:\/\//);
      // The broker verifies clients (its INFO says tls_verify): the line says what is missing, with either URL.
      assert.match(refused.stderr, /the broker requires a client certificate: give --nats-cert and --nats-key/);
    }
  });

  it('a client certificate the broker refuses, and a key of another certificate: one line each, exit 2', async () => {
    // Signed by nobody the broker trusts.
    execFileSync(
      openssl.path(),
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=rogue',
        '-keyout',
        pem('rogue-key'),
        '-out',
        pem('rogue'),
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    /** `hosts` on the TLS broker with this client certificate and key (pem names). */
    const hostsWith = (cert: string, key: string) =>
      cliAsync(['hosts', '--nats', broker.url, '--nats-ca', pem('ca'), '--nats-cert', pem(cert), '--nats-key', pem(key)]);
    // With the client's own connect timeout (5 s): the refusal is found while the client still retries, and said at once.
    const t0 = performance.now();
    const rogue = await hostsWith('rogue', 'rogue-key');
    const seconds = (performance.now() - t0) / 1000;
    assert.ok(isOneLineError(rogue), `${rogue.code} ${rogue.stderr}`);
    assert.match(rogue.stderr, /cannot connect to the NATS broker \(the broker refused this client's certificate \(TLS alert: [a-z ]+\)/);
    assert.ok(seconds < 4, `said after ${seconds.toFixed(1)} s: not before the client's 5 s connect timeout`);
    // Read before any connection: the broker is never asked.
    const mismatched = await hostsWith('client', 'server-key');
    assert.equal(
      oneLine(mismatched, 'a key of another certificate'),
      `--nats-key ${pem('server-key')}: does not match the certificate of --nats-cert ${pem('client')} (the key of another certificate?)`,
    );
  });
});
