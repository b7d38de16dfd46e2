/**
 * `broker`: its nats-server never outlives it (local-broker.ts's watchdog), whether it is
 * stopped, interrupted while the server starts, or SIGKILLed; a server that never says it
 * is ready is given up on; a server that ends on its own, or a temporary folder that is
 * missing, is a failure in one line (exit 3).
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { TEST_BROKER_READY_ENV } from '../src/cluster/defaults.ts';
import { spawnCli } from './cli-helpers.ts';
import { nats, within } from './nats-server.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'nq-broker-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let folders = 0;

/** A fresh TMPDIR and a PATH whose nats-server is `server` (a script) or the real one. */
function setting(server: string | null) {
  const dir = path.join(tmp, String(++folders));
  const temp = path.join(dir, 'tmp');
  const bin = path.join(dir, 'bin');
  mkdirSync(temp, { recursive: true });
  mkdirSync(bin);
  if (server !== null) {
    writeFileSync(path.join(bin, 'nats-server'), server);
    chmodSync(path.join(bin, 'nats-server'), 0o755);
  }
  const binPath = server === null ? path.dirname(nats.path()) : bin;
  return { dir, temp, env: { PATH: `${binPath}${path.delimiter}${process.env.PATH ?? ''}`, TMPDIR: temp } };
}

/** A nats-server that starts and never says it is ready; it leaves its pid beside its store. */
const SILENT_SERVER = '#!/bin/sh\necho $$ > "$(dirname "$TMPDIR")/server.pid"\nexec sleep 300\n';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once `gone()` holds: checked every 50 ms, bounded by `within` (a guard, not a timing assertion). */
async function until(what: string, gone: () => boolean | Promise<boolean>): Promise<void> {
  await within(
    20,
    what,
    (async () => {
      while (!(await gone())) await new Promise((resolve) => setTimeout(resolve, 50));
    })(),
  );
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
}

/** The pid of the nats-server whose store is under `temp` (its command line names it). */
function serverUnder(temp: string): number | null {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (path.basename(cmdline[0]) === 'nats-server' && cmdline.some((arg) => arg.startsWith(temp))) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

describe('broker: its nats-server never outlives it', { skip: nats.skip, timeout: 120_000 }, () => {
  it('a nats-server that never says ready: one line and exit 3 at the start-up deadline, the server stopped and its store removed', async () => {
    const { dir, temp, env } = setting(SILENT_SERVER);
    const run = spawnCli(['broker'], { env: { ...env, [TEST_BROKER_READY_ENV]: '1000' } });
    const exit = await within(30, 'broker to give up', run.exited);
    assert.equal(exit.code, 3, run.stderr());
    assert.match(run.stderr(), /^nqueens-islands: broker: nats-server \S+ did not say it was ready within 1 s; stopped it\n$/);
    assert.equal(run.stdout(), '');
    assert.equal(alive(Number(readFileSync(path.join(dir, 'server.pid'), 'utf8'))), false);
    assert.deepEqual(readdirSync(temp), []);
  });

  it('SIGINT while the server starts: the server and its store go with the broker', async () => {
    const { dir, temp, env } = setting(SILENT_SERVER);
    const run = spawnCli(['broker'], { env });
    await until('the server to start', () => existsSync(path.join(dir, 'server.pid')));
    run.child.kill('SIGINT');
    assert.equal((await run.exited).code, 130, run.stderr());
    const pid = Number(readFileSync(path.join(dir, 'server.pid'), 'utf8'));
    await until('the server to be gone', () => !alive(pid));
    await until('the store to be removed', () => readdirSync(temp).length === 0);
  });

  it('SIGKILL of the broker: no server is left listening on loopback, and its store is removed', async () => {
    const { temp, env } = setting(null);
    const run = spawnCli(['broker'], { env });
    await run.waitForStderr(/broker ready on/);
    const port = Number(/:(\d+)$/.exec(run.stdout().trim())![1]);
    assert.equal(await refused(port), false);
    run.child.kill('SIGKILL');
    await run.exited;
    await until('the server to stop listening', () => refused(port));
    await until('the store to be removed', () => readdirSync(temp).length === 0);
  });

  it('a server killed under the broker is a failure in one line, exit 3 (not "broker stopped")', async () => {
    const { temp, env } = setting(null);
    const run = spawnCli(['broker'], { env });
    await run.waitForStderr(/broker ready on/);
    const pid = serverUnder(temp);
    assert.ok(pid !== null, 'the server runs with its store under TMPDIR');
    process.kill(pid, 'SIGKILL');
    const exit = await within(30, 'broker to end', run.exited);
    assert.equal(exit.code, 3, run.stderr());
    assert.match(run.stderr(), /\nnqueens-islands: broker: nats-server ended on its own \(killed by SIGKILL\); its store is removed\n$/);
    assert.doesNotMatch(run.stderr(), /broker stopped/);
    assert.deepEqual(readdirSync(temp), []);
  });

  it('TMPDIR missing: one line naming it, exit 3 (an environment fault)', async () => {
    const { env } = setting(null);
    const missing = path.join(tmp, 'no-such-folder');
    const run = spawnCli(['broker'], { env: { ...env, TMPDIR: missing } });
    const exit = await run.exited;
    assert.equal(exit.code, 3);
    assert.equal(
      run.stderr(),
      `nqueens-islands: broker: cannot make the broker's store in the temporary folder ${missing} (ENOENT; set TMPDIR to a writable folder)\n`,
    );
  });
});
