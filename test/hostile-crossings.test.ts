/**
 * Crossings a hostile trial of 0.11.0 found (issue 47, hostile pass 7), a row per class:
 * a study's lock (and a killed writer's temporary files) naming a zombie, a process killed
 * but not yet reaped (a container whose PID 1 does not reap), was taken for a live holder.
 * Through the bundle and the library.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { thisHolder } from '../src/experiment/lease.ts';
import { LOCK_FILE } from '../src/experiment/lock.ts';
import { processAlive, procStatFields } from '../src/io/write-file.ts';
import { until } from './boxes.ts';
import { cliAsync } from './cli-helpers.ts';

const onLinux = existsSync('/proc/self/stat');
let dir: string;
before(() => (dir = mkdtempSync(path.join(tmpdir(), 'nqi-h7-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A zombie: sh's child `sleep 0.1` ends (after sh became `sleep 60`), and its parent, now `sleep`, never reaps it. */
async function zombie(): Promise<{ pid: number; parent: ChildProcess }> {
  const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise<string>((resolve) => parent.stdout.once('data', (c: Buffer) => resolve(c.toString())));
  const pid = Number(line.trim());
  await until(() => procStatFields(pid)?.[0] === 'Z', `process ${pid} to be a zombie`);
  return { pid, parent };
}

describe('a zombie holds nothing', { skip: onLinux ? false : 'needs /proc' }, () => {
  it('processAlive: a zombie is not running, this process is', async () => {
    const { pid, parent } = await zombie();
    try {
      assert.equal(processAlive(pid), false);
      assert.equal(processAlive(process.pid), true);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it("a study lock naming a zombie is taken over at once (it was 'in use ... wait for it to end', exit 2)", async () => {
    const study = path.join(dir, 'z.yaml');
    writeFileSync(study, 'base: { overrides: { n: 8, islands: 1 } }\nsweep:\n  n: [8, 9]\nseeds: [1]\n');
    const out = path.join(dir, 'z');
    mkdirSync(out);
    const { pid, parent } = await zombie();
    try {
      const holder = { ...thisHolder(), pid, processStart: procStatFields(pid)![19] };
      writeFileSync(path.join(out, LOCK_FILE), JSON.stringify(holder));
      const r = await cliAsync(['experiment', study, '--out', out, '-q']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`took over the lock of process ${pid} on .*: its process is not running`));
      assert.equal(readFileSync(path.join(out, 'runs.jsonl'), 'utf8').trim().split('\n').length, 2);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
