/**
 * Issue 39, classes 1-3 and 6: a finished result is never lost to one failing output (exit 4,
 * one line, the result kept elsewhere), no command overwrites its own inputs, output paths
 * are checked before any work, and library calls with values JSON cannot carry are InputErrors. Tables through the built binary (a real stdout on /dev/full,
 * real signals) and in-process (`runCli`).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LOCK_FILE } from '../src/experiment/lock.ts';
import { InputError, runExperiment, startRun, topologies, verify } from '../src/index.ts';
import { CLI, cliInProcess, toDevFull } from './cli-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel4-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const HAS_DEV_FULL = existsSync('/dev/full');

function studyFile(name: string): string {
  const file = join(tmp, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\nbase:\n  overrides:\n    n: 8\n    islands: 1\n    topology: { kind: none }\nseeds: [1, 2]\n`);
  return file;
}

describe('class 1: one failing output keeps the result elsewhere (exit 4, one line)', { skip: !HAS_DEV_FULL && 'no /dev/full' }, () => {
  const study = join(tmp, 'study-1');
  before(async () => {
    const r = await cliInProcess(['experiment', studyFile('s1'), '--out', study]);
    assert.equal(r.code, 0, r.stderr);
  });
  // [name, args, stdout on /dev/full, what stderr says, the file that keeps the result]
  const cases: [string, string[], boolean, RegExp, string | null][] = [
    [
      'solve --trace /dev/full --out r.json',
      ['solve', '-n', '8', '--seed', '1', '--quiet', '--trace', '/dev/full', '--out', 'r1.json'],
      false,
      /--trace \/dev\/full: cannot be written \(no space left on the device\); the result is on stdout and in r1\.json/,
      'r1.json',
    ],
    [
      'solve --json --out r.json >/dev/full',
      ['solve', '-n', '8', '--seed', '1', '--quiet', '--json', '--out', 'r2.json'],
      true,
      /stdout: cannot be written \(no space left on the device\)/,
      'r2.json',
    ],
    ['solve --json >/dev/full', ['solve', '-n', '8', '--seed', '1', '--quiet', '--json'], true, /stdout: cannot be written/, null],
    ['verify >/dev/full', ['verify', '2', '4', '1', '3'], true, /stdout: cannot be written/, null],
    ['verify of a non-solution >/dev/full (not exit 1)', ['verify', '1', '2', '3', '4'], true, /stdout: cannot be written/, null],
    ['config print >/dev/full', ['config', 'print', '-n', '8'], true, /stdout: cannot be written/, null],
    ['report >/dev/full', ['report', 'study-1'], true, /stdout: cannot be written/, null],
    [
      'report --csv /dev/full',
      ['report', 'study-1', '--csv', '/dev/full'],
      false,
      /--csv \/dev\/full: cannot be written \(no space left on the device\); the summary is on stdout only/,
      null,
    ],
  ];
  for (const [name, args, stdoutFull, says, kept] of cases) {
    it(name, () => {
      const r = stdoutFull
        ? toDevFull(args, tmp)
        : spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
      const stderr = 'stderr' in r ? String(r.stderr) : '';
      assert.equal('status' in r ? r.status : r.code, 4, stderr);
      assert.match(stderr, says);
      assert.doesNotMatch(stderr, /internal error|\n\s+at /);
      if (!stdoutFull) assert.ok(String((r as { stdout: string }).stdout).length > 0, 'the result is on stdout');
      if (kept !== null) assert.equal(JSON.parse(readFileSync(join(tmp, kept), 'utf8')).solved, true);
    });
  }
});

describe('class 1: a signal while the finished result is written to stdout', () => {
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

describe('class 2: no command overwrites its own inputs', () => {
  const study = join(tmp, 'study-2');
  const trace = join(tmp, 'trace.jsonl');
  before(async () => {
    assert.equal((await cliInProcess(['experiment', studyFile('s2'), '--out', study, '--events'])).code, 0);
    assert.equal((await cliInProcess(['solve', '-n', '8', '--seed', '1', '--islands', '1', '--quiet', '--trace', trace])).code, 0);
  });
  const snapshot = () =>
    JSON.stringify([
      readdirSync(study),
      ...['manifest.json', 'runs.jsonl'].map((f) => readFileSync(join(study, f), 'utf8')),
      readFileSync(trace, 'utf8'),
    ]);
  // [name, args, what the one line says]
  const cases: [string, () => string[], RegExp][] = [
    [
      'report --csv onto runs.jsonl',
      () => ['report', study, '--csv', join(study, 'runs.jsonl')],
      /runs\.jsonl: is runs\.jsonl of the study in .*; a study's records are never written over/,
    ],
    [
      'report --html onto the manifest',
      () => ['report', study, '--html', join(study, 'manifest.json')],
      /is manifest\.json of the study in .*; a study's records are never written over/,
    ],
    [
      'report --markdown onto the manifest',
      () => ['report', study, '--markdown', join(study, 'manifest.json')],
      /is manifest\.json of the study in .*; a study's records are never written over/,
    ],
    [
      'report --csv onto the lock (not there yet)',
      () => ['report', study, '--csv', join(study, LOCK_FILE)],
      /is \.nqueens-islands\.lock of the study in .*; a study's records are never written over/,
    ],
    [
      'report --html into the event logs',
      () => ['report', study, '--html', join(study, 'events', 'x.html')],
      /is in the event logs of the study in /,
    ],
    [
      'report --csv through ./ and ..',
      () => ['report', study, '--csv', join(study, 'events', '..', '.', 'runs.jsonl')],
      /is runs\.jsonl of the study in /,
    ],
    ['report --run T --html T', () => ['report', '--run', trace, '--html', trace], /is the trace --run, an input/],
  ];
  for (const [name, args, says] of cases) {
    it(name, async () => {
      const before = snapshot();
      const r = await cliInProcess(args());
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr.trim(), says);
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.equal(snapshot(), before, 'inputs unchanged');
    });
  }
  it('an experiment file inside its own --out named as the manifest is refused', async () => {
    const dir = join(tmp, 'self-study');
    mkdirSync(dir);
    const file = join(dir, 'manifest.json');
    writeFileSync(
      file,
      JSON.stringify({ name: 's3', base: { overrides: { n: 8, islands: 1, topology: { kind: 'none' } } }, seeds: [1, 2] }),
    );
    const r = await cliInProcess(['experiment', file, '--out', dir]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--out .*manifest\.json: is the experiment file/);
  });
});

describe('class 3: --ioh is checked before any work and written whole', () => {
  const study = join(tmp, 'study-3');
  before(async () => assert.equal((await cliInProcess(['experiment', studyFile('s4'), '--out', study])).code, 0));
  it('a missing parent folder is refused at once, nothing printed or written', async () => {
    const r = await cliInProcess(['report', study, '--ioh', join(tmp, 'absent', 'ioh'), '--csv', join(tmp, 'c.csv')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--ioh .*: folder .*absent does not exist/);
    assert.equal(r.stdout, '');
    assert.equal(existsSync(join(tmp, 'c.csv')), false);
  });
  it('an export is written whole: no temporary folder stays, and a second export to a fresh folder works', async () => {
    const out = join(tmp, 'ioh-ok');
    assert.equal((await cliInProcess(['report', study, '--ioh', out])).code, 0);
    assert.ok(readdirSync(out).length > 0);
    assert.deepEqual(
      readdirSync(tmp).filter((f) => f.endsWith('.tmp')),
      [],
    );
  });
  it("a killed export's staging folder (SIGKILL: no handler ran) is removed by the next export to that name; others stay", async () => {
    const parent = join(tmp, 'killed');
    mkdirSync(parent);
    const dead = spawnSync(process.execPath, ['-e', '']).pid; // a process that has ended
    const stale = join(parent, `.ioh.${dead}.${'a'.repeat(16)}.tmp`);
    mkdirSync(join(stale, 'n12'), { recursive: true });
    writeFileSync(join(stale, 'n12', 'half.dat'), '1 2\n');
    const kept = [
      `.ioh.${process.pid}.${'b'.repeat(16)}.tmp`, // a live export's
      `.other.${dead}.${'c'.repeat(16)}.tmp`, // another folder's
      `.ioh.${dead}.${'d'.repeat(16)}.tmp`, // a link, never followed or removed
    ];
    mkdirSync(join(parent, kept[0]));
    mkdirSync(join(parent, kept[1]));
    symlinkSync(join(parent, kept[0]), join(parent, kept[2]));
    const r = await cliInProcess(['report', study, '--ioh', join(parent, 'ioh')]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readdirSync(parent).sort(), [...kept, 'ioh'].sort());
    assert.ok(readdirSync(join(parent, 'ioh')).length > 0);
  });
  it('a failed export leaves nothing that blocks a retry (--ioh on /dev/full is refused as a folder)', async () => {
    const r = await cliInProcess(['report', study, '--ioh', '/dev/full']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--ioh \/dev\/full: is a file; expected a missing or empty folder/);
  });
});

/** [1, <hole>, 3]: an array with an empty slot, as `[1, , 3]` makes it. */
function holed(): number[] {
  const tuple: number[] = [];
  tuple[0] = 1;
  tuple[2] = 3;
  return tuple;
}

describe('class 6: library calls with holes, BigInt, null options or huge topologies are InputErrors, not TypeErrors', () => {
  // [name, the call, what the message says]
  const cases: [string, () => unknown, RegExp][] = [
    ['verify with a hole', () => verify(holed()), /entry 2 is empty \(a hole in the array\)/],
    ['verify with BigInts', () => verify([1n, 2n] as unknown as number[]), /1n \(a BigInt\) is not a positive integer/],
    [
      'startRun with null options',
      () => startRun({ n: 8, islands: 1 }, null as never),
      /startRun options: expected an object of options, got null/,
    ],
    [
      'startRun with a BigInt checkpoint period',
      () => startRun({ n: 8, islands: 1 }, { checkpoint: { file: join(tmp, 'x.ckpt'), everySeconds: 1n as unknown as number } }),
      /checkpoint(\.|: )everySeconds: expected a number.*got 1n/,
    ],
    [
      'runExperiment with null options',
      () => runExperiment({ name: 'x', base: { overrides: { n: 8 } }, seeds: [1] }, null as never),
      /runExperiment options: expected an object/,
    ],
    [
      'a topology of a million islands (refused before any edge)',
      () => topologies.edges({ kind: 'fully-connected' }, 1_000_000),
      /topology: at most 4096 islands, got 1000000/,
    ],
    [
      'a topology of a BigInt island count',
      () => topologies.edges({ kind: 'ring' }, 4n as never),
      /topology needs a positive integer island count, got 4/,
    ],
  ];
  for (const [name, call, says] of cases) {
    it(name, async () => {
      await assert.rejects(
        () => Promise.resolve().then(call),
        (error: Error) => error instanceof InputError && says.test(error.message) && !error.message.includes('\n'),
      );
    });
  }
});
