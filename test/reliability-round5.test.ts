/**
 * Issue 47's local classes (the fifth hostile round), through the real CLI and the library:
 * a result never cut or misreported under a signal, no output written onto a study's records,
 * `--resume` reading records as `report` does, study files that cannot block, output paths
 * checked before any work, input refused that was taken silently, and messages that name the
 * flag a value came from.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
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
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, cliAsync, cliInProcess, ROOT } from './cli-helpers.ts';
import { COMPILED } from './paths.ts';

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

describe('report --figures and --ioh onto a link to an empty folder', () => {
  it('write through the link into the folder it names (was a failure after the work)', async () => {
    const study = join(tmp, 'for-links');
    const file = join(tmp, 'links.yaml');
    writeFileSync(file, 'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 50 } } }\nrepeats: 1\nseed: 1\n');
    assert.equal((await cliInProcess(['experiment', file, '--out', study, '--quiet'])).code, 0);
    for (const flag of ['--figures', '--ioh']) {
      const folder = join(tmp, `empty${flag}`);
      mkdirSync(folder);
      symlinkSync(folder, `${folder}-link`);
      const r = await cliInProcess(['report', study, flag, `${folder}-link`]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(readdirSync(folder).length > 0, `${flag}: files in the linked folder`);
      assert.ok(lstatSync(`${folder}-link`).isSymbolicLink(), 'the link stays');
    }
  });
});

describe('--resume reads records as report does: a bad one is set aside and its run redone, said once', () => {
  const file = join(tmp, 'resume.yaml');
  before(() => writeFileSync(file, 'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 500 } } }\nrepeats: 3\nseed: 1\n'));
  // [what is wrong, how one good record is spoilt]
  const spoilers: [string, (r: Record<string, unknown>) => Record<string, unknown>][] = [
    ['a foreign seed', (r) => ({ ...r, seed: 999 })],
    ['a foreign cell', (r) => ({ ...r, cell: 'elsewhere' })],
    ['an invalid "solved"', (r) => ({ ...r, solved: true, fitness: 0, solution: [1, 1, 1, 1, 1, 1, 1, 1] })],
    ["another cell's values", (r) => ({ ...r, values: { n: 9 } })],
  ];
  for (const [shard, runsName] of [
    [null, 'runs.jsonl'],
    ['1/1', 'runs.shard-1-of-1.jsonl'],
  ] as const) {
    it(`${shard === null ? 'one process' : `--shard ${shard}`}: every kind at once`, async () => {
      const out = join(tmp, `resume-${shard === null ? 'one' : 'shard'}`);
      const more = shard === null ? [] : ['--shard', shard];
      assert.equal((await cliInProcess(['experiment', file, '--out', out, '--quiet', ...more])).code, 0);
      const runsFile = join(out, runsName);
      const lines = readFileSync(runsFile, 'utf8').trim().split('\n');
      const spoilt = spoilers.map(([, spoil], i) => JSON.stringify(spoil(JSON.parse(lines[i % lines.length]) as Record<string, unknown>)));
      writeFileSync(runsFile, [...lines, ...spoilt].map((l) => `${l}\n`).join(''));
      const refused = await cliInProcess(['report', out]);
      assert.equal(refused.code, 2, 'report refuses the folder');
      const r = await cliInProcess(['experiment', file, '--out', out, '--quiet', ...(shard === null ? ['--resume'] : more)]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr.match(/do not fit the study/g)?.length, 1, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`4 records that do not fit the study moved to .*${runsName.replace('.jsonl', '.set-aside.jsonl')}`),
      );
      assert.equal(readFileSync(join(out, runsName.replace('.jsonl', '.set-aside.jsonl')), 'utf8'), spoilt.map((l) => `${l}\n`).join(''));
      assert.equal(readFileSync(runsFile, 'utf8'), lines.map((l) => `${l}\n`).join(''), 'the good records stay as they were');
      const report = await cliInProcess(['report', out]);
      assert.equal(report.code, 0, report.stderr);
      // Nothing left to set aside: a second resume says nothing of it.
      const again = await cliInProcess(['experiment', file, '--out', out, '--quiet', ...(shard === null ? ['--resume'] : more)]);
      assert.doesNotMatch(again.stderr, /do not fit/);
    });
  }
  it('a bad "solved" record is redone: the study ends with the run\'s true record', async () => {
    const out = join(tmp, 'resume-redo');
    assert.equal((await cliInProcess(['experiment', file, '--out', out, '--quiet'])).code, 0);
    const runsFile = join(out, 'runs.jsonl');
    const lines = readFileSync(runsFile, 'utf8').trim().split('\n');
    const bad = { ...(JSON.parse(lines[0]) as Record<string, unknown>), solved: true, fitness: 0, solution: [1, 2, 3, 4, 5, 6, 7, 8] };
    writeFileSync(runsFile, [JSON.stringify(bad), ...lines.slice(1)].map((l) => `${l}\n`).join(''));
    const r = await cliInProcess(['experiment', file, '--out', out, '--quiet', '--resume']);
    assert.equal(r.code, 0, r.stderr);
    const redone = readFileSync(runsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seed: number; solution: unknown });
    assert.equal(redone.length, lines.length);
    assert.deepEqual(redone.at(-1)!.solution, (JSON.parse(lines[0]) as { solution: unknown }).solution, 'the run again, as before');
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

describe('input accepted silently before: reserved and repeated keys, overridden file values', () => {
  const cases: [string, () => string[], RegExp][] = [
    [
      '--island-groups __proto__',
      () => ['solve', '-n', '8', '--island-groups', '{"__proto__":{"islands":1}}'],
      /^--island-groups: key "__proto__" is not allowed/,
    ],
    [
      '--island-groups constructor',
      () => ['solve', '-n', '8', '--island-groups', '{"constructor":{"islands":1}}'],
      /^--island-groups: key "constructor" is not allowed/,
    ],
    [
      '--island-groups a group twice',
      () => ['solve', '-n', '8', '--island-groups', '{"a":{"islands":1},"a":{"islands":2}}'],
      /^--island-groups: key "a" appears twice/,
    ],
    [
      '--island-groups a key twice inside a group',
      () => ['solve', '-n', '8', '--island-groups', '{"a":{"islands":1,"islands":2}}'],
      /^--island-groups: key "islands" appears twice/,
    ],
    [
      'a YAML group named __proto__',
      () => ['solve', '--config', file('g.yaml', 'n: 8\nislandGroups:\n  __proto__: { islands: 1 }\n')],
      /g\.yaml:3:3: key "__proto__" is not allowed/,
    ],
    [
      'a JSON group named constructor',
      () => ['solve', '--config', file('g.json', '{"n": 8, "islandGroups": {"constructor": {"islands": 1}}}')],
      /g\.json: invalid JSON: key "constructor" is not allowed/,
    ],
    [
      'a sweep key __proto__',
      () => ['experiment', file('s.yaml', 'base: { overrides: { n: 8 } }\nsweep:\n  __proto__: [1, 2]\n'), '--out', join(tmp, 'never-1')],
      /s\.yaml:3:3: key "__proto__" is not allowed/,
    ],
    [
      'a JSON sweep key __proto__',
      () => [
        'experiment',
        file('s.json', '{"base": {"overrides": {"n": 8}}, "sweep": {"__proto__": [1, 2]}}'),
        '--out',
        join(tmp, 'never-2'),
      ],
      /s\.json: invalid JSON: key "__proto__" is not allowed/,
    ],
    [
      'a file seed of 1.5 under --seed 1',
      () => ['solve', '--config', file('seed.yaml', 'n: 8\nseed: 1.5\n'), '--seed', '1'],
      /seed\.yaml: seed: expected an integer/,
    ],
    [
      'a file interval of -3 under --interval 2',
      () => ['solve', '--config', file('int.yaml', 'n: 8\nmigration: { interval: -3 }\n'), '--interval', '2'],
      /int\.yaml: migration\.interval: /,
    ],
    [
      "a file's option of the kind a flag replaces",
      () => ['solve', '--config', file('kind.yaml', 'n: 8\ntopology: { kind: random, probability: 7 }\n'), '--topology', 'ring'],
      /kind\.yaml: topology/,
    ],
    [
      'a group without islands names the flag',
      () => ['solve', '-n', '8', '--island-groups', '{"a":{}}'],
      /^--island-groups a\.islands: missing/,
    ],
    [
      'a repeated island names the flag',
      () => ['solve', '-n', '8', '--island-groups', '{"a":{"islands":[0,0]}}'],
      /^--island-groups a\.islands\.1: island 0 is already/,
    ],
  ];
  function file(name: string, text: string): string {
    const at = join(tmp, name);
    writeFileSync(at, text);
    return at;
  }
  for (const [name, args, says] of cases)
    it(name, async () => {
      const r = await cliInProcess(args());
      assert.equal(r.code, 2, r.stderr);
      const line = r.stderr.trim().replace(/^nqueens-islands: /, '');
      assert.match(line, says);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.doesNotMatch(r.stderr, /default\.yaml/);
    });
  it("a group's population past the machine's memory names the group's key, not -n", async () => {
    const groups = '{"a":{"islands":1,"ga":{"populationSize":400000}}}';
    const r = await cliInProcess(['solve', '-n', '50000', '--islands', '2', '--island-groups', groups]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^nqueens-islands: --island-groups a\.ga\.populationSize: 50000 needs about/);
  });
  it('the library: a group named constructor or prototype is refused', async () => {
    const { resolveRunConfig } = await import('../src/config/resolve.ts');
    for (const name of ['constructor', 'prototype'])
      assert.throws(() => resolveRunConfig({ n: 8, islands: 2, islandGroups: { [name]: { islands: 1 } } }, 'lib'), /is not allowed/);
  });
});

describe("a study's build on resume", () => {
  const file = join(tmp, 'build.yaml');
  before(() => writeFileSync(file, 'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 50 } } }\nrepeats: 1\nseed: 1\n'));
  async function studyWith(name: string, edit: (m: Record<string, unknown>) => void): Promise<string> {
    const out = join(tmp, name);
    assert.equal((await cliInProcess(['experiment', file, '--out', out, '--quiet'])).code, 0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    edit(manifest);
    writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest));
    return out;
  }
  it('a manifest with `commit: null` is a damaged folder: one line, exit 2 (was an internal error, exit 3)', async () => {
    const out = await studyWith('commit-null', (m) => ((m.provenance as Record<string, unknown>).commit = null));
    const r = await cliInProcess(['experiment', file, '--out', out, '--resume']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /manifest\.json: provenance\.commit: expected string, received null; the folder is damaged/);
  });
  it('a manifest without provenance is refused for --resume unless --mixed-builds', async () => {
    const out = await studyWith('no-provenance', (m) => delete m.provenance);
    const r = await cliInProcess(['experiment', file, '--out', out, '--resume']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /the manifest names no build \(no provenance\).*add --mixed-builds/);
    const mixed = await cliInProcess(['experiment', file, '--out', out, '--resume', '--mixed-builds']);
    assert.equal(mixed.code, 0, mixed.stderr);
  });
  it('two builds without git are told apart by their bundles; the same build, or two runs from source, are one', async () => {
    const { buildDifference } = await import('../src/experiment/manifest.ts');
    const { machineProvenance } = await import('../src/provenance.ts');
    const base = { ...machineProvenance(), commit: 'unknown', dirty: null };
    const manifest = (p: object) => ({ provenance: p }) as unknown as Parameters<typeof buildDifference>[0];
    const a = { ...base, bundleSha256: 'a'.repeat(64) };
    const b = { ...base, bundleSha256: 'b'.repeat(64) };
    assert.match(buildDifference(manifest(a), b, null)!, /a build without git \(bundle sha256 aaaaaaaaaaaa\.\.\.\), this is another/);
    assert.match(buildDifference(manifest(a), base, null)!, /no bundle hash/);
    assert.equal(buildDifference(manifest(a), a, null), null);
    assert.equal(buildDifference(manifest(base), base, null), null);
  });
});

describe('a number past 2^53 is too large, said so', () => {
  for (const [args, says] of [
    [['solve', '-n', '1e21'], /^-n: expected an integer >= 1, got 1e\+21; too large \(at most 9007199254740991\)$/],
    [['solve', '-n', '8', '--interval', '1e300'], /^--interval: .*; too large/],
    [['solve', '-n', '8', '--max-iterations', '1e20'], /^--max-iterations: .*; too large/],
  ] as const)
    it(args.join(' '), async () => {
      const r = await cliInProcess(args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr.trim().replace(/^nqueens-islands: /, ''), says);
    });
});

describe("library options get the CLI's checks; exported registries are frozen", () => {
  it('a misspelt key inside an option is refused with the nearest name', async () => {
    const { solve, runExperiment } = await import('../src/index.ts');
    await assert.rejects(
      solve({ n: 8, islands: 1 }, { checkpoint: { file: join(tmp, 'c.ckpt'), every: 1 } as never }),
      /startRun options: checkpoint: unknown option "every"; expected one of file, everySeconds/,
    );
    await assert.rejects(
      solve({ n: 8, islands: 1 }, { checkpoint: { file: join(tmp, 'c.ckpt'), everySeconds: '1' } as never }),
      /checkpoint\.everySeconds: expected a number of seconds > 0/,
    );
    await assert.rejects(
      runExperiment(
        { base: { overrides: { n: 8 } }, seeds: [1] },
        {
          out: join(tmp, 'never-3'),
          hooks: { onRunEnds: () => {} } as never,
        },
      ),
      /hooks: unknown option "onRunEnds"; did you mean "onRunEnd"\?/,
    );
  });
  it('studyReport: a baseline the study does not have is refused as --baseline is', async () => {
    const { studyReport } = await import('../src/index.ts');
    const file = join(tmp, 'swept.yaml');
    writeFileSync(
      file,
      'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 50 } } }\nsweep:\n  migration.interval: [1, 2]\nrepeats: 1\nseed: 1\n',
    );
    const out = join(tmp, 'swept');
    assert.equal((await cliInProcess(['experiment', file, '--out', out, '--quiet'])).code, 0);
    assert.throws(
      () => studyReport(out, { baseline: { foo: 1 } }),
      /studyReport options: baseline: foo is not a sweep key; expected one of migration\.interval/,
    );
    assert.throws(
      () => studyReport(out, { baseline: { 'migration.interval': 7 } }),
      /baseline: migration\.interval: expected one of the swept values 1, 2, got 7/,
    );
    assert.ok(studyReport(out, { baseline: { 'migration.interval': 2 } }).summary);
  });
  it('topologies, its kinds and ERT_TARGETS cannot be changed', async () => {
    const { topologies, ERT_TARGETS } = await import('../src/index.ts');
    assert.throws(() => (topologies.kinds as string[]).push('mine'), TypeError);
    assert.throws(() => ((topologies as { kinds: unknown }).kinds = []), TypeError);
    assert.throws(() => ((ERT_TARGETS as unknown as number[])[0] = 99), TypeError);
    assert.ok(Object.isFrozen(topologies) && Object.isFrozen(topologies.kinds) && Object.isFrozen(ERT_TARGETS));
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
