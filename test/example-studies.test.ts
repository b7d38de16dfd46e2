/**
 * The example studies in config/experiments/ are repeatable: every cell uses sync or
 * lagged migration and an iteration limit, so a study run twice gives the same records but
 * for timings. One is rerun here (its first two seeds), the rest are checked to resolve to
 * repeatable cells; a study with async cells is marked `repeatable: false` in its manifest
 * and records, and the report says what its comparisons pair.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import YAML from 'yaml';
import { isRepeatable } from '../src/archipelago/modes/registry.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { runExperiment } from '../src/index.ts';
import { cli } from './cli-helpers.ts';
import { repeatablePart } from './helpers.ts';

const DIR = path.resolve('config/experiments');
const tmp = mkdtempSync(path.join(tmpdir(), 'nq-examples-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const records = (out: string) =>
  readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('example studies', { timeout: 600_000 }, () => {
  it("every example study resolves to repeatable cells (sync or lagged) without a time limit but the paper's safety net", () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
    assert.ok(files.length >= 6, files.join());
    for (const file of files) {
      const experiment = loadExperiment(path.join(DIR, file));
      for (const cell of experiment.cells) {
        assert.ok(isRepeatable(cell.config.migration.mode), `${file}: ${cell.id} uses ${cell.config.migration.mode}`);
        if (file !== 'paper-table1.yaml') assert.equal(cell.config.limits.timeLimit, null, `${file}: ${cell.id}`);
      }
    }
  });

  it('sync-lagged.yaml run twice (seeds 1-2): the same records but for timings, manifest and records say repeatable', async () => {
    const spec = YAML.parse(readFileSync(path.join(DIR, 'sync-lagged.yaml'), 'utf8')) as { base: { file: string }; repeats: number };
    const study = { ...spec, base: { ...spec.base, file: path.join(DIR, spec.base.file) }, repeats: 2 };
    const outs = [path.join(tmp, 'a'), path.join(tmp, 'b')];
    for (const out of outs) await runExperiment(study, { out });
    const [a, b] = outs.map(records);
    assert.equal(a.length, 8);
    assert.deepEqual(repeatablePart(b), repeatablePart(a));
    assert.ok(a.every((r) => r.repeatable === true && r.solved === true));
    const manifest = JSON.parse(readFileSync(path.join(outs[0], 'manifest.json'), 'utf8')) as {
      repeatable: boolean;
      cells: { repeatable: boolean }[];
    };
    assert.equal(manifest.repeatable, true);
    assert.ok(manifest.cells.every((c) => c.repeatable));
  });

  it('a study that asks for async: repeatable false in its manifest and records, and the report says its comparisons pair initial populations only', async () => {
    const out = path.join(tmp, 'async');
    await runExperiment(
      {
        name: 'modes',
        base: { overrides: { n: 12, islands: 2, ga: { populationSize: 40 } } },
        sweep: { 'migration.mode': ['lagged', 'async'] },
        baseline: { 'migration.mode': 'lagged' },
        repeats: 2,
        seed: 1,
      },
      { out },
    );
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as {
      repeatable: boolean;
      cells: { id: string; repeatable: boolean }[];
    };
    assert.equal(manifest.repeatable, false);
    assert.deepEqual(
      manifest.cells.map((c) => [c.id, c.repeatable]),
      [
        ['migration.mode=lagged', true],
        ['migration.mode=async', false],
      ],
    );
    assert.deepEqual(
      records(out)
        .map((r) => [r.cell, r.repeatable])
        .sort(),
      [
        ['migration.mode=async', false],
        ['migration.mode=async', false],
        ['migration.mode=lagged', true],
        ['migration.mode=lagged', true],
      ],
    );
    const report = cli(['report', out]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /Not repeatable: migration\.mode=async \(async migration\): .*pair initial populations only/);
  });
});
