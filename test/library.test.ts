import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import {
  ConfigError,
  InputError,
  NoSolutionError,
  OutputNotWrittenError,
  runExperiment,
  solve,
  startRun,
  topologies,
  verify,
  type SolveRecord,
} from '../src/index.ts';
import { IN_PROCESS_REPORT, type Launcher } from '../src/archipelago/launcher.ts';
import { readCheckpoint } from '../src/run/checkpoint.ts';
import { cli } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-library-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A record without what depends on the clock. */
/** The record without times, and without the build's commit (code run from src/ under tsx has none; the CLI is the build). */
function untimed(record: Record<string, unknown>): Record<string, unknown> {
  const { seconds, startupSeconds, stopLatencyMs, islands, provenance, ...rest } = record;
  const { commit: _c, dirty: _d, ...made } = provenance as Record<string, unknown>;
  return { ...rest, islands: (islands as Record<string, unknown>[]).map(({ seconds: _s, ...i }) => i), provenance: made };
}

describe('the library', () => {
  it('solve() resolves to the record `solve --json` prints for the same config (a sync run repeats)', async () => {
    const config = { n: 16, seed: 5, islands: 2, topology: { kind: 'ring' as const }, migration: { mode: 'sync' as const, interval: 4 } };
    const record = await solve(config);
    const r = cli([
      'solve',
      '-n',
      '16',
      '--seed',
      '5',
      '--islands',
      '2',
      '--topology',
      'ring',
      '--migration',
      'sync',
      '--interval',
      '4',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(record.solved, true);
    assert.equal(verify(record.solution!).solution, true);
    assert.deepEqual(untimed(record as unknown as Record<string, unknown>), untimed(JSON.parse(r.stdout)));
  });

  it('checks a config as a config file is checked, with the same one-line message', async () => {
    const bad = { n: 16, migration: { interval: 'ten' } } as never;
    await assert.rejects(
      solve(bad),
      (error: unknown) =>
        error instanceof ConfigError &&
        error instanceof InputError &&
        /^config: migration\.interval: expected an integer >= 1/.test(error.message),
    );
    await assert.rejects(solve({ n: 2 }), NoSolutionError);
    assert.throws(() => startRun({ n: 8, topology: { kind: 'ringg' as never } }), /topology\.kind/);
  });

  it('startRun streams events and stop() ends the run with ended: stopped', async () => {
    const run = startRun({ n: 2000, islands: 2, seed: 1 });
    const events = lastValueFrom(run.events$.pipe(toArray()));
    run.events$.subscribe((event) => event.type === 'progress' && run.stop());
    const record = await run.result;
    assert.equal(record.ended, 'stopped');
    assert.equal(record.solved, false);
    assert.equal(record.best!.length, 2000);
    const types = new Set((await events).map((e) => e.type));
    for (const type of ['started', 'progress', 'done']) assert.ok(types.has(type as never), `a ${type} event`);
  });

  it('writes output.file as --out does', async () => {
    const file = path.join(dir, 'out.txt');
    const record = await solve({ n: 8, seed: 2, islands: 1, output: { file } });
    assert.equal(readFileSync(file, 'utf8'), `${record.solution!.join('\n')}\n`);
  });

  it('an output.file that fails at the end loses no finished record: the rejection carries it, nothing half-written', async () => {
    // What happens to the file's place while the run goes (after the checks at start, before the write).
    const cases: [string, (folder: string, file: string) => void, RegExp][] = [
      ['its folder removed', (folder) => rmSync(folder, { recursive: true }), /cannot be written \(.*ENOENT|no such/i],
      ['a folder in its place', (_folder, file) => mkdirSync(file), /cannot be written|is a directory/i],
    ];
    for (const [name, spoil, reason] of cases) {
      const folder = mkdtempSync(path.join(dir, 'lost-'));
      const file = path.join(folder, 'r.json');
      const run = startRun({ n: 12, seed: 4, islands: 1, output: { file } });
      spoil(folder, file);
      const error: unknown = await run.result.then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(error instanceof OutputNotWrittenError, `${name}: ${String(error)}`);
      assert.match(error.message, new RegExp(`^output.file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `), name);
      assert.match(error.message, reason, name);
      assert.equal(error.message.includes('\n'), false, `${name}: one line`);
      // The finished record itself: the run's solution, valid, for the config that ran.
      assert.equal(error.record.solved, true, name);
      assert.equal(verify(error.record.solution!).solution, true, name);
      assert.equal(error.record.seed, 4, name);
      assert.deepEqual(existsSync(folder) ? readdirSync(folder).filter((f) => f !== 'r.json') : [], [], `${name}: no temporary left`);
    }
  });

  it('checkpoints a run into checkpoint.file (each is a checkpoint event too); `solve --resume` continues it', async () => {
    const file = path.join(dir, 'lib.ckpt');
    const config = { n: 300, seed: 4, islands: 2, migration: { mode: 'sync' as const, interval: 5 } };
    const run = startRun(config, { checkpoint: { file, everySeconds: 0.05 } });
    run.events$.subscribe((event) => event.type === 'checkpoint' && run.stop());
    const record = await run.result;
    assert.equal(record.ended, 'stopped');
    const saved = readCheckpoint(file);
    assert.equal(saved.islands.length, 2);
    assert.ok(saved.epoch !== null && saved.epoch > 0, `a sync checkpoint names its epoch, got ${saved.epoch}`);
    // Resumed by the CLI a few epochs on, it is where a run never stopped is then (sync repeats).
    const limit = saved.epoch * 5 + 10;
    const resumed = cli(['solve', '--resume', file, '--max-iterations', String(limit), '--json']);
    assert.equal(resumed.code, 1, resumed.stderr);
    const never = await solve({ ...config, limits: { maxIterations: limit } });
    const essence = (r: SolveRecord) => [
      r.iterations,
      r.evaluations,
      r.fitness,
      r.best,
      r.islands.map((i) => [i.iterations, i.bestFitness]),
    ];
    assert.deepEqual(essence(JSON.parse(resumed.stdout)), essence(never));
    assert.throws(
      () => startRun({ n: 8 }, { checkpoint: { file, everySeconds: 0 } }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message === 'checkpoint.everySeconds: expected a number of seconds > 0, at most 2147483 (24.8 days), got 0',
    );
  });

  it('refuses a checkpoint with a launcher that takes none, in one line, before anything starts', () => {
    const file = path.join(dir, 'refused.ckpt');
    let launched = false;
    const launcher: Launcher = {
      capabilities: { checkpoints: false, why: 'islands on other hosts are not checkpointed' },
      launch: () => {
        launched = true;
        throw new Error('launched');
      },
      report: () => IN_PROCESS_REPORT,
    };
    assert.throws(
      () => startRun({ n: 16, seed: 1 }, { cluster: { islands: 2, launcher }, checkpoint: { file } }),
      (error: unknown) =>
        error instanceof ConfigError && error.message === 'checkpoint: not with cluster (islands on other hosts are not checkpointed)',
    );
    assert.equal(launched, false);
    assert.equal(existsSync(file), false);
  });

  it('verify() and topologies', () => {
    assert.deepEqual(verify('(2, 4, 1, 3)'), { n: 4, permutation: true, fitness: 0, solution: true });
    assert.deepEqual(verify([1, 2, 3, 4]), { n: 4, permutation: true, fitness: 3, solution: false });
    assert.throws(() => verify([1, 5, 2]), InputError);
    assert.ok(topologies.kinds.includes('hypercube'));
    assert.deepEqual(topologies.edges({ kind: 'ring' }, 3), [
      [0, 1],
      [1, 2],
      [2, 0],
    ]);
  });

  it('runExperiment runs a study given as an object into a folder report reads', async () => {
    const out = path.join(dir, 'study');
    const outcome = await runExperiment(
      { base: { overrides: { n: 8, islands: 1 } }, sweep: { 'topology.kind': ['none'] }, repeats: 2, seed: 3 },
      { out },
    );
    assert.deepEqual([outcome.total, outcome.completed], [2, 2]);
    const r = cli(['report', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /topology\.kind=none\s+2\s+2\/2 \[/);
    await assert.rejects(
      runExperiment({ sweep: { 'topology.kind': [] } }, { out: path.join(dir, 'x') }),
      /experiment: sweep\.topology\.kind: expected a non-empty list/,
    );
  });
});
