/**
 * A study changed without copying its file (`experiment FILE --set KEY=VALUE --repeats K`) and
 * bundled into one self-contained file (`--bundle OUT`): each gives the same records as the
 * study edited by hand; a copied study whose relative base.file is gone says which key and
 * which folder; bad edits are one line.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { bundleStudy } from '../src/index.ts';
import { cliInProcess, isOneLineError } from './cli-helpers.ts';
import { repeatablePart } from './helpers.ts';

let dir: string;
let study: string;
const BASE = 'n: 8\nislands: 2\nga: { populationSize: 30 }\nlimits: { maxIterations: 150 }\n';
const STUDY =
  'name: edits\nbase:\n  file: ../base.yaml\n  overrides: { migration: { interval: 5 } }\nsweep:\n  n: [8, 9, 10]\nrepeats: 4\nseed: 3\n';
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'nqi-edits-'));
  writeFileSync(path.join(dir, 'base.yaml'), BASE);
  mkdirSync(path.join(dir, 'studies'));
  study = path.join(dir, 'studies', 'edits.yaml');
  writeFileSync(study, STUDY);
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The study's records without timings and placement, in file order. */
function records(out: string): unknown[] {
  return readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => repeatablePart(JSON.parse(line)));
}

async function run(args: string[]): Promise<unknown[]> {
  const out = path.join(dir, `out-${Math.random().toString(36).slice(2)}`);
  const r = await cliInProcess(['experiment', ...args, '--out', out, '-q']);
  assert.equal(r.code, 0, r.stderr);
  return records(out);
}

describe('experiment --set and --repeats', () => {
  it('give the same records as the file edited by hand', async () => {
    const edited = path.join(dir, 'studies', 'edited.yaml');
    writeFileSync(
      edited,
      STUDY.replace('n: [8, 9, 10]', 'n: [8, 10]').replace('repeats: 4', 'repeats: 2').replace('interval: 5', 'interval: 3'),
    );
    const byHand = await run([edited]);
    assert.equal(byHand.length, 4);
    const bySet = await run([study, '--set', 'sweep.n=[8, 10]', '--set', 'base.overrides.migration.interval=3', '--repeats', '2']);
    assert.deepEqual(bySet, byHand);
    // The library takes the same edits.
    const { runExperiment } = await import('../src/index.ts');
    const out = path.join(dir, 'library');
    await runExperiment(study, { out, edits: { set: ['sweep.n=[8, 10]', 'base.overrides.migration.interval=3'], repeats: 2 } });
    assert.deepEqual(records(out), byHand);
  });

  it('--repeats K of a study with a seed list takes its first K seeds', async () => {
    const listed = path.join(dir, 'studies', 'listed.yaml');
    writeFileSync(listed, STUDY.replace('repeats: 4\nseed: 3', 'seeds: [11, 5, 7]'));
    const first = path.join(dir, 'studies', 'first.yaml');
    writeFileSync(first, STUDY.replace('repeats: 4\nseed: 3', 'seeds: [11, 5]'));
    assert.deepEqual(await run([listed, '--repeats', '2']), await run([first]));
  });

  it('an edited study is another study: resuming it needs the same edits', async () => {
    const out = path.join(dir, 'resume');
    assert.equal((await cliInProcess(['experiment', study, '--repeats', '1', '--out', out, '-q'])).code, 0);
    const other = await cliInProcess(['experiment', study, '--repeats', '2', '--out', out, '--resume', '-q']);
    assert.ok(isOneLineError(other), other.stderr);
    const same = await cliInProcess(['experiment', study, '--repeats', '1', '--out', out, '--resume', '-q']);
    assert.equal(same.code, 0, same.stderr);
  });

  for (const [args, message] of [
    [['--set', 'repeats'], /--set repeats: expected KEY=VALUE/],
    [['--set', 'runs=3'], /--set runs=3: runs is not a key of an experiment file; expected one of name, /],
    [['--set', 'sweep.n=[8'], /--set sweep\.n=\[8: the value is not YAML/],
    [['--repeats', 'two'], /--repeats: expected an integer from 1 to 10000, got "two"/],
    [['--repeats', '0'], /--repeats: expected an integer from 1 to 10000, got 0/],
    [['--set', 'sweep.n=[]'], /sweep\.n: expected a non-empty list of values/],
  ] as const) {
    it(`${args.join(' ')}: one line, exit 2`, async () => {
      const r = await cliInProcess(['experiment', study, ...args, '--out', path.join(dir, 'never')]);
      assert.ok(isOneLineError(r), r.stderr);
      assert.match(r.stderr, message);
    });
  }
});

describe('a copied study and --bundle', () => {
  it('a copy whose relative base.file is missing names the key and the folder it was looked for in', async () => {
    const copy = path.join(dir, 'copy.yaml');
    writeFileSync(copy, STUDY);
    const r = await cliInProcess(['experiment', copy, '--out', path.join(dir, 'never')]);
    assert.ok(isOneLineError(r), r.stderr);
    assert.match(
      r.stderr,
      /copy\.yaml: base\.file: \.\.\/base\.yaml: no such file in .* \(a relative base\.file is found from the experiment file's folder, .*\); .* --bundle OUT$/m,
    );
  });

  it('--bundle writes one file, base inlined, that gives the same records from a folder holding nothing else', async () => {
    const clean = path.join(dir, 'configmap');
    mkdirSync(clean);
    const bundle = path.join(clean, 'study.yaml');
    const r = await cliInProcess(['experiment', study, '--repeats', '2', '--bundle', bundle]);
    assert.equal(r.code, 0, r.stderr);
    const parsed = YAML.parse(readFileSync(bundle, 'utf8')) as { name: string; base: { file?: string; overrides: { n: number } } };
    assert.equal(parsed.name, 'edits', 'the name is kept: results/<name> stays the default --out');
    assert.equal(parsed.base.file, undefined);
    assert.equal(parsed.base.overrides.n, 8);
    assert.match(readFileSync(bundle, 'utf8'), /^# .*edits\.yaml --repeats 2, its base run config inlined/);
    assert.equal(bundleStudy(study, { repeats: 2 }), readFileSync(bundle, 'utf8'));
    assert.deepEqual(await run([bundle]), await run([study, '--repeats', '2']));
  });

  it('--bundle runs nothing: refused with --out, --shard and --resume', async () => {
    for (const flag of [['--out', path.join(dir, 'x')], ['--shard', '1/2'], ['--resume']]) {
      const r = await cliInProcess(['experiment', study, '--bundle', path.join(dir, 'b.yaml'), ...flag]);
      assert.ok(isOneLineError(r), r.stderr);
      assert.match(r.stderr, /--bundle: writes the study to a file and runs nothing; not with --/);
    }
  });
});
