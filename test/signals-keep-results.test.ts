/**
 * An ordinary signal (SIGINT, SIGTERM, SIGHUP, `timeout`) never cuts or loses a finished
 * result: it arrives whole on stdout and in --out, the exit code says how the run ended, a
 * stopped study is unlocked with its resume command printed, and an appended log is never
 * renamed over. Through the built binary, with real signals.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LOCK_FILE } from '../src/experiment/lock.ts';
import { CLI, ROOT, spawnCli } from './cli-helpers.ts';
import { COMPILED } from './paths.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-round5-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the binary with stdout on a socket the test does not read until `ready` says so, then signals it, then reads all. */
async function signalWhileDraining(args: string[], ready: () => boolean) {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  // Not read: the socket (about 200 KiB) fills, and the rest of the output waits in the process.
  child.stdout.pause();
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Polls for a file the command writes after its output has started (no fixed sleep).
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10));
  child.kill('SIGTERM');
  child.stdout.resume();
  const code = await closed;
  return { code, stdout: Buffer.concat(chunks).toString(), stderr };
}

/** A small study file (fast runs); `sweep` as YAML text. */
const studyFile = (name: string, sweep: string, seeds = '[1, 2]') => studyYaml(tmp, name, `sweep:\n${sweep}\nseeds: ${seeds}`);

// ---------------------------------------------------------------------------------------
// Class 3: a finished result survives an ordinary signal or path.

const STARTED = /started N=1000 on 2 islands/;

/** Spawns `command` (a CLI run wrapped in e.g. `timeout`), resolving once its stderr matches `ready`. */
function spawnWrapped(command: string[], ready: RegExp) {
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  const started = new Promise<void>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      if (ready.test(stderr)) resolve();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, started, exited, out: () => ({ stdout, stderr }) };
}

describe('a signal while the finished result is written to stdout', () => {
  it('SIGTERM during a 110 KB --json result: the whole result arrives, no false note', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'solve', '-n', '20000', '--mode', 'hybrid', '--islands', '1', '--seed', '1', '--json', '--quiet'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // The first bytes on stdout are the result being written (--json --quiet writes nothing before it);
    // not reading on fills the pipe, so the rest is still being written when the signal comes.
    await new Promise((resolve) => child.stdout.once('readable', resolve));
    child.kill('SIGTERM');
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    const out = Buffer.concat(chunks).toString() + '';
    const record = JSON.parse(out) as { n: number; solution: number[] };
    assert.equal(record.solution.length, 20000);
    assert.doesNotMatch(stderr, /nothing was written/);
    assert.equal(code, 0, stderr);
  });
});

describe('a signal while the result drains to stdout', () => {
  it('solve: a 1.3 MB --json result arrives whole, --out holds it too, the exit is the run\'s, and no line claims "nothing was written"', async () => {
    const out = join(tmp, 'big.json');
    const r = await signalWhileDraining(
      [CLI, 'solve', '-n', '200000', '--mode', 'hybrid', '--islands', '1', '--seed', '1', '--json', '--quiet', '--out', out],
      () => existsSync(out),
    );
    assert.equal(r.code, 0, r.stderr);
    const record = JSON.parse(r.stdout) as { solution: number[] };
    assert.equal(record.solution.length, 200000);
    assert.doesNotMatch(r.stderr, /nothing was written/);
    assert.match(r.stderr, /SIGTERM: the run has ended; finishing writing its result/);
  });

  it("any command whose work is done (its signals let go): the output drains whole, with the command's exit code", async () => {
    // As report and experiment end: the signals claimed for the work, let go, then the output written (1 MB).
    const flag = join(tmp, 'written');
    const script = `
      import { writeFileSync } from 'node:fs';
      import { claimSignals, installSignalHandlers } from '${COMPILED ? './dist/src/cli/signals.js' : './src/cli/signals.ts'}';
      installSignalHandlers();
      claimSignals(() => {})();
      process.exitCode = 1;
      process.stdout.write('x'.repeat(1 << 20) + '\\n');
      writeFileSync(${JSON.stringify(flag)}, '');
    `;
    const node = [...(COMPILED ? [] : ['--import', 'tsx']), '--input-type=module', '-e', script];
    const r = await signalWhileDraining(node, () => existsSync(flag));
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout.length, (1 << 20) + 1);
    assert.match(r.stderr, /SIGTERM: the command has finished; its output is written out whole first/);
  });
});

describe('signals and paths lose no finished result', () => {
  it('`timeout` signalling the run and then its whole group: one interruption, the result printed and saved (exit 143)', async () => {
    const out = join(tmp, 'timeout.json');
    // timeout forwards a TERM it gets to its child and then to the child's process group: the second signal of the issue.
    const run = spawnWrapped(
      ['timeout', '600', process.execPath, CLI, 'solve', '-n', '1000', '--islands', '2', '--seed', '1', '--json', '--out', out],
      STARTED,
    );
    await run.started;
    run.child.kill('SIGTERM');
    const code = await run.exited;
    const { stdout, stderr } = run.out();
    assert.equal(code, 143, stderr);
    const printed = JSON.parse(stdout);
    assert.equal(printed.ended, 'SIGTERM');
    assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), printed);
  });

  it('SIGHUP (a closed terminal) ends the run like SIGTERM: best printed and saved, exit 129', async () => {
    const out = join(tmp, 'hup.json');
    const run = spawnCli(['solve', '-n', '1000', '--islands', '2', '--seed', '1', '--out', out]);
    await run.waitForStderr(STARTED);
    run.child.kill('SIGHUP');
    const { code } = await run.exited;
    assert.equal(code, 129, run.stderr());
    assert.match(run.stdout(), /^not solved N=1000 \(SIGHUP\): best fitness \d+/);
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).ended, 'SIGHUP');
  });

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ] as const) {
    it(`experiment stopped by ${signal}: exit ${code}, the folder unlocked, the resume command printed`, async () => {
      const file = studyFile(`sig-${signal}`, '  n: [1000]\n  limits.timeLimit: [60]');
      const dir = join(tmp, `sig-${signal}`);
      const run = spawnCli(['experiment', file, '--out', dir], { env: { NQUEENS_ISLANDS_TEST_SIGNAL_NOTE: '1' } });
      await run.waitForStderr(/signals claimed/);
      run.child.kill(signal);
      const exited = await run.exited;
      assert.equal(exited.code, code, run.stderr());
      assert.match(run.stderr(), /continue with: nqueens-islands experiment .* --resume/);
      assert.equal(existsSync(join(dir, LOCK_FILE)), false);
    });
  }

  const log = join(tmp, 'run.log');
  for (const path of ['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']) {
    it(`--out ${path} >> run.log appends to the log (the same file, never renamed over)`, () => {
      writeFileSync(log, 'first line\n');
      const before = statSync(log).ino;
      const r = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI}" solve -n 8 --seed 1 --json --quiet --out ${path} >> "${log}"`], {
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(statSync(log).ino, before);
      const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
      assert.equal(lines[0], 'first line');
      assert.equal(lines.length, 3, 'the printed record and the --out copy, after the first line');
      assert.deepEqual(JSON.parse(lines[1]), JSON.parse(lines[2]));
    });
  }
});
