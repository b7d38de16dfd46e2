/**
 * Issue 11's defect classes, each as a table: bad flag values of every command, hostile
 * files, damaged study folders and checkpoints, output paths that are not regular files, a
 * full or read-only file system. A bad input is one line on stderr naming the flag, file or
 * key, exit 2, no stack trace, nothing written or replaced. The tables run the command line
 * in this process (`runCli`); a few cases also run through the built binary, which must
 * answer exactly as in-process. The rest runs in this process too (devices, FIFOs and full
 * file systems are the paths' point, not the process's), but for what needs a process of its
 * own: the environment's fault hook, another working folder, a writer's process id.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventLogPath } from '../src/experiment/runner.ts';
import { checkpointContents, encodeCheckpoint, type CheckpointFile } from '../src/run/checkpoint.ts';
import { referenceFitness } from '../src/problem/reference-fitness.ts';
import { cli, cliAsync, cliInProcess, inBatches, oneLine, ROOT, type CliRun } from './cli-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-classes-'));
/** File systems mounted for class 2, unmounted before the folder goes. */
const mounted: string[] = [];
after(() => {
  for (const dir of mounted) spawnSync('umount', [dir]);
  rmSync(tmp, { recursive: true, force: true });
});

function file(name: string, text: string | Uint8Array): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

function fifo(name: string): string {
  const p = join(tmp, name);
  const r = spawnSync('mkfifo', [p]);
  assert.equal(r.status, 0, 'mkfifo');
  return p;
}

/**
 * [args, what the one line must match, `binary`: also through the built binary]. Each case
 * runs in this process first; the binary's answer must then equal the in-process one.
 */
type Case = readonly [readonly string[], RegExp, { binary: true }?];
function table(title: string, cases: readonly Case[], setup?: () => void | Promise<void>): void {
  describe(title, () => {
    let results: { inProcess: CliRun; binary?: CliRun }[] = [];
    before(async () => {
      await setup?.();
      results = [];
      for (const [args] of cases) results.push({ inProcess: await cliInProcess(args) });
      const picked = cases.flatMap(([args, , options], i) => (options?.binary ? [[args, i] as const] : []));
      await inBatches(picked, 4, async ([args, i]) => (results[i].binary = await cliAsync(args)));
    });
    cases.forEach(([args, says, options], i) => {
      const label = args.map((a) => (a === '' ? '""' : a.replace(tmp, '…').replace(ROOT, ''))).join(' ');
      it(`${label}${options?.binary ? ' (and through the binary)' : ''}`, () => {
        const { inProcess, binary } = results[i];
        assert.match(oneLine(inProcess, args.join(' ')), says);
        if (options?.binary) assert.deepEqual(binary, inProcess, 'the binary answers as runCli does');
      });
    });
  });
}

// ---------------------------------------------------------------------------------------
// Class 1: every flag of every command, with values the schema must refuse.

const NUMERIC_RUN_FLAGS: readonly (readonly [string, ...string[]])[] = [
  ['-n'],
  ['--seed'],
  ['--population'],
  ['--pairs-per-iteration'],
  ['--crossover-probability'],
  ['--mutation-probability'],
  ['--double-mutation-probability'],
  ['--bad-repository-size'],
  ['--islands'],
  ['--probability', '--topology', 'random'],
  ['--rows', '--topology', 'grid', '--islands', '4'],
  ['--interval'],
  ['--migrants'],
  ['--max-iterations'],
  ['--time-limit'],
];
const WORD_RUN_FLAGS = ['--mode', '--topology', '--migration', '--emigrant-selection', '--replacement', '--on-island-error'];
const TOPOLOGY_STUDY = join(ROOT, 'config', 'experiments', 'topology.yaml');
const escape = (flag: string) => flag.replace(/[-]/g, '\\-');
const base = (flag: string) => (flag === '-n' ? ['solve'] : ['solve', '-n', '8']);

const flagCases: Case[] = [
  ...NUMERIC_RUN_FLAGS.flatMap(([flag, ...rest]) =>
    ['abc', '', '-1', '1e999', '0x1F'].map((value): Case => [
      [...base(flag), ...rest, `${flag}=${value}`],
      new RegExp(`^${escape(flag)}: expected`),
    ]),
  ),
  ...WORD_RUN_FLAGS.flatMap((flag) =>
    ['abc', ''].map((value): Case => [[...base(flag), `${flag}=${value}`], new RegExp(`^${escape(flag)}: expected`)]),
  ),
  // Beyond what a timer can hold: it would fire at once.
  [['solve', '-n', '8', '--time-limit', '3e6'], /^--time-limit: expected .*at most 2147483/],
  // Fractions where only whole numbers make sense.
  ...['-n', '--islands', '--population', '--interval', '--max-iterations', '--seed', '--migrants', '--rows'].map((flag): Case => [
    [...base(flag), `${flag}=2.5`],
    new RegExp(`^${escape(flag)}: expected`),
  ]),
  // The config edge, through the other command that reads run flags.
  [['config', 'print', '-n', '8', '--migrants', 'abc'], /^--migrants: expected/],
  [['config', 'print', '-n', '8', '--migrants', 'x%'], /^--migrants: expected/],
  // A repeated flag: the last one counts, and is checked.
  [['solve', '-n', '8', '-n', 'abc'], /^-n: expected/],
  [['solve', '-n', '8', '--migrants', '2', '--migrants', '%'], /^--migrants: expected/],
  // Paths and other strings: never empty.
  ...['--config', '--out', '--checkpoint', '--resume'].map((flag): Case => [
    ['solve', '-n', '8', flag, ''],
    new RegExp(`^${escape(flag)}: expected`),
  ]),
  [['solve', '-n', '8', '--checkpoint', join(tmp, 'c.ckpt'), '--checkpoint-every', ''], /^--checkpoint-every: expected/],
  [['solve', '-n', '8', '--checkpoint', join(tmp, 'c.ckpt'), '--checkpoint-every=-1'], /^--checkpoint-every: expected/],
  [['solve', '-n', '8', '--checkpoint', join(tmp, 'c.ckpt'), '--checkpoint-every', '1e999'], /^--checkpoint-every: expected/],
  [['verify', '--file', ''], /^--file: expected/],
  [['verify', '-n', '', '1'], /^-n: expected/],
  [['verify', '-n=-1', '1'], /^-n: expected/],
  [['verify', '-n', '2.5', '1'], /^-n: expected/],
  [['experiment', ''], /^experiment: expected an experiment file/],
  [['experiment', TOPOLOGY_STUDY, '--out', ''], /^--out: expected/],
  [['report', ''], /^report: expected a study folder/],
  ...['--html', '--csv', '--markdown', '--ioh', '--figures', '--run', '--baseline'].map((flag): Case => [
    ['report', join(tmp, 'none'), flag, ''],
    new RegExp(`^${escape(flag)}: expected`),
  ]),
  // Garbage booleans are refused, not read as false (7).
  ...['--json', '--board', '--quiet', '--all', '--reject-duplicates', '--no-json', '-q'].map((flag): Case => [
    ['solve', '-n', '8', `${flag}=foo`],
    new RegExp(`^${escape(flag)}: expected true or false, got "foo"$`),
    flag === '-q' ? { binary: true } : undefined,
  ]),
  [['verify', '--json=yes', '2', '4', '1', '3'], /^--json: expected true or false, got "yes"$/],
  [['verify', '--all=2', '2', '4', '1', '3'], /^--all: expected true or false/],
  [['config', 'print', '-n', '8', '--json=1'], /^--json: expected true or false/],
  [['experiment', TOPOLOGY_STUDY, '--resume=maybe'], /^--resume: expected true or false/],
  [['experiment', TOPOLOGY_STUDY, '--events=x'], /^--events: expected true or false/],
  [['report', join(tmp, 'none'), '--json=no-thanks'], /^--json: expected true or false/],
  [['report', join(tmp, 'none'), '--paper-table1=nope'], /^--paper-table1: expected true or false/],
];
table('class 1: bad flag values of every command are one line and exit 2', flagCases);

it('class 1: flags given true or false explicitly still work', async () => {
  const r = await cliInProcess(['verify', '--json=true', '--all=false', '2', '4', '1', '3']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout)[0].solution, true);
});

// ---------------------------------------------------------------------------------------
// Class 1 and 5: hostile input files.

const bombLines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
for (const [name, prev] of [
  ['b', 'a'],
  ['c', 'b'],
  ['d', 'c'],
  ['e', 'd'],
  ['f', 'e'],
  ['g', 'f'],
]) {
  bombLines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
}
const bomb = file('bomb.yaml', `n: 8\n${bombLines.join('\n')}\n`);
const bombStudy = file('bomb-study.yaml', `name: bomb\n${bombLines.join('\n')}\n`);
const studySyntax = file('study-syntax.yaml', 'name: x\nsweep: [1, 2\n');
// A 2 MB YAML list: refused by its size at once, not parsed for half a minute.
const huge = file('huge.yaml', `n: 8\nedges:\n${'  - [0, 1]\n'.repeat(200_000)}`);
const hugeTuples = join(tmp, 'huge-tuples.txt');
const folder = join(tmp, 'folder');
mkdirSync(folder);

table(
  'classes 1 and 5: input files are read as bounded regular files and parsed safely',
  [
    [['solve', '--config', bomb], /bomb\.yaml: invalid YAML: Excessive alias count/],
    [['config', 'print', '--config', bomb], /bomb\.yaml: invalid YAML: Excessive alias count/],
    [['experiment', bombStudy], /bomb-study\.yaml: invalid YAML: Excessive alias count/],
    [['experiment', studySyntax], /study-syntax\.yaml:\d+:\d+: invalid YAML/],
    [['solve', '--config', huge], /huge\.yaml: is [\d.]+ MB, more than the 1\.0 MB allowed for a YAML or JSON file$/],
    [['experiment', huge], /huge\.yaml: is [\d.]+ MB, more than the 1\.0 MB allowed/],
    [['solve', '--config', '/dev/zero'], /^\/dev\/zero: is a device; expected a YAML or JSON file$/, { binary: true }],
    [['experiment', '/dev/zero'], /^\/dev\/zero: is a device; expected an experiment file/],
    [['verify', '--file', '/dev/zero'], /^--file \/dev\/zero: is a device; expected a file of tuples$/],
    [['solve', '--resume', '/dev/zero'], /^--resume \/dev\/zero: is a device; expected a checkpoint file$/],
    [
      ['solve', '--config', join(tmp, 'config.fifo')],
      /config\.fifo: is a FIFO \(named pipe\); expected a YAML or JSON file$/,
      { binary: true },
    ],
    [['verify', '--file', join(tmp, 'tuples.fifo')], /tuples\.fifo: is a FIFO \(named pipe\); expected a file of tuples$/],
    [['experiment', join(tmp, 'study.fifo')], /study\.fifo: is a FIFO/],
    [['solve', '--resume', join(tmp, 'ckpt.fifo')], /ckpt\.fifo: is a FIFO/],
    [['verify', '--file', folder], /folder: is a directory; expected a file of tuples$/],
    [['experiment', folder], /folder: is a directory; expected an experiment file/],
    [['verify', '--file', hugeTuples], /huge-tuples\.txt: is [\d.]+ MB, more than the 256\.0 MB allowed/],
  ],
  () => {
    for (const name of ['config.fifo', 'tuples.fifo', 'study.fifo', 'ckpt.fifo']) fifo(name);
    // Sparse: 300 MB of nothing on disk.
    writeFileSync(hugeTuples, '');
    assert.equal(spawnSync('truncate', ['-s', '300M', hugeTuples]).status, 0);
  },
);

// ---------------------------------------------------------------------------------------
// Class 1: damaged study folders, and report outputs that cannot be written.

const studyFile = file(
  'instant.yaml',
  'name: instant\nbase: { overrides: { n: 1, islands: 1 } }\nsweep:\n  migration.interval: [1, 2]\nrepeats: 2\n',
);
const study = join(tmp, 'study');

function damaged(name: string, change: (dir: string) => void): string {
  const dir = join(tmp, `damaged-${name}`);
  cpSync(study, dir, { recursive: true });
  change(dir);
  return dir;
}
const editJson = (f: string, edit: (value: Record<string, unknown>) => void) => {
  const value = JSON.parse(readFileSync(f, 'utf8'));
  edit(value);
  writeFileSync(f, JSON.stringify(value));
};
const editLine = (f: string, index: number, edit: (value: Record<string, unknown>) => void) => {
  const lines = readFileSync(f, 'utf8').split('\n');
  const value = JSON.parse(lines[index]);
  edit(value);
  lines[index] = JSON.stringify(value);
  writeFileSync(f, lines.join('\n'));
};

const studyCases: Case[] = [];
function studyCase(name: string, change: (dir: string) => void, says: RegExp, extra: string[] = []): void {
  studyCases.push([['report', join(tmp, `damaged-${name}`), ...extra], says]);
  damagers.push(() => damaged(name, change));
}
const damagers: (() => void)[] = [];
studyCase(
  'no-cells',
  (d) => editJson(join(d, 'manifest.json'), (m) => delete m.cells),
  /manifest\.json: cells: expected array, received undefined; the folder is damaged$/,
);
studyCase('cells-string', (d) => editJson(join(d, 'manifest.json'), (m) => (m.cells = 'x')), /manifest\.json: cells: expected array/);
studyCase('no-seeds', (d) => editJson(join(d, 'manifest.json'), (m) => (m.seeds = [])), /manifest\.json: seeds: /);
studyCase(
  'cell-config',
  (d) => editJson(join(d, 'manifest.json'), (m) => ((m.cells as { config: unknown }[])[0].config = null)),
  /manifest\.json: cells\[0\]\.config: /,
);
studyCase(
  'run-seconds',
  (d) => editLine(join(d, 'runs.jsonl'), 0, (r) => (r.seconds = 'fast')),
  /runs\.jsonl:1: not a run record \(seconds: expected number, received string\)/,
);
studyCase(
  'run-islands',
  (d) => editLine(join(d, 'runs.jsonl'), 1, (r) => (r.islands = [3])),
  /runs\.jsonl:2: not a run record \(islands\[0\]: expected object/,
);
studyCase(
  'run-cell',
  (d) => editLine(join(d, 'runs.jsonl'), 2, (r) => (r.cell = 7)),
  /runs\.jsonl:3: not a run record \(cell: expected string/,
);
studyCase(
  'runs-folder',
  (d) => {
    rmSync(join(d, 'runs.jsonl'));
    mkdirSync(join(d, 'runs.jsonl'));
  },
  /runs\.jsonl: is a directory; expected a file of run records/,
);
studyCase(
  'manifest-folder',
  (d) => {
    rmSync(join(d, 'manifest.json'));
    mkdirSync(join(d, 'manifest.json'));
  },
  /manifest\.json: is a directory; expected a study manifest/,
);
studyCase(
  'runs-fifo',
  (d) => {
    rmSync(join(d, 'runs.jsonl'));
    assert.equal(spawnSync('mkfifo', [join(d, 'runs.jsonl')]).status, 0);
  },
  /runs\.jsonl: is a FIFO/,
);
studyCase(
  'event-type',
  (d) => writeFileSync(join(d, eventLogPath('migration.interval=1', 1)), '{"type":"progress","island":"x","seconds":1,"bestFitness":2}\n'),
  /migration\.interval=1~[0-9a-f]{16}__seed-1\.jsonl: line 1 is not an event \(island: expected number/,
  ['--html', join(tmp, 'event.html'), '--run', 'migration.interval=1@1'],
);
studyCase(
  'event-json',
  (d) => writeFileSync(join(d, eventLogPath('migration.interval=1', 1)), 'junk\n'),
  /migration\.interval=1~[0-9a-f]{16}__seed-1\.jsonl: line 1 is not JSON/,
  ['--html', join(tmp, 'event.html'), '--run', 'migration.interval=1@1'],
);
studyCases.push(
  [['report', study, '--html', join(tmp, 'no', 'such', 'r.html')], /^--html .*r\.html: folder .* does not exist$/],
  [['report', study, '--csv', folder], /^--csv .*folder: is a directory, expected a file name$/],
  [
    ['report', studyFile],
    /instant\.yaml: is a file, not a study folder; an experiment file is run first \(nqueens-islands experiment .*instant\.yaml --out DIR\), then: nqueens-islands report DIR$/,
  ],
  [['report', join(tmp, 'no-such-study')], /no-such-study: no such folder; expected the --out folder of an experiment$/, { binary: true }],
);

table('class 1: damaged study folders and unwritable report files are one line and exit 2', studyCases, async () => {
  const made = await cliInProcess(['experiment', studyFile, '--out', study, '--events']);
  assert.equal(made.code, 0, made.stderr);
  for (const damage of damagers) damage();
});

it('class 1: a half-written last line of runs.jsonl is left out with a note, not an error', async () => {
  const dir = damaged('torn', (d) => writeFileSync(join(d, 'runs.jsonl'), `${readFileSync(join(d, 'runs.jsonl'), 'utf8')}{"cell":"migr`));
  const r = await cliInProcess(['report', dir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).cells.length, 2);
  assert.match(r.stderr, /runs\.jsonl: left out a half-written last line \(13 bytes\)/);
});

// ---------------------------------------------------------------------------------------
// Class 4: an experiment's name is one folder name.

table(
  'class 4: an experiment name that is a path is refused',
  ['../../escaped', 'a/b', '..', '.', 'back\\slash', 'new\nline'].map((name, i): Case => {
    return [
      ['experiment', file(`named-${i}.yaml`, `name: ${JSON.stringify(name)}\nbase: { overrides: { n: 1, islands: 1 } }\n`)],
      /named-\d\.yaml: name: expected a folder name/,
    ];
  }),
);

it('class 4: a name with spaces stays one folder under results/', () => {
  const cwd = join(tmp, 'cwd');
  mkdirSync(cwd);
  const study = file('spaced.yaml', 'name: my study\nbase: { overrides: { n: 1, islands: 1 } }\n');
  const r = cli(['experiment', study], { cwd });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readdirSync(cwd), ['results']);
  assert.deepEqual(readdirSync(join(cwd, 'results')), ['my study']);
  assert.match(r.stderr, /summary: nqueens-islands report 'results\/my study'$/m);
});

// ---------------------------------------------------------------------------------------
// Class 3: output paths that are not regular files are written directly, never replaced.

describe('class 3: devices and FIFOs are written in place, never replaced by a rename', () => {
  const isCharDevice = (p: string) => lstatSync(p).isCharacterDevice();

  it('solve --out /dev/null: exit 0, still a device', async () => {
    const r = await cliInProcess(['solve', '-n', '8', '--islands', '1', '--out', '/dev/null', '--quiet']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(isCharDevice('/dev/null'));
  });

  it('solve --out /dev/full: the result on stdout, one line, exit 4, still a device', async () => {
    const r = await cliInProcess(['solve', '-n', '8', '--islands', '1', '--out', '/dev/full', '--json', '--quiet']);
    assert.equal(r.code, 4, r.stderr);
    assert.equal(JSON.parse(r.stdout).solved, true);
    assert.match(
      r.stderr.trim(),
      /^nqueens-islands: --out \/dev\/full: cannot be written \(no space left on the device\); the result is on stdout only$/,
    );
    assert.ok(isCharDevice('/dev/full'));
  });

  it('report --csv and --html to /dev/null: written, still a device', async () => {
    const r = await cliInProcess(['report', study, '--csv', '/dev/null', '--html', '/dev/null']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(isCharDevice('/dev/null'));
  });

  it('report --csv /dev/full: the summary on stdout, one line, exit 4', async () => {
    const r = await cliInProcess(['report', study, '--csv', '/dev/full']);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stdout, /migration\.interval=1/);
    assert.match(
      r.stderr.trim(),
      /^nqueens-islands: --csv \/dev\/full: cannot be written \(no space left on the device\); the summary is on stdout only$/,
    );
  });

  it('a checkpoint to /dev/null: the run goes on, still a device', async () => {
    const r = await cliInProcess([
      'solve',
      '-n',
      '8',
      '--islands',
      '1',
      '--checkpoint',
      '/dev/null',
      '--checkpoint-every',
      '0.01',
      '--quiet',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(isCharDevice('/dev/null'));
  });

  it('solve --out FIFO: a reader gets the result; without a reader, one line and exit 4; a FIFO either way', async () => {
    const pipe = fifo('out.fifo');
    const lonely = await cliInProcess(['solve', '-n', '8', '--islands', '1', '--out', pipe, '--quiet']);
    assert.equal(lonely.code, 4, lonely.stderr);
    assert.match(lonely.stderr, /--out .*out\.fifo: cannot be written \(a FIFO nobody reads\)/);
    assert.match(lonely.stdout, /^solved N=8/);
    assert.ok(lstatSync(pipe).isFIFO());
    // The test is the reader: opened before the run, read after it (the record fits the pipe's buffer).
    const reader = openSync(pipe, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const r = await cliInProcess(['solve', '-n', '8', '--islands', '1', '--out', pipe, '--quiet']);
      assert.equal(r.code, 0, r.stderr);
      const buffer = Buffer.alloc(65536);
      const got = buffer.subarray(0, readSync(reader, buffer)).toString('utf8');
      assert.equal(JSON.parse(got).solved, true);
    } finally {
      closeSync(reader);
    }
    assert.ok(lstatSync(pipe).isFIFO());
  });

  it('experiment --out a device or a file: refused, nothing made', async () => {
    for (const [out, says] of [
      ['/dev/null', /^--out \/dev\/null: is a device; expected a folder$/],
      [studyFile, /^--out .*instant\.yaml: is a file; expected a folder$/],
    ] as const) {
      const r = await cliInProcess(['experiment', studyFile, '--out', out]);
      assert.match(oneLine(r, out), says);
    }
    assert.ok(isCharDevice('/dev/null'));
  });
});

// ---------------------------------------------------------------------------------------
// Class 2: a finished result is never lost (a real full and a real read-only file system).

const mountRoot = join(tmp, 'mounts');
const full = join(mountRoot, 'full');
const readOnly = join(mountRoot, 'ro');
function mountTmpfs(): string | null {
  mkdirSync(full, { recursive: true });
  mkdirSync(readOnly, { recursive: true });
  const a = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full], { encoding: 'utf8' });
  if (a.status !== 0) return `cannot mount a 64 KB tmpfs (${(a.stderr || 'not permitted').trim()}); run the tests as root to enable`;
  mounted.push(full);
  const b = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,ro', 'tmpfs', readOnly], { encoding: 'utf8' });
  if (b.status !== 0) return `cannot mount a read-only tmpfs (${b.stderr.trim()})`;
  mounted.push(readOnly);
  return null;
}
const unmountable = process.platform === 'linux' ? mountTmpfs() : 'tmpfs mounts need Linux';

describe('class 2: a full or read-only file system loses no finished result', { skip: unmountable ?? false }, () => {
  before(() => {
    // Leave about 4 KB: a small file fits, a big result does not.
    writeFileSync(join(full, 'filler'), Buffer.alloc(60 * 1024, 1));
  });

  it('solve --out on a full disk: the result on stdout, one line, exit 4, the earlier file intact', async () => {
    const out = join(full, 'r.json');
    writeFileSync(out, 'earlier\n');
    const r = await cliInProcess([
      'solve',
      '-n',
      '2000',
      '--mode',
      'hybrid',
      '--islands',
      '1',
      '--seed',
      '1',
      '--out',
      out,
      '--json',
      '--quiet',
    ]);
    assert.equal(r.code, 4, r.stderr);
    const record = JSON.parse(r.stdout);
    assert.equal(record.solved, true);
    assert.equal(record.solution.length, 2000);
    assert.match(
      r.stderr.trim(),
      /^nqueens-islands: --out .*r\.json: cannot be written \(no space left on the device\); the result is on stdout only$/,
    );
    assert.equal(readFileSync(out, 'utf8'), 'earlier\n');
    assert.deepEqual(readdirSync(full).sort(), ['filler', 'r.json'], 'no temporary file left');
  });

  it('report --html on a full disk: the summary on stdout, one line, exit 4', async () => {
    const r = await cliInProcess(['report', study, '--html', join(full, 'r.html')]);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stdout, /migration\.interval=1/);
    assert.match(r.stderr.trim(), /--html .*r\.html: cannot be written \(no space left on the device\); the summary is on stdout only$/);
    assert.equal(existsSync(join(full, 'r.html')), false);
  });

  it('experiment --out on a full disk: refused before any run, no folder left', async () => {
    const r = await cliInProcess(['experiment', studyFile, '--out', join(full, 'study')]);
    assert.match(oneLine(r, 'full'), /^--out .*study: cannot write its lock file \.nqueens-islands\.lock \(no space left on the device\)/);
    assert.equal(existsSync(join(full, 'study')), false);
  });

  const ro = (name: string) => join(readOnly, name);
  table('read-only: every output is refused before the work starts', [
    [['solve', '-n', '8', '--out', ro('r.json')], /^--out .*r\.json: cannot be written \(read-only file system\)$/],
    [['solve', '-n', '8', '--checkpoint', ro('c.ckpt')], /^--checkpoint .*c\.ckpt: cannot be written \(read-only file system\)$/],
    [['report', study, '--html', ro('r.html')], /^--html .*r\.html: cannot be written \(read-only file system\)$/],
    [['report', study, '--csv', ro('r.csv')], /^--csv .*r\.csv: cannot be written \(read-only file system\)$/],
    [['experiment', studyFile, '--out', ro('study')], /^--out .*study: cannot create the folder \(read-only file system\)/],
    [
      ['experiment', studyFile, '--out', readOnly],
      /^--out .*ro: cannot write its lock file \.nqueens-islands\.lock \(read-only file system\)/,
    ],
  ]);
});

// ---------------------------------------------------------------------------------------
// Class 6: checkpoints are checked whole on load; temporary files of killed writes are cleaned.

describe('class 6: a damaged checkpoint is refused naming what is wrong', () => {
  const ckpt = join(tmp, 'run.ckpt');
  const RUN = [
    'solve',
    '-n',
    '48',
    '--seed',
    '3',
    '--population',
    '200',
    '--islands',
    '2',
    '--migration',
    'sync',
    '--interval',
    '5',
    '--migrants',
    '2',
  ];
  const variants: [string, (c: CheckpointFile) => void, RegExp][] = [
    [
      'duplicate gene',
      (c) => (c.islands[1].state.population.genes[3] = c.islands[1].state.population.genes[4]),
      /island 1: population: chromosome 0 is not a permutation of 0\.\.47/,
    ],
    ['gene out of range', (c) => (c.islands[0].state.bad.genes[5] = 48), /island 0: bad repository: chromosome 0 is not a permutation/],
    [
      'wrong fitness',
      (c) => (c.islands[1].state.population.fitness[2] += 1),
      /island 1: population: chromosome 2 has fitness \d+, the file says \d+/,
    ],
    [
      'ranking out of range',
      (c) => (c.islands[0].state.population.order[0] = 999),
      /island 0: population: ranking entry 0 \(999\) is not a slot 0\.\.199 listed once/,
    ],
    [
      'ranking repeated',
      (c) => (c.islands[0].state.population.order[1] = c.islands[0].state.population.order[0]),
      /island 0: population: ranking entry 1 .* listed once/,
    ],
    [
      'ranking not by fitness',
      (c) => c.islands[0].state.population.order.reverse(),
      /island 0: population: the ranking is not by fitness \(ties by slot\) at rank \d+/,
    ],
    ['all-zero random state', (c) => c.islands[1].state.rng.fill(0), /island 1: the random-number state is all zero/],
    ['short random state', (c) => (c.islands[1].state.rng = new Int32Array(2)), /island 1: the random-number state is not 4 32-bit words/],
    ['negative iterations', (c) => (c.islands[0].state.iterations = -5), /island 0: iterations -5 is not a count/],
    ['fractional evaluations', (c) => (c.islands[0].state.evaluations = 1.5), /island 0: evaluations 1\.5 is not a count/],
    ['negative migrants', (c) => (c.islands[0].migrantsSent = -1), /island 0: migrantsSent -1 is not a count/],
    ['epoch of another barrier', (c) => (c.islands[1].epoch += 1), /island 1: epoch \d+, expected \d+/],
    ['islands out of order', (c) => c.islands.reverse(), /island snapshot 0 is missing or out of order/],
    ['negative seconds', (c) => (c.seconds = -1), /seconds -1/],
  ];
  let results: CliRun[] = [];
  before(async () => {
    const first = await cliInProcess([...RUN, '--checkpoint', ckpt, '--checkpoint-every', '0.02', '--max-iterations', '1000']);
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /checkpoint written to/);
    results = [];
    for (const [name, change] of variants) {
      const c = checkpointContents(readFileSync(ckpt)) as CheckpointFile;
      change(c);
      const path = join(tmp, `${name.replace(/ /g, '-')}.ckpt`);
      writeFileSync(path, encodeCheckpoint(c));
      results.push(await cliInProcess(['solve', '--resume', path, '--max-iterations', '1001']));
    }
  });
  variants.forEach(([name, , says], i) => {
    it(name, () => {
      const line = oneLine(results[i], name);
      assert.match(line, /^--resume .*\.ckpt: damaged checkpoint \(/);
      assert.match(line, says);
    });
  });

  it('the untouched checkpoint resumes', async () => {
    const r = await cliInProcess(['solve', '--resume', ckpt, '--max-iterations', '1001', '--quiet']);
    assert.equal(r.code, 1, r.stderr);
  });

  it("a killed writer's temporary file is removed when the checkpoint is next used; a live writer's stays", () => {
    const dead = join(tmp, `.run.ckpt.${2 ** 22 + 12345}.0123456789abcdef.tmp`);
    const live = join(tmp, `.run.ckpt.${process.pid}.0123456789abcdef.tmp`);
    writeFileSync(dead, 'half');
    writeFileSync(live, 'busy');
    const r = cli(['solve', '--resume', ckpt, '--max-iterations', '1001', '--quiet']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(existsSync(dead), false);
    assert.equal(existsSync(live), true);
    rmSync(live);
  });
});

// ---------------------------------------------------------------------------------------
// Class 7: the right words for what happened.

describe('class 7: results say what happened', () => {
  it('every island failed under continue: ended all-islands-failed, exit 3, the best any island reached kept; also of an island that exits without a last word', () => {
    const json = join(tmp, 'failed.json');
    const txt = join(tmp, 'failed.txt');
    const env = { NQUEENS_ISLANDS_TEST_FAULT: '0:2:throw' };
    const a = cli(['solve', '-n', '30', '--islands', '1', '--json', '--out', json], { env });
    assert.equal(a.code, 3, a.stderr);
    const record = JSON.parse(a.stdout);
    assert.equal(record.ended, 'all-islands-failed');
    assert.equal(JSON.parse(readFileSync(json, 'utf8')).ended, 'all-islands-failed');
    assert.match(a.stderr, /island 0 failed at iteration 2: .*; every island has failed/);
    // A throwing island sends its best before the failure propagates: the run keeps it.
    assert.deepEqual(
      [...record.best].sort((x: number, y: number) => x - y),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    assert.ok(record.fitness > 0, String(record.fitness));
    assert.equal(record.islands[0].bestFitness, record.fitness);
    const b = cli(['solve', '-n', '30', '--islands', '1', '--out', txt, '--quiet'], { env });
    assert.equal(b.code, 3, b.stderr);
    assert.match(b.stdout, /^not solved N=30 \(all-islands-failed\)/);
    assert.match(b.stdout, /best fitness \d+/);
    assert.equal(readFileSync(txt, 'utf8').trim().split('\n').length, 30);
    // An island that exits has no last word, but it sent its best with its progress: the run keeps that.
    const silent = join(tmp, 'silent.json');
    const c = cli(['solve', '-n', '30', '--islands', '1', '--out', silent, '--quiet'], { env: { NQUEENS_ISLANDS_TEST_FAULT: '0:2:exit' } });
    assert.equal(c.code, 3, c.stderr);
    const kept = JSON.parse(readFileSync(silent, 'utf8'));
    assert.match(
      c.stdout,
      new RegExp(`^not solved N=30 \\(all-islands-failed\\): best fitness ${kept.fitness} \\(${kept.best.join(', ')}\\)`),
    );
    assert.equal(referenceFitness(kept.best), kept.fitness);
    assert.equal(kept.islands[0].bestFitness, kept.fitness);
  });

  it("verify --file takes the tool's own unsolved result file and checks its best", async () => {
    const out = join(tmp, 'unsolved.json');
    const solved = await cliInProcess([
      'solve',
      '-n',
      '40',
      '--islands',
      '1',
      '--seed',
      '1',
      '--max-iterations',
      '1',
      '--out',
      out,
      '--quiet',
    ]);
    assert.equal(solved.code, 1, solved.stderr);
    const record = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(record.solution, null);
    const r = await cliInProcess(['verify', '--file', out, '--json']);
    assert.equal(r.code, 1, r.stderr);
    const [report] = JSON.parse(r.stdout);
    assert.deepEqual(report, { n: 40, permutation: true, fitness: record.fitness, solution: false });
  });

  it('verify -- 2 4 1 3 checks the tuple after --', async () => {
    const r = await cliInProcess(['verify', '--', '2', '4', '1', '3']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\(2, 4, 1, 3\) {2}N=4 {2}permutation: yes {2}fitness: 0 {2}solution: yes$/m);
  });
});

// ---------------------------------------------------------------------------------------
// Class 8: a resumed study keeps the options it started with.

it('class 8: experiment --resume without --events keeps writing the event logs the study started with', async () => {
  const out = join(tmp, 'events-study');
  const made = await cliInProcess(['experiment', studyFile, '--out', out, '--events']);
  assert.equal(made.code, 0, made.stderr);
  // As a study stopped before its last run leaves it: one line and one log fewer.
  const lines = readFileSync(join(out, 'runs.jsonl'), 'utf8').trimEnd().split('\n');
  const last = JSON.parse(lines.pop()!) as { cell: string; seed: number };
  writeFileSync(join(out, 'runs.jsonl'), `${lines.join('\n')}\n`);
  const log = join(out, eventLogPath(last.cell, last.seed));
  rmSync(log);
  const r = await cliInProcess(['experiment', studyFile, '--out', out, '--resume']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /4 runs \(1 new\)/);
  assert.ok(existsSync(log), 'the resumed run has its event log');
});
