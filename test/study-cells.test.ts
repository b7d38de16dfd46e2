/**
 * A study's cells: values spelled differently but resolving to one config are refused as
 * duplicates, a study past the cap on cells or runs is refused before its cells are built and
 * writes nothing, and a sweep whose cells cannot differ is warned of.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadExperiment } from '../src/experiment/load.ts';
import { MAX_CELLS, MAX_RUNS } from '../src/experiment/schema.ts';
import { cliInProcess, oneLine } from './cli-helpers.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel-studies-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A study file with a small base (8 queens, 2 islands), `rest` as YAML lines (sweep, seeds, ...). */
const study = (name: string, rest: string) => studyYaml(tmp, name, rest, 2);

/** `count` distinct integers from 1, as a YAML flow list. */
function ints(count: number): string {
  return `[${Array.from({ length: count }, (_, i) => i + 1).join(', ')}]`;
}

const dir = mkdtempSync(path.join(tmpdir(), 'nq-newcomer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('values spelled differently make no duplicate cells', () => {
  // [name, sweep, the two spellings the line must name]
  const cases: [string, string, RegExp][] = [
    ['percent', 'sweep:\n  migration.migrants: [0.02, "2%"]', /migration\.migrants: 0\.02 and "2%"/],
    ['default-kind', 'sweep:\n  topology: [{ kind: ring }, {}]', /topology: \{"kind":"ring"\} and \{\}/],
    [
      'nested',
      'sweep:\n  migration: [{ migrants: 0.02 }, { migrants: "2%" }]\n  n: [8, 10]',
      /migration: \{"migrants":0\.02\} and \{"migrants":"2%"\}/,
    ],
  ];
  for (const [name, sweep, spellings] of cases) {
    it(`${name}: refused at load time, naming both cells and spellings`, async () => {
      const out = join(tmp, `out-${name}`);
      const line = oneLine(await cliInProcess(['experiment', study(name, `${sweep}\nrepeats: 1`), '--out', out]), name);
      assert.match(line, /sweep: cells .+ and .+ resolve to the same run config/);
      assert.match(line, spellings);
      assert.ok(!existsSync(out), `${name}: no result folder`);
    });
  }

  it('distinct values that resolve differently still make a study (no false alarm)', () => {
    const experiment = loadExperiment(study('distinct', 'sweep:\n  migration.migrants: [0.02, "4%"]\nrepeats: 1'));
    assert.equal(experiment.cells.length, 2);
  });
});

describe('a cap on cells and on runs, checked before the cells are built', () => {
  // [name, YAML after base, what the line must say]
  const cases: [string, string, RegExp][] = [
    [
      '100,000 cells',
      `sweep:\n  migration.interval: ${ints(100)}\n  migration.migrants: ${ints(1000)}\nrepeats: 1`,
      new RegExp(`sweep: 100000 cells \\(100 × 1000\\); expected at most ${MAX_CELLS} cells`),
    ],
    [
      'one key past the cap',
      `sweep:\n  migration.interval: ${ints(MAX_CELLS + 1)}`,
      new RegExp(`sweep: ${MAX_CELLS + 1} cells \\(${MAX_CELLS + 1}\\); expected at most ${MAX_CELLS} cells`),
    ],
    [
      'cells × seeds',
      `sweep:\n  migration.interval: ${ints(200)}\nrepeats: 10000`,
      new RegExp(`sweep: 200 cells × 10000 seeds = 2000000 runs; expected at most ${MAX_RUNS} runs`),
    ],
  ];
  for (const [name, rest, expected] of cases) {
    it(`${name}: one line naming the count, exit 2, no manifest`, async () => {
      const out = join(tmp, `out-${name.replace(/\W+/g, '-')}`);
      const line = oneLine(await cliInProcess(['experiment', study(name.replace(/\W+/g, '-'), rest), '--out', out]), name);
      assert.match(line, expected);
      assert.ok(!existsSync(out), `${name}: no result folder, no manifest`);
    });
  }

  it('a study at the cap is not refused for its size', () => {
    const experiment = loadExperiment(study('at-cap', `sweep:\n  migration.interval: ${ints(100)}\nrepeats: ${MAX_RUNS / 100}`));
    assert.equal(experiment.cells.length * experiment.seeds.length, MAX_RUNS);
  });
});

describe('sweeps whose cells cannot differ', () => {
  it('a study warns about sweeps whose cells cannot differ (topology swept on 1 island)', async () => {
    const study = path.join(dir, 'moot.yaml');
    writeFileSync(study, 'name: moot\nbase:\n  overrides:\n    n: 8\n    islands: 1\nsweep:\n  topology.kind: [ring, none]\nrepeats: 1\n');
    const r = await cliInProcess(['experiment', study, '--out', path.join(dir, 'moot')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /sweep: cells topology\.kind=ring; topology\.kind=none cannot differ \(no island sends migrants/);
    writeFileSync(study, 'name: apart\nbase:\n  overrides:\n    n: 8\n    islands: 4\nsweep:\n  topology.kind: [ring, none]\nrepeats: 1\n');
    assert.doesNotMatch((await cliInProcess(['experiment', study, '--out', path.join(dir, 'apart')])).stderr, /cannot differ/);
  });
});
