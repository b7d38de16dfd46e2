/**
 * Bad input is refused at once, in one line (exit 2) naming what is wrong, and nothing is
 * written: a damaged study folder, reserved or repeated keys, values overridden without a word,
 * numbers past 2^53, bad `report --baseline` values. Input files read alike whatever their line
 * ends. In-process (`runCli`) except where a process of its own is the point.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliInProcess, oneLine } from './cli-helpers.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-held-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const study = join(tmp, 'study');

/** /proc takes no new file, though access() says it may be written (root) or refuses it (others): either way, refused at once. */
const HAS_PROC = existsSync('/proc/self');

before(async () => {
  const file = join(tmp, 'study.yaml');
  writeFileSync(file, 'base: { overrides: { n: 8, islands: 1, topology: { kind: none } } }\nsweep:\n  islands: [1, 2]\nseeds: [1, 2]\n');
  assert.equal((await cliInProcess(['experiment', file, '--out', study])).code, 0);
});

/** A copy of the study with `edit` applied to its manifest or first record. */
function edited(name: string, edit: { manifest?: (m: Record<string, unknown>) => void; record?: (r: Record<string, unknown>) => void }) {
  const dir = join(tmp, name);
  cpSync(study, dir, { recursive: true });
  if (edit.manifest) {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    edit.manifest(manifest);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  }
  if (edit.record) {
    const [first, ...rest] = readFileSync(join(dir, 'runs.jsonl'), 'utf8').trimEnd().split('\n');
    const record = JSON.parse(first) as Record<string, unknown>;
    edit.record(record);
    writeFileSync(join(dir, 'runs.jsonl'), [JSON.stringify(record), ...rest].map((l) => `${l}\n`).join(''));
  }
  return dir;
}

/** Record 1 (solved) made unsolved at fitness 1 in every field but its trajectory, which still reaches 0. */
function unsolvedButTrajectory(r: Record<string, unknown>): void {
  Object.assign(r, { solved: false, fitness: 1, solution: null, foundBy: null, ended: 'max-iterations' });
  for (const island of r.islands as Record<string, unknown>[]) island.bestFitness = 1;
}

/** A small study file (fast runs); `sweep` as YAML text. */
const studyFile = (name: string, sweep: string, seeds = '[1, 2]') => studyYaml(tmp, name, `sweep:\n${sweep}\nseeds: ${seeds}`);

describe('held-out cases refused at once, in one line (exit 2), nothing written', () => {
  const deep = join(tmp, 'deep.yaml');
  writeFileSync(deep, `n: 8\nga: ${'['.repeat(3000)}${']'.repeat(3000)}\n`);
  // A secret named by mistake where a config or study file belongs.
  const token = join(tmp, 'token');
  writeFileSync(token, 'secret-token-abcdef\n');
  const cases: [string, () => string[], RegExp, boolean?][] = [
    // Class 3: a folder access() calls writable that takes no new file, for every kind of output.
    [
      'solve --out in /proc',
      () => ['solve', '-n', '8', '--seed', '1', '--quiet', '--out', '/proc/nqi-r.json'],
      /^--out \/proc\/nqi-r\.json: cannot be written \(/,
      HAS_PROC,
    ],
    [
      'solve --checkpoint in /proc',
      () => ['solve', '-n', '8', '--seed', '1', '--quiet', '--checkpoint', '/proc/nqi-cp'],
      /^--checkpoint \/proc\/nqi-cp: cannot be written/,
      HAS_PROC,
    ],
    ['report --csv in /proc', () => ['report', study, '--csv', '/proc/nqi.csv'], /^--csv \/proc\/nqi\.csv: cannot be written/, HAS_PROC],
    [
      'report --ioh in /proc',
      () => ['report', study, '--ioh', '/proc/nqi-ioh'],
      /^--ioh \/proc\/nqi-ioh: \/proc cannot be written/,
      HAS_PROC,
    ],
    // Class 3/6: a parent that is there but no folder is named as such, not as missing.
    [
      'report --ioh under a device',
      () => ['report', study, '--ioh', '/dev/null/x'],
      /^--ioh \/dev\/null\/x: \/dev\/null is a device, not a folder$/,
    ],
    [
      'report --figures under a file',
      () => ['report', study, '--figures', join(study, 'manifest.json', 'f')],
      /manifest\.json is a file, not a folder$/,
    ],
    [
      'solve --out under a file',
      () => ['solve', '-n', '8', '--out', join(study, 'runs.jsonl', 'r.json')],
      /runs\.jsonl is a file, not a folder$/,
    ],
    // Class 4: records and manifests that do not fit their study.
    [
      "a record whose values are not its cell's",
      () => ['report', edited('values', { record: (r) => (r.values = { islands: 7 }) })],
      /runs\.jsonl:1: record \(islands=1@1\) values \{"islands":7\} are not its cell's \(\{"islands":1\}\); this folder holds runs of another study/,
    ],
    // Class 4: a record that contradicts itself (experiment/record-consistency.ts); record 1 is a solved run.
    [
      'an unsolved record with fitness 0 and a valid solution',
      () => ['report', edited('unsolved-0', { record: (r) => (r.solved = false) })],
      /runs\.jsonl:1: record \(islands=1@1\) is unsolved with fitness 0, which only a solution has; this folder holds runs of another study/,
    ],
    [
      'an unsolved record whose trajectory reaches fitness 0',
      () => ['report', edited('unsolved-trajectory', { record: unsolvedButTrajectory })],
      /runs\.jsonl:1: record \(islands=1@1\) is unsolved but its trajectory reaches fitness 0;/,
    ],
    [
      'an unsolved record whose island reached fitness 0',
      () => [
        'report',
        edited('unsolved-island', {
          record: (r) => (unsolvedButTrajectory(r), ((r.islands as Record<string, unknown>[])[0].bestFitness = 0)),
        }),
      ],
      /runs\.jsonl:1: record \(islands=1@1\) is unsolved but its island 0 reached fitness 0;/,
    ],
    [
      "a trajectory past the run's evaluations",
      () => ['report', edited('trajectory-past', { record: (r) => (r.evaluations = (r.evaluations as number) - 1) })],
      /runs\.jsonl:1: record \(islands=1@1\) has a trajectory point past its \d+ evaluations \(\[\d+,0\]\);/,
    ],
    [
      'a trajectory whose fitness rises',
      () => ['report', edited('trajectory-rises', { record: (r) => (r.trajectory as number[][]).unshift([1, 2], [2, 5]) })],
      /runs\.jsonl:1: record \(islands=1@1\) has a trajectory that goes back at point 2 \(\[2,5\]\);/,
    ],
    [
      'a solved record whose trajectory ends above 0',
      () => ['report', edited('solved-trajectory', { record: (r) => (r.trajectory as number[][]).at(-1)!.splice(1, 1, 1) })],
      /runs\.jsonl:1: record \(islands=1@1\) is solved but its trajectory ends at fitness 1, expected 0;/,
    ],
    [
      'a manifest listing a seed twice ("4 of 6 runs")',
      () => ['report', edited('seeds', { manifest: (m) => (m.seeds = [1, 2, 1]) })],
      /manifest\.json: seeds: a seed is listed twice; the folder is damaged$/,
    ],
    [
      'a manifest listing a cell twice',
      () => ['report', edited('cells', { manifest: (m) => (m.cells = [...(m.cells as unknown[]), (m.cells as unknown[])[0]]) })],
      /manifest\.json: cells: a cell id is listed twice; the folder is damaged$/,
    ],
    // Class 6/8: a file that is one scalar is named as such, never quoted back (a token would be printed, and logged).
    [
      'a token file as --config',
      () => ['solve', '--config', token],
      /token: holds a single string, not a mapping of config keys; expected at least "n"$/,
    ],
    [
      'a token file as a study',
      () => ['experiment', token, '--out', join(tmp, 'never')],
      /token: expected a mapping with base, sweep, repeats, seed\(s\) and baseline, got a single string$/,
    ],
    // Class 6: YAML nested past the parser's recursion is a bad file, not an internal message.
    ['a config nested 3000 deep', () => ['solve', '--config', deep], /deep\.yaml:2:\d+: invalid YAML: nested too deeply for the parser$/],
    [
      'an experiment nested 3000 deep',
      () => ['experiment', deep, '--out', join(tmp, 'never')],
      /invalid YAML: nested too deeply for the parser$/,
    ],
    // Class 7: a flag that sets a key the mode does not have is named, not the file it was merged into.
    ['--best-island in paper mode', () => ['solve', '-n', '8', '--best-island', '1'], /^--best-island: unknown key "ga\.bestIsland"/],
    [
      '--bad-repository-size in hybrid mode',
      () => ['solve', '-n', '8', '--mode', 'hybrid', '--bad-repository-size', '3'],
      /^--bad-repository-size: unknown key "ga\.badRepositorySize"/,
    ],
  ];
  for (const [name, args, expected, runs = true] of cases) {
    it(name, { skip: !runs && 'no /proc' }, async () => {
      const r = await cliInProcess(args());
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0].replace(/^nqueens-islands: /, ''), expected);
    });
  }

  it('nothing was written: no file under /proc, no folder for the refused experiment', () => {
    assert.equal(existsSync('/proc/nqi-r.json'), false);
    assert.equal(existsSync(join(tmp, 'never')), false);
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

describe('a number past 2^53 is too large, said so', () => {
  for (const [args, says] of [
    [['solve', '-n', '1e21'], /^-n: expected an integer from 1 to 2147483648, got 1e\+21$/],
    [['solve', '-n', '8', '--interval', '1e300'], /^--interval: .*; too large/],
    [['solve', '-n', '8', '--max-iterations', '1e20'], /^--max-iterations: .*; too large/],
  ] as const)
    it(args.join(' '), async () => {
      const r = await cliInProcess(args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr.trim().replace(/^nqueens-islands: /, ''), says);
    });
});

describe('report --baseline values the study cannot take', () => {
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

describe('input files, whatever their line ends', () => {
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
});
