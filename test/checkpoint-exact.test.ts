/**
 * A resumed repeatable run is the uninterrupted run (issue 47): checkpoints taken at every
 * iteration of a lagged run (100 of them) and at every barrier of a sync run, each written to
 * a real checkpoint file, read back, checked and resumed, finish with the uninterrupted run's
 * record, bit for bit: solution, counters of every island, trajectory and between-island
 * points (all but times). Each checkpoint is asked for at an exact iteration
 * (`checkpointAtIteration`), not on a clock, so the test repeats; the islands still answer
 * it each at its own moment, so lagged checkpoints hold migrants in flight. Real worker
 * threads and MessagePorts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LocalHost } from '../src/archipelago/local-host.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import type { RunConfigInput } from '../src/config/schema.ts';
import { readCheckpoint, resumeConfig } from '../src/run/checkpoint.ts';
import { resultRecord } from '../src/run/result-record.ts';
import { startSeededRun, type RunResult, type SeededRunConfig } from '../src/run/start-run.ts';
import { checkpointAt } from './checkpoint-helpers.ts';
import { repeatablePart } from './helpers.ts';

const host = new LocalHost(2);
const tmp = mkdtempSync(join(tmpdir(), 'nq-exact-'));
after(async () => {
  await host.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Everything of a run that its seed and config fix: the record without times, with its trajectory and between-island points. */
const repeatable = (result: RunResult, config: SeededRunConfig) =>
  repeatablePart({ ...resultRecord(result, config), trajectory: result.trajectory, between: result.between });

/** The checkpoint asked for at iteration `k`, written to `file`; the run that took it is stopped there (null), else its islands. */
async function checkpointTaken(config: SeededRunConfig, k: number, file: string): Promise<string | null> {
  const { taken, result } = await checkpointAt(host, config, k, file);
  return taken ? null : JSON.stringify(result.islands);
}

async function resumed(file: string): Promise<{ result: RunResult; config: SeededRunConfig }> {
  const checkpoint = readCheckpoint(file);
  const config = resumeConfig(checkpoint, file, {});
  const result = await startSeededRun(config, { launcher: host, resume: checkpoint.islands, resumeBetween: checkpoint.between }).result;
  return { result, config };
}

/** Resumes the checkpoint at each of `iterations`: each must finish with the uninterrupted run's record. */
async function everyCheckpointResumes(input: RunConfigInput, iterations: number[]): Promise<number> {
  const config = resolveRunConfig(input, 'test') as SeededRunConfig;
  const uninterrupted = await startSeededRun(config, { launcher: host }).result;
  assert.ok(uninterrupted.solved && uninterrupted.foundAtIteration! > Math.max(...iterations), 'the run outlasts every checkpoint');
  const want = repeatable(uninterrupted, config);
  let resumes = 0;
  for (const k of iterations) {
    const file = join(tmp, `${config.migration.mode}-${k}.ckpt`);
    assert.equal(await checkpointTaken(config, k, file), null, `a checkpoint at iteration ${k}`);
    const again = await resumed(file);
    assert.deepEqual(repeatable(again.result, again.config), want, `resumed from the checkpoint at iteration ${k}`);
    resumes++;
  }
  return resumes;
}

const run = (mode: 'lagged' | 'sync', seed: number, more: Partial<RunConfigInput> = {}): RunConfigInput => ({
  n: 40,
  seed,
  islands: 2,
  ga: { populationSize: 100 },
  migration: { mode, lag: 2, interval: 3, migrants: 4 },
  ...more,
});

describe('a resumed repeatable run is the uninterrupted run', { timeout: 240_000 }, () => {
  it('lagged: the checkpoint at each of iterations 1..100 resumes to the same record (migrants in flight, lag history)', async () => {
    // Seed 2 solves at iteration 128. Lag 2, interval 3: at iterations 3k and 3k + 1 each island has sent migrants the other takes in later.
    const iterations = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.equal(await everyCheckpointResumes(run('lagged', 2), iterations), 100);
  });

  it('lagged, three islands on a one-way ring (an island may run ahead of the one it feeds): every seventh iteration', async () => {
    const iterations = Array.from({ length: 14 }, (_, i) => 1 + 7 * i);
    await everyCheckpointResumes(
      run('lagged', 3, { islands: 3, migration: { mode: 'lagged', lag: 1, interval: 2, migrants: 4 } }),
      iterations,
    );
  });

  it("takeover mode: resumed after some islands were taken over, the takeover times are the uninterrupted run's", async () => {
    // Islands 0 and 1 are taken over at iterations 10 and 11, the archipelago at 14; its halt (and so each island's
    // count past the takeover) depends on timing in any takeover run, its takeover times do not.
    const input = run('sync', 3, { islands: 4, topology: { kind: 'ring' }, ga: { mode: 'takeover', populationSize: 200 } });
    const config = resolveRunConfig({ ...input, migration: { mode: 'sync', interval: 2, migrants: 1 } }, 'test') as SeededRunConfig;
    const uninterrupted = await startSeededRun(config, { launcher: host }).result;
    assert.deepEqual(uninterrupted.takeover, { iteration: 14, islands: [10, 11, 14, 14] });
    // Through a real checkpoint file, read back and checked (its members scored by the takeover mode, not the paper's
    // fitness). Sync checkpoints are taken at barriers (every 2nd iteration): 10 and 12, after one and two islands were
    // taken over and before the archipelago's halt at 14, which races a checkpoint asked for there (it depends on timing).
    for (const k of [9, 11]) {
      const file = join(tmp, `takeover-${k}.ckpt`);
      assert.equal(await checkpointTaken(config, k, file), null, `a checkpoint at iteration ${k}`);
      const again = await resumed(file);
      assert.deepEqual(again.result.takeover, uninterrupted.takeover, `resumed from the checkpoint at iteration ${k}`);
      assert.deepEqual(
        again.result.islands.map((i) => i.takenOverAt),
        uninterrupted.islands.map((i) => i.takenOverAt),
      );
    }
  });

  it('island groups of their own population and GA mode: checkpoints resume to the same record (each island checked as its group)', async () => {
    // Island 1 runs a population of 60 where island 0 has 100; with hybrid islands beside paper ones too.
    const groups = { small: { islands: [1], ga: { populationSize: 60 } } };
    await everyCheckpointResumes(run('sync', 1, { islandGroups: groups }), [1, 4, 10]);
    const mixed = { quick: { islands: [1], ga: { mode: 'hybrid' as const, populationSize: 60 } } };
    const config = resolveRunConfig(run('lagged', 5, { n: 300, islandGroups: mixed }), 'test') as SeededRunConfig;
    const file = join(tmp, 'mixed-1.ckpt');
    assert.equal(await checkpointTaken(config, 1, file), null, 'a checkpoint at iteration 1');
    assert.doesNotThrow(
      () => resumeConfig(readCheckpoint(file), file, {}),
      'a checkpoint of paper and hybrid islands is read back and checked',
    );
  });

  it('sync: the checkpoint at each barrier up to iteration 141 resumes to the same record', async () => {
    // Seed 1 solves at iteration 144; a sync checkpoint is taken at the first barrier at or after the iteration asked for.
    const iterations = Array.from({ length: 47 }, (_, i) => 3 * i + 1);
    await everyCheckpointResumes(run('sync', 1), iterations);
  });
});
