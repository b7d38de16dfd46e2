/**
 * One run, one record: a study's run goes through the run pipeline, so its line of runs.jsonl
 * holds the same run fields as the record `solve()` (and `solve --json`) makes of the same
 * config and seed, on real worker threads. Only the clock may differ.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { solve } from '../src/index.ts';
import type { RunConfigInput } from '../src/config/schema.ts';
import { islandSummary } from '../src/archipelago/events.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { cellConfig } from '../src/experiment/records.ts';
import { runStudy } from '../src/experiment/runner.ts';
import { readRuns } from '../src/experiment/store.ts';
import { solveRecordSchema } from '../src/run/record-schema.ts';
import { RUN_FIELDS, type SolveRecord } from '../src/run/result-record.ts';
import { cli } from './cli-helpers.ts';
import type { Provenance } from '../src/provenance.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-one-record-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Wall-clock fields: the only run fields two runs of one seed may differ in. */
const CLOCK = new Set(['seconds', 'startupSeconds', 'stopLatencyMs']);

const STUDY = [
  'base: { overrides: { islands: 3, ga: { populationSize: 30 }, limits: { maxIterations: 60 } } }',
  'sweep:',
  '  n: [8, 40]',
  '  migration.mode: [sync, lagged]',
  'repeats: 1',
  'seed: 7',
  '',
].join('\n');

describe('a study run and a solve run of one config and seed', () => {
  it('give records equal in every run field but the clock, islands and counters included (sync and lagged, solved and not)', async () => {
    const file = path.join(dir, 'study.yaml');
    writeFileSync(file, STUDY);
    const experiment = loadExperiment(file, { availableParallelism: 4, totalMemory: 16e9 });
    const out = path.join(dir, 'out');
    await runStudy(experiment, { outDir: out, resume: false, events: false });
    const runs = readRuns(path.join(out, 'runs.jsonl')).runs;
    assert.equal(runs.length, 4);
    assert.ok(runs.some((r) => r.solved) && runs.some((r) => !r.solved), 'both a solved and an unsolved run are compared');
    for (const run of runs) {
      const cell = experiment.cells.find((c) => c.id === run.cell)!;
      // The manifest's file shape (policies by name) is what `solve --config` reads.
      const record = await solve({ ...(cellConfig(cell.config) as RunConfigInput), seed: run.seed });
      assert.ok(solveRecordSchema.safeParse(record).success, 'the solve record fits the one schema');
      const where = `${run.cell} seed ${run.seed}`;
      for (const key of RUN_FIELDS) {
        if (CLOCK.has(key)) continue;
        assert.deepEqual(run[key], record[key], `${where}: ${key}`);
      }
      assert.ok(run.trajectory && run.trajectory.length > 0, `${where}: a trajectory in both`);
      assert.deepEqual(run.islands, record.islands.map(islandSummary), `${where}: islands`);
      assert.equal(
        run.migrantsSent,
        record.islands.reduce((sum, i) => sum + i.migrantsSent, 0),
        `${where}: totals`,
      );
    }
    // And `solve --json` itself (the built CLI), given the cell's config as the manifest holds it, for an unsolved lagged run.
    const unsolved = runs.find((r) => !r.solved && r.values['migration.mode'] === 'lagged')!;
    const cellFile = path.join(dir, 'cell.json');
    writeFileSync(cellFile, JSON.stringify(cellConfig(experiment.cells.find((c) => c.id === unsolved.cell)!.config)));
    const printed = cli(['solve', '--config', cellFile, '--seed', String(unsolved.seed), '--json']);
    assert.equal(printed.code, 1, printed.stderr);
    const fromCli = JSON.parse(printed.stdout) as SolveRecord;
    // The build's commit is the bundle's (build-info), not known to this test's source: the rest of the provenance must agree.
    const build = ({ commit: _c, dirty: _d, ...rest }: Provenance) => rest;
    for (const key of RUN_FIELDS) {
      if (CLOCK.has(key)) continue;
      if (key === 'provenance') assert.deepEqual(build(unsolved.provenance!), build(fromCli.provenance), 'solve --json: provenance');
      else assert.deepEqual(unsolved[key], fromCli[key], `solve --json: ${key}`);
    }
  });
});
