/**
 * Output paths are checked before any work: no command overwrites its own inputs or a study's
 * records, a FIFO or a pseudo file system is refused at once, and an output that cannot be
 * written is refused before a run, a study or a broker connection starts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LOCK_FILE } from '../src/experiment/lock.ts';
import { InputError, solve, startRun } from '../src/index.ts';
import { cliInProcess, cliAsync, oneLine } from './cli-helpers.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel4-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const studyFile = (name: string) => studyYaml(tmp, name, 'seeds: [1, 2]');

describe('no command overwrites its own inputs', () => {
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

describe("no output is written onto a study's records (shards, locks and event logs included)", () => {
  const plain = join(tmp, 'plain');
  const sharded = join(tmp, 'sharded');
  const link = join(tmp, 'link-to-shard');
  const studyFile = join(tmp, 'records.yaml');
  before(async () => {
    writeFileSync(studyFile, 'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 50 } } }\nrepeats: 2\nseed: 1\n');
    assert.equal((await cliInProcess(['experiment', studyFile, '--out', plain, '--events', '--quiet'])).code, 0);
    for (const shard of ['1/2', '2/2'])
      assert.equal((await cliInProcess(['experiment', studyFile, '--out', sharded, '--shard', shard, '--quiet'])).code, 0);
    symlinkSync(join(sharded, 'runs.shard-1-of-2.jsonl'), link);
  });
  const snapshot = () =>
    [plain, sharded].map((dir) =>
      readdirSync(dir).map((f) => [f, statSync(join(dir, f)).isFile() ? readFileSync(join(dir, f), 'utf8') : null]),
    );
  // Each record file of each study, as an output of each flag of each command.
  const targets = () => [
    join(plain, 'runs.jsonl'),
    join(plain, 'manifest.json'),
    join(plain, '.nqueens-islands.lock'),
    join(plain, 'events', 'new.jsonl'),
    join(sharded, 'runs.shard-1-of-2.jsonl'),
    join(sharded, 'runs.shard-2-of-2.jsonl'),
    join(sharded, 'manifest.json'),
    join(sharded, '.nqueens-islands.lock.shard-1-of-2'),
    link,
  ];
  const outputs: [string, (file: string) => string[]][] = [
    ['solve --out', (f) => ['solve', '-n', '8', '--quiet', '--out', f]],
    ['solve --checkpoint', (f) => ['solve', '-n', '8', '--quiet', '--checkpoint', f]],
    ['solve --trace', (f) => ['solve', '-n', '8', '--quiet', '--trace', f]],
    ['report --markdown (another study)', (f) => ['report', sharded === f.slice(0, sharded.length) ? plain : sharded, '--markdown', f]],
    ['report --csv (its own study)', (f) => ['report', f.startsWith(plain) ? plain : sharded, '--csv', f]],
    ['report --html', (f) => ['report', plain, '--html', f]],
  ];
  for (const [name, args] of outputs) {
    it(`${name}: refused in one line, exit 2, before any work, for every record file`, async () => {
      const before = snapshot();
      for (const file of targets()) {
        const r = await cliInProcess(args(file));
        assert.equal(r.code, 2, `${file}: ${r.stderr}`);
        assert.match(
          r.stderr,
          /(of the study in|in the event logs of the study in) .*; a study's records are never written over|is the study's|an input of this command/,
          file,
        );
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.equal(r.stdout, '');
      }
      assert.deepEqual(snapshot(), before);
    });
  }
  it('report --ioh and --figures onto the events folder or a record name: refused before any work', async () => {
    for (const flag of ['--ioh', '--figures'])
      for (const dir of [join(plain, 'events'), join(sharded, '.nqueens-islands.lock.shard-2-of-2'), join(plain, 'runs.jsonl')]) {
        const r = await cliInProcess(['report', sharded, flag, dir]);
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, /a study's records are never written over/);
      }
  });
  it("the library's solve: output.file and checkpoint.file onto a record are refused (InputError)", async () => {
    const { solve } = await import('../src/index.ts');
    for (const file of targets()) {
      await assert.rejects(solve({ n: 8, islands: 1, output: { file } }), /a study's records are never written over|in the event logs/);
      await assert.rejects(
        solve({ n: 8, islands: 1 }, { checkpoint: { file, everySeconds: 1 } }),
        /a study's records are never written over|in the event logs/,
      );
    }
  });
  it('a file named as a record outside any study is an ordinary output', async () => {
    const out = join(tmp, 'not-a-study', 'manifest.json');
    mkdirSync(dirname(out));
    const r = await cliInProcess(['solve', '-n', '8', '--quiet', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(out));
  });
});

describe('nothing blocks or spins where a signal cannot end it', () => {
  const file = join(tmp, 'fifo.yaml');
  before(() => writeFileSync(file, 'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 50 } } }\nrepeats: 2\nseed: 1\n'));
  /** A study folder (run by one process or in shards) with a FIFO in place of `name`. */
  async function withFifo(dir: string, name: string, shard: boolean): Promise<void> {
    if (name !== 'new') {
      const more = shard ? ['--shard', '1/1'] : [];
      // Made by the binary, which resumes it (a study from source has no commit, the build has).
      assert.equal((await cliAsync(['experiment', file, '--out', dir, '--quiet', ...more])).code, 0);
      rmSync(join(dir, name));
    } else mkdirSync(dir);
    execFileSync('mkfifo', [join(dir, name === 'new' ? 'runs.shard-1-of-1.jsonl' : name)]);
  }
  // [case, the FIFO's name ('new': a new shard's records), in shards]
  const cases: [string, string, boolean][] = [
    ["a new shard's records", 'new', true],
    ["a shard's records, continued", 'runs.shard-1-of-1.jsonl', true],
    ['runs.jsonl, --resume', 'runs.jsonl', false],
    ['manifest.json, --resume', 'manifest.json', false],
    ["a shard's manifest.json", 'manifest.json', true],
  ];
  for (const [name, fifo, shard] of cases) {
    it(`a FIFO as ${name}: refused at once, one line, exit 2`, async () => {
      const dir = join(tmp, `fifo-${cases.findIndex((c) => c[0] === name)}`);
      await withFifo(dir, fifo, shard);
      const r = await cliAsync(['experiment', file, '--out', dir, '--quiet', ...(shard ? ['--shard', '1/1'] : ['--resume'])]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /is a FIFO \(named pipe\); expected/);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    });
  }
  it('outputs under a pseudo file system: refused at once, before any work', async () => {
    for (const args of [
      ['experiment', file, '--out', '/proc/nope/x'],
      ['experiment', file, '--out', '/proc/x'],
      ['solve', '-n', '8', '--out', '/proc/nope/x.json'],
      ['solve', '-n', '8', '--trace', '/proc/self/nope/x.jsonl'],
    ]) {
      const r = await cliAsync(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.equal(r.stdout, '');
    }
  });
});

describe('--out is checked before any work, the broker included', () => {
  it('experiment --nats with an --out that cannot be made: refused before connecting', async () => {
    const file = join(tmp, 'nats.yaml');
    writeFileSync(file, 'base: { overrides: { n: 8, islands: 1 } }\nrepeats: 1\nseed: 1\n');
    const taken = join(tmp, 'taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'x'), '');
    // Port 9 (discard) on loopback: nothing answers; a connect attempt would fail as a broker error.
    for (const [out, says] of [
      ['/proc/nope/x', /^--out \/proc\/nope\/x: cannot create the folder/],
      [taken, /^--out .*taken: folder is not empty/],
    ] as const) {
      const r = await cliInProcess(['experiment', file, '--nats', 'nats://127.0.0.1:9', '--hosts', '1', '--out', out]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr.trim().replace(/^nqueens-islands: /, ''), says);
      assert.doesNotMatch(r.stderr, /broker|NATS|nats:/i);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Class 5: checks before the work.

describe('outputs are checked before the work starts', () => {
  it('library: solve() with an output.file in a missing folder rejects with an InputError at once, nothing run', async () => {
    let events = 0;
    const error = await (async () => {
      try {
        const run = startRun({ n: 8, output: { file: join(tmp, 'missing', 'r.json') } });
        run.events$.subscribe(() => events++);
        await run.result;
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(error instanceof InputError, String(error));
    assert.match((error as Error).message, /^output\.file .*r\.json: folder .*missing does not exist$/);
    assert.equal(events, 0);
    await assert.rejects(solve({ n: 8, output: { file: join(tmp, 'ro-lib.json') + '/' } }), InputError);
  });

  const cases: [string, string[], RegExp][] = [
    [
      '--out dir/ (trailing slash)',
      ['solve', '-n', '30', '--out', join(tmp, 'nodir') + '/'],
      /^--out .*nodir\/: ends with \/, so names a folder; expected a file name$/,
    ],
    ['--out an existing dir/', ['solve', '-n', '30', '--out', `${tmp}/`], /^--out .*: ends with \/, so names a folder/],
    ['--trace x/.', ['solve', '-n', '30', '--trace', join(tmp, 'x') + '/.'], /^--trace .*: ends with \/, so names a folder/],
    [
      '--out with a 300-byte name',
      ['solve', '-n', '30', '--out', join(tmp, 'n'.repeat(300))],
      /^--out .*: file name too long \(at most 255 bytes\)$/,
    ],
    [
      'report --html dir/',
      ['report', join(tmp, 'whatever'), '--html', join(tmp, 'h') + '/'],
      /^--html .*: ends with \/, so names a folder/,
    ],
  ];
  for (const [name, args, says] of cases) {
    it(name, async () => {
      assert.match(oneLine(await cliInProcess(args), name), says);
      assert.equal(existsSync(join(tmp, 'nodir')), false);
    });
  }

  it("a run config's output.file is named as that key (and its file) in messages, not --out", async () => {
    const config = join(tmp, 'out-key.yaml');
    writeFileSync(config, `n: 8\noutput:\n  file: ${join(tmp, 'missing', 'r.json')}\n`);
    assert.match(
      oneLine(await cliInProcess(['solve', '--config', config]), 'output.file'),
      /^output\.file \(.*out-key\.yaml\) .*r\.json: folder .*missing does not exist$/,
    );
  });
});
