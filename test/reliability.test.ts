// @slow: among the longest test files; `npm test` starts these first (scripts/test.mjs).
/**
 * Issue 21, "reliability, third round": one table per defect class, through the real CLI
 * (dist/bundle, as users run it) and the library. Each bad case: exit 2, one line naming
 * what is wrong, no stack trace, nothing written, replaced or lost.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { filter } from 'rxjs';
import { InputError, runExperiment, solve, startRun, verify } from '../src/index.ts';
import { fitWidth } from '../src/cli/live-view.ts';
import { eventLogPath } from '../src/experiment/runner.ts';
import { readRuns } from '../src/experiment/store.ts';
import { LOCK_FILE } from '../src/experiment/lock.ts';
import { thisHolder } from '../src/experiment/lease.ts';
import { drawsOn, safeText } from '../src/io/terminal.ts';
import { appendLineSync, writeFileAtomic } from '../src/io/write-file.ts';
import { csvField } from '../src/report/page/table.ts';
import { CLI, cli, cliAsync, cliInProcess, inBatches, isOneLineError, oneLine, spawnCli } from './cli-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const IS_ROOT = process.geteuid?.() === 0;
/** A user id that is not this process's (nobody). */
const OTHER_UID = 65534;

/** A small study file (fast runs); `sweep` as YAML text. */
function studyFile(name: string, sweep: string, seeds = '[1, 2]'): string {
  const file = join(tmp, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}\nbase:\n  overrides:\n    n: 8\n    islands: 1\n    topology: { kind: none }\nsweep:\n${sweep}\nseeds: ${seeds}\n`,
  );
  return file;
}

// ---------------------------------------------------------------------------------------
// Class 1: no write through another's link; modes kept; read-only files not replaced.

describe('class 1: writes cannot be redirected, modes are kept', () => {
  const shared = join(tmp, 'shared');
  const victim = join(tmp, 'victim.txt');
  before(() => {
    mkdirSync(shared);
    // World-writable with the sticky bit, as /tmp.
    chmodSync(shared, 0o1777);
  });

  const writers: [string, (path: string) => string[]][] = [
    ['solve --out', (p) => ['solve', '-n', '8', '--seed', '1', '--quiet', '--out', p]],
    ['solve --checkpoint', (p) => ['solve', '-n', '8', '--seed', '1', '--quiet', '--checkpoint', p]],
    ['solve --trace', (p) => ['solve', '-n', '8', '--seed', '1', '--quiet', '--trace', p]],
  ];

  for (const [name, args] of writers) {
    it(
      `${name}: a link another user planted at the name in a shared sticky folder is refused, its target untouched`,
      { skip: IS_ROOT ? false : 'needs root to plant a link owned by another user' },
      async () => {
        writeFileSync(victim, 'precious\n');
        const planted = join(shared, `${name.replace(/\W+/g, '-')}.out`);
        symlinkSync(victim, planted);
        lchownSync(planted, OTHER_UID, OTHER_UID);
        const r = await cliInProcess(args(planted));
        assert.match(oneLine(r, name), /: is a symbolic link owned by another user in the shared folder .*; not followed$/);
        assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
        assert.ok(lstatSync(planted).isSymbolicLink());
        rmSync(planted);
      },
    );
  }

  it(
    'a folder link another user planted in a shared sticky folder is not followed either (results, traces, study folders)',
    { skip: IS_ROOT ? false : 'needs root to plant a link owned by another user' },
    async () => {
      const victimFolder = mkdtempSync(join(tmp, 'victim-folder-'));
      const planted = join(shared, 'evil');
      symlinkSync(victimFolder, planted);
      lchownSync(planted, OTHER_UID, OTHER_UID);
      const study = studyFile('through-link', '  n: [8]', '[1]');
      for (const args of [
        ['solve', '-n', '8', '--out', join(planted, 'r.json')],
        ['solve', '-n', '8', '--trace', join(planted, 'r.trace')],
        ['experiment', study, '--out', planted],
        ['experiment', study, '--out', join(planted, 'sub')],
      ]) {
        assert.match(
          oneLine(await cliInProcess(args), args.join(' ')),
          /goes through .*evil, a symbolic link owned by another user in the shared folder .*; not followed$/,
        );
      }
      assert.deepEqual(readdirSync(victimFolder), []);
      rmSync(planted);
    },
  );

  it('links planted at the temporary names (the old predictable ones, every pid form) never redirect a write', () => {
    writeFileSync(victim, 'precious\n');
    const target = join(shared, 'result.json');
    const planted = [`.result.json.${process.pid}.tmp`, `.result.json.${process.pid}.0000000000000000.tmp`].map((n) => join(shared, n));
    for (const p of planted) symlinkSync(victim, p);
    for (let i = 0; i < 20; i++) writeFileAtomic(target, `{"i":${i}}\n`);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
    assert.ok(lstatSync(target).isFile() && !lstatSync(target).isSymbolicLink());
    assert.equal(readFileSync(target, 'utf8'), '{"i":19}\n');
    for (const p of planted) assert.ok(lstatSync(p).isSymbolicLink(), 'the planted links are left alone');
    // Only the planted links and the file: no temporary file left.
    assert.deepEqual(
      readdirSync(shared)
        .filter((f) => f.includes('result'))
        .sort(),
      ['.result.json.' + process.pid + '.0000000000000000.tmp', `.result.json.${process.pid}.tmp`, 'result.json'].sort(),
    );
  });

  it("a study's runs.jsonl that is a planted link is refused (ELOOP), not written through", () => {
    writeFileSync(victim, 'precious\n');
    const runs = join(shared, 'runs.jsonl');
    symlinkSync(victim, runs);
    assert.throws(() => appendLineSync(runs, '{}'), { code: 'ELOOP' });
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
  });

  it('a link of this user is followed: the file it names is replaced, the link stays', async () => {
    const real = join(tmp, 'real.json');
    const link = join(tmp, 'link.json');
    writeFileSync(real, 'old\n');
    symlinkSync(real, link);
    const r = await cliInProcess(['solve', '-n', '8', '--seed', '1', '--quiet', '--out', link]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(JSON.parse(readFileSync(real, 'utf8')).solved, true);
  });

  for (const mode of [0o600, 0o640, 0o664, 0o755]) {
    it(`a ${mode.toString(8)} file keeps its mode when replaced (--out, --trace)`, async () => {
      const out = join(tmp, `mode-${mode.toString(8)}.json`);
      const trace = join(tmp, `mode-${mode.toString(8)}.trace`);
      for (const f of [out, trace]) {
        writeFileSync(f, 'x');
        chmodSync(f, mode);
      }
      const r = await cliInProcess(['solve', '-n', '8', '--seed', '1', '--quiet', '--out', out, '--trace', trace]);
      assert.equal(r.code, 0, r.stderr);
      for (const f of [out, trace]) assert.equal(statSync(f).mode & 0o7777, mode, f);
    });
  }

  it('a read-only (444) file is refused before the run, for every output, and left as it was', async () => {
    const cases: [string, string[]][] = [
      ['--out', ['solve', '-n', '8', '--seed', '1']],
      ['--checkpoint', ['solve', '-n', '8', '--seed', '1']],
      ['--trace', ['solve', '-n', '8', '--seed', '1']],
    ];
    for (const [flag, args] of cases) {
      const file = join(tmp, `ro${flag}`);
      writeFileSync(file, 'mine\n');
      chmodSync(file, 0o444);
      const line = oneLine(await cliInProcess([...args, flag, file]), flag);
      assert.match(line, new RegExp(`^${flag} .*: is read-only \\(mode 444\\); not replaced`));
      assert.equal(readFileSync(file, 'utf8'), 'mine\n');
      assert.equal(statSync(file).mode & 0o777, 0o444);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Class 2: output carries no commands.

describe('class 2: formulas and terminal escapes from files are neutralised', () => {
  const hostile = ['=HYPERLINK("http://x")', '\u001b]0;pwn\u0007\u001b[2Jx', '+1', '-2+3', '@SUM(A1)', '\tx', '\rx', '\u009b31m'];
  const out = join(tmp, 'hostile-study');
  before(async () => {
    const file = studyFile('hostile', `  output.file: ${JSON.stringify(hostile)}`, '[1]');
    const r = await cliInProcess(['experiment', file, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
  });

  it('report (table, --json) and report --csv to stdout carry no control character', () => {
    for (const args of [[], ['--json'], ['--csv', '/dev/stdout']]) {
      const r = cli(['report', out, ...args]);
      assert.equal(r.code, 0, r.stderr);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(r.stdout + r.stderr, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, args.join(' '));
      assert.match(r.stdout, /\\u001b\]0;pwn\\u0007\\u001b\[2Jx/);
    }
  });

  it('report --json stays exactly the data (the escapes mean the same characters)', async () => {
    const r = await cliInProcess(['report', out, '--json']);
    const cells = (JSON.parse(r.stdout) as { cells: { values: Record<string, unknown> }[] }).cells.map((c) => c.values['output.file']);
    assert.deepEqual(cells.sort(), [...hostile].sort());
  });

  it('report --csv: every text cell that a spreadsheet would take as a formula starts with a quote', async () => {
    const csv = join(tmp, 'hostile.csv');
    assert.equal((await cliInProcess(['report', out, '--csv', csv])).code, 0);
    const fields = readFileSync(csv, 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split(',')[1]);
    for (const field of fields) assert.doesNotMatch(field.replace(/^"/, ''), /^[=+\-@\t\r]/, field);
  });

  it('csvField and safeText, case by case', () => {
    const table: [unknown, string][] = [
      ['=1+1', "'=1+1"],
      ['+1', "'+1"],
      ['-1', "'-1"],
      ['@A', "'@A"],
      ['\tA', "'\tA"],
      ['\rA', "'\\u000dA"],
      [-1, '-1'],
      ['a,b', '"a,b"'],
      ['\u001b[2J', '\\u001b[2J'],
      ['ok', 'ok'],
    ];
    for (const [value, want] of table) assert.equal(csvField(value), want, JSON.stringify(value));
    assert.equal(safeText('a\u202eb\u0085c\nd\te'), 'a\\u202eb\\u0085c\nd\te');
  });
});

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

describe('class 3: signals and paths lose no finished result', () => {
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

// ---------------------------------------------------------------------------------------
// Class 4: one writer per study; one file per output.

describe('class 4: two writers on one study, two outputs on one file', () => {
  it('a study folder locked by a live process: one line naming it, exit 2, nothing run', () => {
    const file = studyFile('locked', '  n: [8]');
    const dir = join(tmp, 'locked');
    mkdirSync(dir);
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...thisHolder(), startedAt: 'now' }));
    const line = oneLine(cli(['experiment', file, '--out', dir, '--resume']), 'locked');
    assert.equal(
      line,
      `--out ${dir}: the study is in use by process ${process.pid} on ${hostname()} since now (it is running on this machine); wait for it to end`,
    );
    assert.deepEqual(readdirSync(dir), [LOCK_FILE]);
  });

  it('a stale lock (its process gone, this host) is taken over; the study runs and unlocks', () => {
    const file = studyFile('stale', '  n: [8]');
    const dir = join(tmp, 'stale');
    mkdirSync(dir);
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...thisHolder(), pid: 2 ** 22 + 12345, startedAt: 'then' }));
    const r = cli(['experiment', file, '--out', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(join(dir, LOCK_FILE)), false);
    assert.equal(readFileSync(join(dir, 'runs.jsonl'), 'utf8').trimEnd().split('\n').length, 2);
  });

  for (const stale of [false, true]) {
    it(`three \`experiment --resume\` at once${stale ? ', on a stale lock' : ''}: no run twice, one line per run`, async () => {
      const name = stale ? 'thrice-stale' : 'thrice';
      const file = studyFile(name, '  n: [8, 9, 10, 11]', '[1, 2, 3]');
      const dir = join(tmp, name);
      if (stale) {
        mkdirSync(dir);
        writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...thisHolder(), pid: 2 ** 22 + 54321, startedAt: 'then' }));
      }
      const results = await inBatches([0, 1, 2], 3, () => cliAsync(['experiment', file, '--out', dir, '--resume']));
      for (const r of results) assert.ok(r.code === 0 || isOneLineError(r), `${r.code} ${r.stderr}`);
      const refused = results.filter((r) => r.code === 2);
      for (const r of refused) assert.match(r.stderr, /the study is in use by process \d+ on /);
      const lines = readFileSync(join(dir, 'runs.jsonl'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { cell: string; seed: number });
      assert.equal(lines.length, 12);
      assert.equal(new Set(lines.map((l) => `${l.cell}@${l.seed}`)).size, 12);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.startsWith(LOCK_FILE)),
        [],
      );
    });
  }

  it('event logs are one per cell: `a/b` and `a_b` (and long ids) each get their own, resumable', async () => {
    const long = `x${'y'.repeat(400)}`;
    const file = studyFile('names', `  output.file: ["a/b", "a_b", "a b", ${JSON.stringify(long)}]`, '[1]');
    const dir = join(tmp, 'names');
    const r = await cliInProcess(['experiment', file, '--out', dir, '--events']);
    assert.equal(r.code, 0, r.stderr);
    for (const cell of ['a/b', 'a_b', 'a b', long]) assert.ok(existsSync(join(dir, eventLogPath(`output.file=${cell}`, 1))), cell);
    assert.equal(readdirSync(join(dir, 'events')).length, 4);
    const again = await cliInProcess(['experiment', file, '--out', dir, '--events', '--resume']);
    assert.equal(again.code, 0, again.stderr);
  });

  const x = join(tmp, 'same.json');
  const linkToX = join(tmp, 'same-link.json');
  before(() => {
    writeFileSync(x, 'kept\n');
    symlinkSync(x, linkToX);
  });
  const sameFile: [string, string[]][] = [
    ['--out x --trace x', ['solve', '-n', '8', '--out', x, '--trace', x]],
    ['--out x --trace ./x (another spelling)', ['solve', '-n', '8', '--out', x, '--trace', join(tmp, '.', 'same.json')]],
    ['--out x --checkpoint link-to-x', ['solve', '-n', '8', '--out', x, '--checkpoint', linkToX]],
    [
      '--trace new --out new (not there yet)',
      ['solve', '-n', '8', '--trace', join(tmp, 'new.json'), '--out', join(tmp, '..', 'nq-rel-' + tmp.split('nq-rel-')[1], 'new.json')],
    ],
    ['report --html x --csv x', ['report', join(tmp, 'whatever'), '--html', x, '--csv', x]],
  ];
  for (const [name, args] of sameFile) {
    it(`one file for two outputs is refused before any work: ${name}`, async () => {
      assert.match(oneLine(await cliInProcess(args), name), /: the same file as --\w+ .*; give each output its own file$/);
      assert.equal(readFileSync(x, 'utf8'), 'kept\n');
      assert.equal(existsSync(join(tmp, 'new.json')), false);
    });
  }
});

// ---------------------------------------------------------------------------------------
// Class 5: checks before the work.

describe('class 5: outputs are checked before the work starts', () => {
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

// ---------------------------------------------------------------------------------------
// Class 7: the build's own files and the environment.

describe('class 7: a deleted working directory, --jitless, bad --baseline values', () => {
  for (const args of [
    ['verify', '1'],
    ['solve', '-n', '8'],
    ['report', 'x'],
    ['experiment', 'x.yaml'],
  ]) {
    it(`${args[0]} in a deleted working directory: one line, exit 2`, () => {
      const gone = mkdtempSync(join(tmp, 'gone-'));
      const r = spawnSync('sh', ['-c', `cd "${gone}" && rmdir "${gone}" && exec "${process.execPath}" "${CLI}" ${args.join(' ')}`], {
        encoding: 'utf8',
      });
      assert.match(
        oneLine({ code: r.status, stdout: r.stdout, stderr: r.stderr }, args[0]),
        /^the working directory cannot be read \(ENOENT: deleted or moved away\?\); cd to an existing folder/,
      );
    });
  }

  it('--jitless (no WebAssembly): the TypeScript operators, the same result as with the kernel', () => {
    // N = 20, seed 3: 22 iterations of every operator on 2 islands (N = 30 took 101, under --jitless 4 CPU s).
    const args = [CLI, 'solve', '-n', '20', '--islands', '2', '--migration', 'sync', '--seed', '3', '--json', '--quiet'];
    const kernel = spawnSync(process.execPath, args, { encoding: 'utf8' });
    const jitless = spawnSync(process.execPath, ['--jitless', ...args], { encoding: 'utf8' });
    assert.equal(jitless.status, 0, jitless.stderr);
    const pick = (s: string) => {
      const r = JSON.parse(s) as { solution: number[]; iterations: number; evaluations: number; foundBy: number };
      return [r.solution, r.iterations, r.evaluations, r.foundBy];
    };
    assert.deepEqual(pick(jitless.stdout), pick(kernel.stdout));
  });

  it('report --baseline with values YAML refuses, bare numbers or no key: one line, exit 2', async () => {
    const file = studyFile('baseline', '  migration.interval: [1, 2]', '[1]');
    const dir = join(tmp, 'baseline');
    assert.equal((await cliInProcess(['experiment', file, '--out', dir])).code, 0);
    for (const value of [
      '5',
      'migration.interval=[',
      'migration.interval=*a',
      'migration.interval={',
      '=',
      'migration.interval=',
      'migration.interval=3',
      'nope=1',
      'true',
    ]) {
      assert.match(oneLine(await cliInProcess(['report', dir, '--baseline', value]), value), /^--baseline /);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Class 8: big inputs are bounded work.

describe('class 8: big traces and big studies', () => {
  it('report --run on a trace of 120,000 progress samples: exact numbers, a page of bounded size', async () => {
    const small = join(tmp, 'small.trace');
    assert.equal((await cliInProcess(['solve', '-n', '12', '--islands', '2', '--seed', '1', '--quiet', '--trace', small])).code, 0);
    const header = readFileSync(small, 'utf8').split('\n')[0];
    const lines = [header];
    const per = 60_000;
    for (let i = 0; i < per; i++) {
      for (const island of [0, 1]) {
        lines.push(
          JSON.stringify({
            type: 'progress',
            island,
            iteration: i,
            evaluations: 1000 * (i + 1),
            bestFitness: Math.max(1, 400 - Math.floor(i / 200)) + island,
            meanFitness: 500,
            diversity: 0.5 + 0.4 * Math.sin(i / 500),
            migrantsSent: i,
            migrantsAccepted: i >> 1,
            seconds: i / 1000,
          }),
        );
      }
    }
    const trace = join(tmp, 'huge.trace');
    writeFileSync(trace, `${lines.join('\n')}\n`);
    const html = join(tmp, 'huge.html');
    const r = await cliInProcess(['report', '--run', trace, '--html', html]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /island 0: 60000 samples, iterations 0\.\.59999, best fitness 400 -> 101,/);
    assert.match(r.stdout, /island 1: 60000 samples, iterations 0\.\.59999, best fitness 401 -> 102,/);
    const page = statSync(html).size;
    assert.ok(page < 1_500_000, `${page} bytes`);
    assert.match(readFileSync(html, 'utf8'), /drawn from the first, last, lowest and highest/);
  });

  it('runs.jsonl is read in chunks: every line across chunk boundaries (multi-byte text too), a torn last line cut', async () => {
    const file = studyFile('big', '  n: [8]', '[1]');
    const dir = join(tmp, 'big');
    assert.equal((await cliInProcess(['experiment', file, '--out', dir])).code, 0);
    const line = readFileSync(join(dir, 'runs.jsonl'), 'utf8').trimEnd();
    const record = JSON.parse(line) as { cell: string; seed: number };
    // About 20 MB: more than two 8 MB chunks, lines of varying length so the cuts fall anywhere.
    const many: string[] = [];
    for (let seed = 1; seed <= 24_000; seed++) many.push(JSON.stringify({ ...record, seed, note: 'é'.repeat(seed % 700) }));
    const runsFile = join(dir, 'runs.jsonl');
    writeFileSync(runsFile, `${many.join('\n')}\n{"cell":"n=8","se`);
    const read = readRuns(runsFile, true);
    assert.equal(read.runs.length, 24_000);
    assert.deepEqual(read.runs.map((r) => r.seed).slice(-3), [23_998, 23_999, 24_000]);
    assert.equal(read.droppedBytes, Buffer.byteLength('{"cell":"n=8","se'));
    assert.ok(readFileSync(runsFile, 'utf8').endsWith('}\n'), 'the torn line is cut off');
  });
});

// ---------------------------------------------------------------------------------------
// Class 9: library and small-message rough edges.

describe('class 9: library rough edges', () => {
  it('verify() of anything but a tuple is a TupleSyntaxError (an InputError) with a message', () => {
    for (const value of [[], null, undefined, {}, 'x', '', [0], [1.5], ['1'], 42]) {
      assert.throws(
        () => verify(value as never),
        (e: unknown) => e instanceof InputError && /^tuple: /.test((e as Error).message),
        JSON.stringify(value),
      );
    }
  });

  it('runExperiment(spec) without options runs into results/<name>', async () => {
    // The default folder is relative to the working directory (here the repository's, where results/ is ignored by git).
    const name = `nq-rel-no-options-${process.pid}`;
    const folder = join('results', name);
    try {
      const outcome = await runExperiment({ name, base: { overrides: { n: 8, islands: 1, topology: { kind: 'none' } } }, seeds: [1] });
      assert.equal(outcome.completed, 1);
      assert.ok(existsSync(join(folder, 'runs.jsonl')));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a throwing events$ subscriber (also through pipe) is contained: the run ends normally, a warning says what happened', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const run = startRun({ n: 12, islands: 2, seed: 4, migration: { mode: 'sync', interval: 5 } });
      let seen = 0;
      run.events$.subscribe(() => {
        throw new Error('boom in next');
      });
      run.events$.pipe(filter((e) => e.type !== 'done')).subscribe(() => {
        throw new Error('boom after pipe');
      });
      run.events$.subscribe(() => seen++);
      const record = await run.result;
      assert.equal(record.n, 12);
      assert.ok(seen > 0);
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings.map((w) => w.message).sort(), ['boom after pipe', 'boom in next']);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('lone-CR line ends are read like LF (tuple file, config, experiment file)', async () => {
    const tuples = join(tmp, 'cr.txt');
    writeFileSync(tuples, '2 4 1 3\r3 1 4 2\r');
    const r = await cliInProcess(['verify', '--file', tuples]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 2);
    const config = join(tmp, 'cr.yaml');
    writeFileSync(config, 'n: 8\rseed: 1\rislands: 1\r');
    assert.equal((await cliInProcess(['solve', '--config', config, '--quiet'])).code, 0);
  });

  it('the live view fits a 30-column terminal and is off under TERM=dumb', () => {
    const view = fitWidth(
      `N=1000  islands 2  ring async every 5  seed 1  3.0 s  1.00M evaluations\n  island  0  iteration  100  best  12 ▁▂▃▄▅▆▇█`,
      30,
    );
    for (const line of view.split('\n')) assert.ok([...line].length <= 29, line);
    const term = process.env.TERM;
    try {
      process.env.TERM = 'dumb';
      assert.equal(drawsOn({ isTTY: true } as NodeJS.WriteStream), false);
      process.env.TERM = 'xterm';
      assert.equal(drawsOn({ isTTY: true } as NodeJS.WriteStream), true);
    } finally {
      if (term === undefined) delete process.env.TERM;
      else process.env.TERM = term;
    }
  });

  it(
    'under a real terminal of 30 columns the live view never wraps; under TERM=dumb it sends no escape',
    { skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a pseudo-terminal' },
    () => {
      const run = (term: string) =>
        spawnSync(
          'script',
          [
            '-qfec',
            `stty cols 30 rows 20; TERM=${term} "${process.execPath}" "${CLI}" solve -n 2000 --islands 2 --seed 1 --time-limit 0.6`,
            '/dev/null',
          ],
          { encoding: 'utf8', timeout: 60_000 },
        );
      const xterm = run('xterm');
      assert.equal(xterm.status, 1, xterm.stderr);
      // Every line drawn (between cursor moves) fits in 30 columns. A run of 0.6 s draws at
      // least its last frame (close() draws it once an island has reported), so both islands'
      // lines are there to check (not a loop over nothing).
      // eslint-disable-next-line no-control-regex
      const drawn = xterm.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '\n').split(/[\r\n]+/);
      const lines = drawn.filter((l) => /island/.test(l) && !/^not solved|iterations;/.test(l));
      for (const island of [0, 1])
        assert.ok(
          lines.some((l) => new RegExp(`^ *island +${island} `).test(l)),
          `island ${island}'s line drawn: ${JSON.stringify(lines)}`,
        );
      for (const line of lines) assert.ok([...line].length <= 29, JSON.stringify(line));
      const dumb = run('dumb');
      assert.equal(dumb.status, 1, dumb.stderr);
      assert.ok(!dumb.stdout.includes('\u001b'), 'no escape under TERM=dumb');
    },
  );
});
