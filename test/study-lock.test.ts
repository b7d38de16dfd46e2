/**
 * The study lock's lease (src/experiment/lock.ts, lease.ts) as a cluster meets it: a restarted
 * container (Node as PID 1 again, same host name: `unshare --pid`), a requeued task on another
 * host name (`unshare --uts`), a holder stopped past its lease, two live holders at once, a
 * FIFO in the lock's place, and what `experiment DIR --status` says of a dead shard. The lease
 * is shortened to LEASE ms (NQI_TEST_LOCK_LEASE_MS); the islands idle (IDLE_ISLANDS), so a
 * run lasts a few seconds at next to no CPU.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { thisHolder } from '../src/experiment/lease.ts';
import { LOCK_FILE } from '../src/experiment/lock.ts';
import { shardLockFile } from '../src/experiment/shard-folder.ts';
import { CLI, cli, cliAsync, isOneLineError, type CliRun } from './cli-helpers.ts';
import { IDLE_ISLANDS } from './helpers.ts';
import { boxed, canUnshare, until } from './boxes.ts';

const LEASE = 1000;
const ENV = { NQI_TEST_LOCK_LEASE_MS: String(LEASE), NQI_TEST_PROGRESS_MS: '0' };
const SLOW = { ...ENV, ...IDLE_ISLANDS };
// Where no holder may lose its lock, a lease that a loaded machine's stalled fsync or scheduler
// cannot outlast: a live holder renews it every sixth, so a newcomer still sees it renewed in ~2 s.
const LIVE = { ...SLOW, NQI_TEST_LOCK_LEASE_MS: '10000' };
const isRoot = canUnshare;
let dir: string;
let study: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'nqi-lock-'));
  study = path.join(dir, 'study.yaml');
  // Four runs of about 3 s each with idle islands (100 ms per iteration from the 10th).
  writeFileSync(study, 'base: { overrides: { n: 40, islands: 1, limits: { maxIterations: 25 } } }\nsweep:\n  n: [40, 41]\nseeds: [1, 2]\n');
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  exited: Promise<CliRun>;
  kill(signal: NodeJS.Signals): void;
}

/** The CLI with `env`, perhaps in new pid (and host-name) namespaces, as a container or another node runs it. */
function start(args: string[], env: NodeJS.ProcessEnv, box?: { host?: string }): Started {
  const node = [process.execPath, CLI, ...args];
  const command = boxed(node, box);
  const child = spawn(command[0], command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<CliRun>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { exited, kill: (signal) => child.kill(signal) };
}

const lockOf = (out: string, name = shardLockFile({ index: 1, count: 1 })) => path.join(out, name);
const holderIn = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { pid: number; host: string; renewedAt: string };
const runsIn = (out: string) =>
  readFileSync(path.join(out, 'runs.shard-1-of-1.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { cell: string; seed: number });

function assertEachRunOnce(out: string, runs = 4): void {
  const keys = runsIn(out).map((r) => `${r.cell}@${r.seed}`);
  assert.equal(keys.length, runs, keys.join(' '));
  assert.equal(new Set(keys).size, runs, keys.join(' '));
}

describe('a lock whose holder died, on any machine, is taken over after its lease', () => {
  it(
    'a restarted container: Node as PID 1 again on the same host (unshare --pid), SIGKILLed mid-study',
    { skip: !isRoot && 'needs root for unshare' },
    async () => {
      const out = path.join(dir, 'restart');
      const first = start(['experiment', study, '--out', out, '--shard', '1/1'], SLOW, {});
      await until(() => existsSync(lockOf(out)), 'the first container to take its lock');
      assert.equal(holderIn(lockOf(out)).pid, 1, 'Node is PID 1 in its container');
      first.kill('SIGKILL');
      await first.exited;
      const again = await start(['experiment', study, '--out', out, '--shard', '1/1'], SLOW, {}).exited;
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stderr.match(/took over the lock of process 1 on /g)?.length, 1, again.stderr);
      assert.match(again.stderr, /its lease was not renewed for \d/);
      assertEachRunOnce(out);
      assert.equal(existsSync(lockOf(out)), false);
    },
  );

  it('the same, with the lock as such a holder leaves it (PID 1, this host, another pid namespace)', async () => {
    const out = path.join(dir, 'pid1');
    mkdirSync(out);
    const dead = { ...thisHolder(), pid: 1, pidNamespace: 'pid:[4000000001]', processStart: '12345' };
    writeFileSync(lockOf(out, LOCK_FILE), JSON.stringify(dead));
    // A lease the CLI's start on a loaded machine cannot outlast, so the lock is still leased when first seen.
    const lease = 5 * LEASE;
    const t0 = Date.now();
    const r = await cliAsync(['experiment', study, '--out', out, '-q'], { env: { ...ENV, NQI_TEST_LOCK_LEASE_MS: String(lease) } });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - t0 >= lease * 0.9, 'waited for the lease to run out');
    assert.match(r.stderr, new RegExp(`waiting up to .* for the lease of process 1 on ${hostname()} .* to run out`));
    assert.match(r.stderr, new RegExp(`took over the lock of process 1 on ${hostname()} since .*: its lease was not renewed for`));
  });

  it('a requeued task on another node: the lock of a host name not this one', async () => {
    const out = path.join(dir, 'requeue');
    mkdirSync(out);
    writeFileSync(lockOf(out), JSON.stringify({ ...thisHolder(), pid: 4242, host: 'node042', bootId: 'another-boot' }));
    const r = await cliAsync(['experiment', study, '--out', out, '--shard', '1/1', '-q'], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.match(/took over the lock of process 4242 on node042/g)?.length, 1, r.stderr);
    assertEachRunOnce(out);
  });

  it('a lock of 0.8.0 and before (no lease in it) counts as renewed when last written', async () => {
    const out = path.join(dir, 'legacy');
    mkdirSync(out);
    writeFileSync(lockOf(out, LOCK_FILE), JSON.stringify({ pid: 4242, host: 'node042', startedAt: 'then' }));
    const r = await cliAsync(['experiment', study, '--out', out, '-q'], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /took over the lock of process 4242 on node042 since then/);
  });

  it('a lock on another host whose lease is renewed is refused once a renewal is seen, in one line', async () => {
    const out = path.join(dir, 'alive-elsewhere');
    mkdirSync(out);
    const holder = { ...thisHolder(), pid: 4242, host: 'node042', bootId: 'another-boot' };
    const renew = () => writeFileSync(lockOf(out, LOCK_FILE), JSON.stringify({ ...holder, renewedAt: new Date().toISOString() }));
    renew();
    const timer = setInterval(renew, LEASE / 6);
    try {
      const r = await cliAsync(['experiment', study, '--out', out], { env: ENV });
      assert.equal(r.code, 2, r.stderr);
      const lines = r.stderr.trimEnd().split('\n');
      assert.match(
        lines.at(-1)!,
        /the study is in use by process 4242 on node042 since .* \(its lease was renewed .* ago\); wait for it to end$/,
      );
      assert.ok(lines.length <= 2, r.stderr);
    } finally {
      clearInterval(timer);
    }
    assert.equal(existsSync(path.join(out, 'runs.jsonl')), false);
  });
});

/**
 * A holder of shard 1/1 in `out`, stopped (SIGSTOP) once `ready` holds; a taker run to its end
 * meanwhile, on another host name (seen from here, same boot and namespace, a stopped process
 * is alive); then the holder woken. Both exits.
 */
async function holderStoppedWhileTaken(out: string, ready: () => boolean, what: string): Promise<{ taker: CliRun; stopped: CliRun }> {
  const args = ['experiment', study, '--out', out, '--shard', '1/1'];
  const holder = start(args, SLOW);
  await until(ready, what);
  holder.kill('SIGSTOP');
  const taker = await start(args, SLOW, { host: 'node-b' }).exited;
  holder.kill('SIGCONT');
  return { taker, stopped: await holder.exited };
}

describe('two live holders never both run a slice', () => {
  it(
    'the same shard started on two host names at once: one runs it, the other is refused',
    { skip: !isRoot && 'needs root for unshare' },
    async () => {
      const out = path.join(dir, 'twice');
      const args = ['experiment', study, '--out', out, '--shard', '1/1'];
      const [a, b] = await Promise.all([start(args, LIVE, { host: 'node-a' }).exited, start(args, LIVE, { host: 'node-b' }).exited]);
      const codes = [a.code, b.code].sort();
      assert.deepEqual(codes, [0, 2], `${a.stderr}\n${b.stderr}`);
      const refused = a.code === 2 ? a : b;
      assert.match(refused.stderr, /in use by process 1 on node-[ab] .*its lease was renewed/);
      assertEachRunOnce(out);
    },
  );

  it(
    'a holder stopped past its lease loses the lock: the taker records, the holder records nothing more',
    { skip: !isRoot && 'needs root for unshare' },
    async () => {
      const out = path.join(dir, 'stopped');
      // Stopped once it records, so that it has runs left to try.
      const records = path.join(out, 'runs.shard-1-of-1.jsonl');
      const ready = () => existsSync(records) && runsIn(out).length >= 1;
      const { taker, stopped } = await holderStoppedWhileTaken(out, ready, 'the holder to record its first run');
      assert.equal(taker.code, 0, taker.stderr);
      assert.match(taker.stderr, /took over the lock of process \d+ on /);
      assert.equal(stopped.code, 2, `holder:\n${stopped.stderr}\ntaker:\n${taker.stderr}`);
      assert.match(stopped.stderr, /this process lost the study's lock to (process 1 on node-b|nobody)/);
      assertEachRunOnce(out);
    },
  );

  it(
    'a holder stopped as soon as it holds the lock (before or after it planned) says on waking that it lost the lock',
    { skip: !isRoot && 'needs root for unshare' },
    async () => {
      const out = path.join(dir, 'stopped-early');
      // Planned before the stop or not, on waking it has runs left to refuse or nothing left to
      // run: both must end in the lost-lock line, never in a quiet exit 0.
      const ready = () => existsSync(lockOf(out, shardLockFile({ index: 1, count: 1 })));
      const { taker, stopped } = await holderStoppedWhileTaken(out, ready, 'the holder to take its lock');
      assert.equal(taker.code, 0, taker.stderr);
      assert.equal(stopped.code, 2, `holder:\n${stopped.stderr}\ntaker:\n${taker.stderr}`);
      assert.match(stopped.stderr, /this process lost the study's lock to (process 1 on node-b|nobody)/);
      assertEachRunOnce(out);
    },
  );
});

describe('what is not a lock', () => {
  it('a FIFO in place of the lock: one line, at once, no hang', () => {
    const out = path.join(dir, 'fifo');
    mkdirSync(out);
    assert.equal(spawnSync('mkfifo', [lockOf(out, LOCK_FILE)]).status, 0);
    const r = cli(['experiment', study, '--out', out, '--resume']);
    assert.ok(isOneLineError(r), r.stderr);
    assert.match(
      r.stderr,
      /the study's lock .*\.nqueens-islands\.lock is a FIFO \(named pipe\); expected a lock file \(a regular file\): remove it/,
    );
  });
});

describe('experiment DIR --status tells running, stopped and complete shards', () => {
  it('a shard running, then killed (stopped once its lease runs out), then complete', async () => {
    const out = path.join(dir, 'status');
    const args = ['experiment', study, '--out', out, '--shard', '1/2'];
    const shard = start(args, SLOW);
    await until(() => existsSync(lockOf(out, shardLockFile({ index: 1, count: 2 }))), 'shard 1 to take its lock');
    const status = () => cli(['experiment', out, '--status'], { env: ENV }).stdout;
    // The runs shard 1 recorded: on a loaded machine it may record one (about 3 s) while status runs.
    const records = path.join(out, 'runs.shard-1-of-2.jsonl');
    const recorded = () =>
      existsSync(records)
        ? readFileSync(records, 'utf8')
            .split('\n')
            .filter((l) => l !== '').length
        : 0;
    const [least, running, most] = [recorded(), status(), recorded()];
    const said = /shard 1\/2: (\d+) of 2 runs, running \(process \d+ on .*, lease renewed .* ago\)/.exec(running);
    assert.ok(said !== null && Number(said[1]) >= least && Number(said[1]) <= most, `${least}..${most} runs recorded:\n${running}`);
    assert.match(running, /shard 2\/2: 0 of 2 runs, missing \(no runs\.shard-2-of-2\.jsonl: never started\)/);
    shard.kill('SIGKILL');
    await shard.exited;
    const done = recorded();
    // Seen from this machine the dead process is stopped at once; from another, once its lease runs out.
    assert.match(status(), new RegExp(`shard 1/2: ${done} of 2 runs, stopped \\(process \\d+ on .*: its process is not running\\)`));
    const elsewhere = lockOf(out, shardLockFile({ index: 1, count: 2 }));
    writeFileSync(elsewhere, JSON.stringify({ ...holderIn(elsewhere), host: 'node042', bootId: 'another-boot' }));
    await new Promise((r) => setTimeout(r, LEASE + 100));
    assert.match(
      status(),
      new RegExp(
        `shard 1/2: ${done} of 2 runs, stopped \\(process \\d+ on node042 since .*: its lease was not renewed for .*; the next start takes it over\\)`,
      ),
    );
    for (const i of [1, 2]) {
      const r = await cliAsync(['experiment', study, '--out', out, '--shard', `${i}/2`, '-q'], { env: ENV });
      assert.equal(r.code, 0, r.stderr);
    }
    assert.equal(status().match(/runs, complete$/gm)?.length, 2, status());
  });
});
