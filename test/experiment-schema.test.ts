// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { rmSync } from 'node:fs';
import { ConfigError } from '../src/config/errors.ts';
import { loadExperiment } from '../src/experiment/load.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-exp-schema-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { availableParallelism: 2, totalMemory: 8e9 };
writeFileSync(path.join(dir, 'base.yaml'), 'n: 32\nislands: 2\n');

function load(name: string, text: string) {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return loadExperiment(file, env);
}

/** Asserts a one-line ConfigError whose message matches. */
function fails(name: string, text: string, pattern: RegExp): void {
  assert.throws(
    () => load(name, text),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
      assert.ok(!error.message.includes('\n'), `one line: ${error.message}`);
      assert.match(error.message, pattern);
      return true;
    },
  );
}

const OK = 'base: base.yaml\nsweep:\n  topology.kind: [ring, none]\nbaseline:\n  topology.kind: none\nrepeats: 3\nseed: 5\n';

describe('experiment file: valid', () => {
  it('loads, resolves every cell and keeps the text and its sha256', () => {
    const e = load('ok.yaml', OK);
    assert.equal(e.name, 'ok');
    assert.deepEqual(e.seeds, [5, 6, 7]);
    assert.deepEqual(
      e.cells.map((c) => c.id),
      ['topology.kind=ring', 'topology.kind=none'],
    );
    assert.equal(e.cells[1].config.topology.kind, 'none');
    assert.equal(e.cells[0].config.n, 32);
    assert.equal(e.cells[0].baseline, 'topology.kind=none');
    assert.equal(e.sha256.length, 64);
    assert.equal(e.text, OK);
  });

  it('takes inline overrides over the base file, and the sweep over both', () => {
    const e = load(
      'inline.yaml',
      'base:\n  file: base.yaml\n  overrides: { n: 40, migration: { interval: 7 } }\nsweep:\n  migration.interval: [1, 3]\n',
    );
    assert.deepEqual(
      e.cells.map((c) => [c.config.n, c.config.migration.interval]),
      [
        [40, 1],
        [40, 3],
      ],
    );
    assert.deepEqual(e.seeds, [1]);
  });

  it('drops the base topology options when a cell changes the kind', () => {
    writeFileSync(path.join(dir, 'random.yaml'), 'n: 32\nislands: 4\ntopology: { kind: random, probability: 0.3 }\n');
    const e = load('kinds.yaml', 'base: random.yaml\nsweep:\n  topology.kind: [random, ring]\n');
    assert.deepEqual(
      e.cells.map((c) => c.config.topology),
      [{ kind: 'random', probability: 0.3 }, { kind: 'ring' }],
    );
  });

  it('drops the base paper options when a cell changes the GA mode, as --mode does', () => {
    writeFileSync(path.join(dir, 'paper.yaml'), 'n: 32\nislands: 1\nga: { mode: paper, pairsPerIteration: 1 }\n');
    const e = load('modes.yaml', 'base: paper.yaml\nsweep:\n  ga.mode: [paper, hybrid]\n');
    assert.deepEqual(
      e.cells.map((c) => c.config.ga.mode),
      ['paper', 'hybrid'],
    );
  });

  it('drops the base topology options when the inline overrides change the kind', () => {
    const e = load('inline-kind.yaml', 'base:\n  file: random.yaml\n  overrides: { topology: { kind: ring } }\n');
    assert.deepEqual(
      e.cells.map((c) => c.config.topology),
      [{ kind: 'ring' }],
    );
  });

  it('sets keys inside a section the base turned off with null', () => {
    writeFileSync(path.join(dir, 'hybrid.yaml'), 'n: 32\nislands: 1\nga: { mode: hybrid, localSearch: null }\n');
    const e = load('ls.yaml', 'base: hybrid.yaml\nsweep:\n  ga.localSearch: [null, { applyTo: both, maxSteps: 10, triesPerQueen: 4 }]\n');
    assert.deepEqual(
      e.cells.map((c) => (c.config.ga.mode === 'hybrid' ? c.config.ga.operators.localSearch : 'paper')),
      [null, { applyTo: 'both', maxSteps: 10, triesPerQueen: 4 }],
    );
  });
});

describe('experiment file: errors name the file and the key path', () => {
  it('unknown top-level key', () =>
    fails('a.yaml', `${OK}swep: {}\n`, /a\.yaml: swep: unknown key \(expected one of name, description, base/));
  it('unknown key under base', () =>
    fails('b.yaml', 'base: { file: base.yaml, overide: {} }\n', /b\.yaml: base\.overide: unknown key \(expected one of file, overrides\)/));
  it('wrong type of repeats', () =>
    fails('c.yaml', 'base: base.yaml\nrepeats: ten\n', /c\.yaml: repeats: expected an integer from 1 to 10000, got "ten"/));
  it('a sweep value that is not a list', () =>
    fails(
      'd.yaml',
      'base: base.yaml\nsweep:\n  migration.interval: 5\n',
      /d\.yaml: sweep\.migration\.interval: expected a non-empty list of values, got 5/,
    ));
  it('an empty sweep list', () =>
    fails(
      'e.yaml',
      'base: base.yaml\nsweep:\n  migration.interval: []\n',
      /e\.yaml: sweep\.migration\.interval: expected a non-empty list/,
    ));
  it('a repeated sweep value', () =>
    fails(
      'f.yaml',
      'base: base.yaml\nsweep:\n  migration.interval: [1, 1]\n',
      /f\.yaml: sweep\.migration\.interval\[1\]: value 1 appears twice/,
    ));
  it('a baseline key that is not swept', () =>
    fails(
      'g.yaml',
      'base: base.yaml\nsweep:\n  topology.kind: [ring]\nbaseline:\n  islands: 2\n',
      /g\.yaml: baseline\.islands: expected a sweep key \(topology\.kind\)/,
    ));
  it('a baseline value that is not swept', () =>
    fails(
      'h.yaml',
      'base: base.yaml\nsweep:\n  topology.kind: [ring]\nbaseline:\n  topology.kind: star\n',
      /h\.yaml: baseline\.topology\.kind: expected one of the swept values "ring", got "star"/,
    ));
  it('seed and seeds together', () => fails('i.yaml', 'base: base.yaml\nseed: 1\nseeds: [1, 2]\n', /i\.yaml: seeds: give either seed/));
  it('repeats that contradict the seed list', () =>
    fails('j.yaml', 'base: base.yaml\nseeds: [1, 2]\nrepeats: 3\n', /j\.yaml: repeats: expected 2 \(the number of seeds\)/));
  it('a negative seed', () =>
    fails('k.yaml', 'base: base.yaml\nseeds: [1, -2]\n', /k\.yaml: seeds\[1\]: expected a non-negative integer seed, got -2/));
  it('sweeping the seed', () =>
    fails('l.yaml', 'base: base.yaml\nsweep:\n  seed: [1, 2]\n', /l\.yaml: sweep\.seed: the seeds of a study are set by seed\/seeds/));
  it('a base file that does not exist', () => fails('m.yaml', 'base: nope.yaml\n', /nope\.yaml: no such file/));
  it('an empty file', () => fails('n.yaml', '# nothing\n', /n\.yaml: empty file/));
  it('a file that is a list', () => fails('o.yaml', '- 1\n', /o\.yaml: expected a mapping/));
  it('a YAML syntax error with its line', () => fails('p.yaml', 'base: base.yaml\nsweep: [\n', /p\.yaml:\d+:\d+: invalid YAML/));
  it('a cell whose resolved config is invalid, before any run', () =>
    fails(
      'q.yaml',
      'base: base.yaml\nsweep:\n  migration.interval: [5, 0]\n',
      /q\.yaml: cell migration\.interval=0: migration\.interval: expected an integer >= 1, got 0/,
    ));
  it('two values that would share a cell id', () =>
    fails(
      'u.yaml',
      'base: base.yaml\nsweep:\n  migration.interval: [10, "10"]\n',
      /u\.yaml: sweep\.migration\.interval\[1\]: value 10 appears twice/,
    ));
  it('a sweep path the run config does not have', () =>
    fails(
      'r.yaml',
      'base: base.yaml\nsweep:\n  migration.intervall: [5]\n',
      /q?r\.yaml: cell migration\.intervall=5: unknown key "migration\.intervall"; did you mean "migration\.interval"\?/,
    ));
  it('overlapping sweep keys', () =>
    fails(
      's.yaml',
      'base: base.yaml\nsweep:\n  topology: [{ kind: ring }]\n  topology.kind: [none]\n',
      /s\.yaml: sweep\.topology\.kind: overlaps the sweep key topology/,
    ));
  it('a cell with an impossible board', () =>
    fails('t.yaml', 'base: base.yaml\nsweep:\n  n: [3]\n', /t\.yaml: cell n=3: n: 3 has no solution/));
});
