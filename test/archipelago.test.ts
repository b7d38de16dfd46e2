import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import {
  startArchipelago,
  type ArchipelagoEvent,
  type ArchipelagoOptions,
  type ArchipelagoResult,
} from '../src/archipelago/archipelago.ts';
import { ArchipelagoOptionError } from '../src/archipelago/errors.ts';
import { IN_PROCESS_REPORT, type LaunchPlan, type Launcher } from '../src/archipelago/launcher.ts';
import type { IslandReport } from '../src/archipelago/messages.ts';
import { SharedMemoryCoordination } from '../src/archipelago/shared-memory-coordination.ts';
import { IslandFailedError } from '../src/archipelago/errors.ts';
import { LocalHost } from '../src/archipelago/local-host.ts';
import { COMPILED_WORKER_ENV, islandWorkerFile } from '../src/archipelago/worker-path.ts';
import { Island } from '../src/ga/island.ts';
import { paperParams } from '../src/ga/params.ts';
import { Rng } from '../src/ga/rng.ts';
import { fromOneBased, toOneBased } from '../src/problem/genes.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { withFault } from './fixtures/fault-host.ts';
import { ROOT } from './paths.ts';
import { zeroMeasures } from '../src/archipelago/island-counters.ts';

type Run = ArchipelagoOptions['run'];
type Overrides = Omit<Partial<ArchipelagoOptions>, 'run'> &
  Partial<Pick<Run, 'seed' | 'islands' | 'topology' | 'onIslandError'>> & {
    migration?: Partial<Run['migration']>;
    n?: number;
    populationSize?: number;
    maxIterations?: number;
    timeLimitMs?: number;
  };

function options(o: Overrides = {}): ArchipelagoOptions {
  const { n = 24, populationSize = 100, seed = 1, islands = 4, topology = { kind: 'ring' }, onIslandError = 'continue', ...more } = o;
  const { migration, maxIterations, timeLimitMs, ...rest } = more;
  const { n: _n, ...params } = paperParams(n, { populationSize });
  return {
    run: {
      n,
      seed,
      islands,
      ga: { mode: 'paper', ...params },
      topology,
      migration: {
        mode: 'async',
        lag: 2,
        interval: 5,
        migrants: 2,
        emigrantSelection: { kind: 'best' },
        replacement: 'worst-if-better',
        rejectDuplicates: false,
        ...migration,
      },
      limits: {
        maxIterations: maxIterations ?? null,
        maxEvaluations: null,
        timeLimit: timeLimitMs === undefined ? null : timeLimitMs / 1000,
      },
      onIslandError,
    },
    progressIntervalMs: 50,
    ...rest,
  };
}

/**
 * One pool of island workers for the file's runs, as a long-lived process keeps one (starting
 * workers is most of a small run's cost); `ownHost` runs start and close their own, as a
 * one-off run does.
 */
const host = new LocalHost(4);
after(() => host.close());

async function run(
  o: ArchipelagoOptions,
  { ownHost = false } = {},
): Promise<{ result: ArchipelagoResult; events: ArchipelagoEvent[]; completed: boolean }> {
  const archipelago = startArchipelago(ownHost ? o : { launcher: host, ...o });
  const events: ArchipelagoEvent[] = [];
  let completed = false;
  archipelago.events$.subscribe({ next: (e) => events.push(e), complete: () => (completed = true) });
  const result = await archipelago.result;
  return { result, events, completed };
}

function ofType<T extends ArchipelagoEvent['type']>(events: ArchipelagoEvent[], type: T): Extract<ArchipelagoEvent, { type: T }>[] {
  return events.filter((e): e is Extract<ArchipelagoEvent, { type: T }> => e.type === type);
}

/** Everything about a run that must not depend on thread timing (sync mode). */
function deterministic(result: ArchipelagoResult, events: ArchipelagoEvent[]) {
  return {
    solution: result.solution,
    foundBy: result.foundBy,
    foundAtIteration: result.foundAtIteration,
    evaluations: result.evaluations,
    islands: result.islands.map(({ id, iterations, evaluations, bestFitness, migrantsSent, migrantsAccepted, stopReason }) => ({
      id,
      iterations,
      evaluations,
      bestFitness,
      migrantsSent,
      migrantsAccepted,
      stopReason,
    })),
    migrations: ofType(events, 'migration')
      .map((m) => `${m.epoch}:${m.from}>${m.to}:${m.iteration}:${m.sent}:${m.accepted}`)
      .sort(),
  };
}

describe('worker file', () => {
  it('is the .ts worker (with tsx) under tsx, the compiled one under tsx after a build (npm run coverage), and the .js one when compiled', () => {
    const ts = islandWorkerFile('file:///p/src/archipelago/archipelago.ts', {});
    assert.equal(ts.filename, '/p/workers/island-worker.ts');
    // npm run coverage builds first, then starts the compiled worker from source, without tsx's loader.
    const compiled = islandWorkerFile('file:///p/src/archipelago/archipelago.ts', { [COMPILED_WORKER_ENV]: '1' });
    assert.equal(compiled.filename, '/p/dist/workers/island-worker.js');
    assert.ok(compiled.execArgv && !compiled.execArgv.some((arg) => arg.includes('tsx')), String(compiled.execArgv));
    const js = islandWorkerFile('file:///p/dist/src/archipelago/archipelago.js');
    assert.equal(js.filename, '/p/dist/workers/island-worker.js');
    assert.equal(js.execArgv, undefined);
    const bundled = islandWorkerFile('file:///p/dist/bundle/cli.cjs');
    assert.equal(bundled.filename, '/p/dist/bundle/island-worker.cjs');
    assert.equal(bundled.execArgv, undefined);
  });
  it('compiled, where the build made the bundle (this checkout after npm run build): the bundled worker, which starts in less CPU', () => {
    const bundle = path.join(ROOT, 'dist', 'bundle', 'island-worker.cjs');
    if (!existsSync(bundle)) return assert.fail(`${bundle}: no bundle; run npm run build first`);
    const js = islandWorkerFile(pathToFileURL(path.join(ROOT, 'dist', 'src', 'archipelago', 'local-host.js')).href);
    assert.deepEqual(js, { filename: bundle, execArgv: undefined });
  });
});

describe('archipelago options', () => {
  it('refuses a resume whose snapshots do not match the islands, naming the option', () => {
    // Everything else comes from a run config the schema checked (test/config.test.ts).
    assert.throws(
      () => startArchipelago(options({ islands: 2, resume: [] })),
      (e: Error) => e instanceof ArchipelagoOptionError && e.message === 'resume must be one snapshot per island 0..1, in order, got []',
    );
  });
});

/**
 * A launcher whose islands are the test's script: the test says what each island sends and
 * reports, in which order. It stands for islands on hosts across a bus, where two islands
 * can both claim a solution before either hears of the other's claim.
 */
function scriptedLauncher(islands: number) {
  const coordination = SharedMemoryCoordination.create(islands);
  const settle: ((report: IslandReport) => void)[] = [];
  const reports = Array.from({ length: islands }, () => new Promise<IslandReport>((resolve) => settle.push(resolve)));
  let plan: LaunchPlan | null = null;
  const launcher: Launcher = {
    capabilities: { checkpoints: true },
    launch(p) {
      plan = p;
      return { coordination, reports, terminate() {}, release() {}, threads: null };
    },
    report: () => IN_PROCESS_REPORT,
  };
  return { launcher, control: (message: Parameters<LaunchPlan['onControl']>[0]) => plan!.onControl(message), settle };
}

/** The report of an island that found (and claimed) `tuple` at iteration `iteration`. */
function solvedReport(island: number, tuple: number[], iteration: number, foundAt: number): IslandReport {
  const genes = fromOneBased(tuple);
  return {
    type: 'report',
    island,
    iterations: iteration,
    evaluations: 100,
    bestFitness: 0,
    best: genes,
    solution: genes,
    foundAtIteration: iteration,
    foundAt,
    claimed: true,
    ...zeroMeasures(),
    startedAt: foundAt - 5,
    stoppedAt: foundAt + 1,
    stopReason: 'solved',
    migrations: new Int32Array(0),
    survivals: new Int32Array(0),
    evaluationsFrom: iteration,
    evaluationsAt: new Float64Array(0),
    course: new Float64Array(0),
  };
}

describe("a checkpoint's barrier (sync)", () => {
  it("islands that agreed on the first request's epoch before the coordinator made that request keep it; a later request starts free", () => {
    const shared = SharedMemoryCoordination.create(2);
    const free = shared.checkpointEpoch();
    // Tasks with checkpointFrom have generation 1 out from their start: both propose epoch 8, island 1 snapshots there.
    shared.proposeCheckpointEpoch(8);
    shared.proposeCheckpointEpoch(8);
    assert.equal(shared.checkpointEpoch(), 8);
    // Only now does the coordinator's thread make that request (it was descheduled after the launch).
    assert.equal(shared.requestCheckpoint(), 1);
    assert.equal(shared.checkpointEpoch(), 8, 'island 0, past the barrier, still finds the epoch island 1 served');
    assert.equal(shared.requestCheckpoint(), 2);
    assert.equal(shared.checkpointEpoch(), free, 'a new generation agrees afresh');
    shared.proposeCheckpointEpoch(12);
    shared.proposeCheckpointEpoch(15);
    assert.equal(shared.checkpointEpoch(), 12, 'the first proposal wins');
  });
});

describe('one winner (the coordinator decides)', () => {
  it('async: two islands that both claimed a solution (on two hosts) give one winner, the first to arrive; the other is recorded as also-solved', async () => {
    const { launcher, control, settle } = scriptedLauncher(2);
    const archipelago = startArchipelago({ ...options({ islands: 2, n: 6 }), launcher });
    const events: ArchipelagoEvent[] = [];
    archipelago.events$.subscribe((e) => events.push(e));
    // Island 1's solution arrives first, although island 0 found its own earlier (by its clock and its iteration).
    control({ type: 'solution', island: 1, iteration: 7, genes: fromOneBased([2, 4, 6, 1, 3, 5]), foundAt: 2000 });
    control({ type: 'solution', island: 0, iteration: 3, genes: fromOneBased([3, 6, 2, 5, 1, 4]), foundAt: 1000 });
    settle[0](solvedReport(0, [3, 6, 2, 5, 1, 4], 3, 1000));
    settle[1](solvedReport(1, [2, 4, 6, 1, 3, 5], 7, 2000));
    const result = await archipelago.result;
    assert.deepEqual([result.foundBy, result.foundAtIteration, result.solution], [1, 7, [2, 4, 6, 1, 3, 5]]);
    assert.deepEqual(
      result.islands.map((i) => i.stopReason),
      ['also-solved', 'solved'],
    );
    assert.deepEqual(
      ofType(events, 'solution').map((e) => e.island),
      [1],
      "one solution event, the winner's",
    );
  });

  it("async: an island that held a solution but saw the winner's claim first (it had not looked at its initial population yet) is also-solved, not other-solved", async () => {
    const { launcher, control, settle } = scriptedLauncher(2);
    const archipelago = startArchipelago({ ...options({ islands: 2, n: 6 }), launcher });
    control({ type: 'solution', island: 0, iteration: 0, genes: fromOneBased([3, 6, 2, 5, 1, 4]), foundAt: 1000 });
    settle[0](solvedReport(0, [3, 6, 2, 5, 1, 4], 0, 1000));
    settle[1]({ ...solvedReport(1, [2, 4, 6, 1, 3, 5], 0, 0), foundAtIteration: -1, claimed: false, stopReason: 'other-solved' });
    const result = await archipelago.result;
    assert.deepEqual(
      result.islands.map((i) => i.stopReason),
      ['solved', 'also-solved'],
    );
  });

  it('a run halted before any island looked at its population still reports a solution one of them held, validated (a best of fitness 0 is a solution)', async () => {
    for (const mode of ['async', 'sync'] as const) {
      const { launcher, settle } = scriptedLauncher(2);
      const archipelago = startArchipelago({ ...options({ islands: 2, n: 6, migration: { mode } }), launcher });
      archipelago.stop();
      const held = (island: number, tuple: number[]) => ({
        ...solvedReport(island, tuple, 0, 0),
        foundAtIteration: -1,
        claimed: false,
        stopReason: 'stopped' as const,
      });
      settle[0]({
        ...solvedReport(0, [1, 2, 3, 4, 5, 6], 0, 0),
        solution: null,
        bestFitness: 3,
        foundAtIteration: -1,
        claimed: false,
        stopReason: 'stopped',
      });
      settle[1](held(1, [2, 4, 6, 1, 3, 5]));
      const result = await archipelago.result;
      assert.deepEqual(
        [result.solved, result.fitness, result.foundBy, result.foundAtIteration, result.solution],
        [true, 0, 1, 0, [2, 4, 6, 1, 3, 5]],
        mode,
      );
      assert.deepEqual(
        result.islands.map((i) => i.stopReason),
        ['stopped', 'solved'],
        mode,
      );
    }
    // A held "solution" the validator refuses is not one: the run stays unsolved.
    const { launcher, settle } = scriptedLauncher(1);
    const archipelago = startArchipelago({ ...options({ islands: 1, n: 6 }), launcher });
    const events: ArchipelagoEvent[] = [];
    archipelago.events$.subscribe((e) => events.push(e));
    archipelago.stop();
    settle[0]({ ...solvedReport(0, [1, 2, 3, 4, 5, 6], 0, 0), foundAtIteration: -1, claimed: false, stopReason: 'stopped' });
    const result = await archipelago.result;
    assert.equal(result.solved, false);
    assert.equal(ofType(events, 'island-error').length, 1);
  });
});

describe('archipelago (real workers)', () => {
  it('async: the first solution stops every island, and only one solution is reported', async () => {
    const { result, events, completed } = await run(options({ islands: 4 }), { ownHost: true });
    assert.equal(result.solved, true);
    assert.ok(result.solution && validateSolution(result.solution, 24).valid);
    const solutions = ofType(events, 'solution');
    assert.equal(solutions.length, 1);
    assert.equal(solutions[0].island, result.foundBy);
    assert.equal(solutions[0].seconds, result.foundAtSeconds);
    assert.deepEqual(solutions[0].solution, result.solution);
    assert.equal(result.fitness, 0);
    assert.equal(result.islands.length, 4);
    for (const island of result.islands) {
      assert.ok(
        island.stopReason === 'solved' || island.stopReason === 'also-solved' || island.stopReason === 'other-solved',
        `island ${island.id}: ${island.stopReason}`,
      );
      assert.equal(island.error, undefined);
    }
    assert.equal(result.islands[result.foundBy!].stopReason, 'solved');
    assert.equal(result.islands.filter((i) => i.stopReason === 'solved').length, 1, 'one winner');
    assert.ok(result.stopLatencyMs !== null && result.stopLatencyMs >= 0);
    assert.equal(
      result.evaluations,
      result.islands.reduce((s, i) => s + i.evaluations, 0),
    );
    assert.equal(events.at(-1)?.type, 'done');
    assert.ok(completed);
  });

  it('migrants arrive and are accepted on a ring', async () => {
    const { result, events } = await run(options({ islands: 4, migration: { mode: 'sync', interval: 2, migrants: 4 } }));
    const migrations = ofType(events, 'migration');
    assert.ok(migrations.length > 0);
    const accepted = migrations.reduce((s, m) => s + m.accepted, 0);
    assert.ok(accepted > 0);
    for (const m of migrations) assert.equal(m.to, (m.from + 1) % 4); // ring edges only
    assert.equal(
      accepted,
      result.islands.reduce((s, i) => s + i.migrantsAccepted, 0),
    );
    for (const island of result.islands) assert.ok(island.migrantsSent > 0 && island.migrantsAccepted > 0, `island ${island.id}`);
    const progress = ofType(events, 'progress');
    for (const p of progress) assert.ok(p.diversity >= 0 && p.diversity <= 1 && p.meanFitness >= p.bestFitness);
  });

  it('async migration also delivers', async () => {
    // Async delivery depends on thread timing: a board that takes hundreds of iterations gives
    // the migrants time to arrive (replacement 'worst' accepts every one that does).
    const { result } = await run(
      options({ islands: 2, seed: 3, n: 64, topology: { kind: 'ring-bi' }, migration: { interval: 1, migrants: 3, replacement: 'worst' } }),
    );
    assert.ok(result.islands.some((i) => i.migrantsAccepted > 0));
  });

  it('one island with migration on does not hang (async and sync)', async () => {
    for (const mode of ['async', 'sync'] as const) {
      const { result } = await run(options({ islands: 1, topology: { kind: 'ring' }, migration: { mode, interval: 1 } }));
      assert.equal(result.solved, true, mode);
      assert.equal(result.edges, 0);
    }
  });

  it(`8 islands on ${availableParallelism()} cores finish`, async () => {
    const { result } = await run(options({ islands: 8, n: 20, populationSize: 60, topology: { kind: 'hypercube' } }));
    assert.equal(result.solved, true);
    assert.equal(result.islands.length, 8);
    assert.equal(result.edges, 24);
  });

  it('sync runs are repeatable', async () => {
    const o = options({
      islands: 4,
      seed: 11,
      topology: { kind: 'ring-bi' },
      migration: {
        mode: 'sync',
        interval: 3,
        migrants: 3,
        emigrantSelection: { kind: 'tournament', size: 2 },
        replacement: 'random-if-better',
      },
    });
    const a = await run(o);
    const b = await run(o);
    assert.equal(a.result.solved, true);
    assert.deepEqual(deterministic(b.result, b.events), deterministic(a.result, a.events));
    assert.equal(ofType(a.events, 'solution').length, 1);
    // The finder stops at once; the others finish the epoch and stop at its barrier. The
    // generation that made the solution counts, so it ends the epoch it belongs to (never before epoch 1).
    const epochEnd = Math.ceil(Math.max(1, a.result.foundAtIteration!) / 3) * 3;
    for (const island of a.result.islands) {
      if (island.id === a.result.foundBy) assert.equal(island.iterations, a.result.foundAtIteration);
      else if (island.stopReason === 'other-solved') assert.equal(island.iterations, epochEnd);
    }
  });

  it('islands: 1 with topology none is the single-island core, in both modes', async () => {
    const params = paperParams(20, { populationSize: 100 });
    for (const seed of [2, 5]) {
      const core = new Island({ params, rng: Rng.forStream(seed, 0) });
      while (!core.step()) assert.ok(core.iterations < 10_000, 'core did not solve');
      for (const mode of ['async', 'sync'] as const) {
        const { result } = await run(options({ seed, islands: 1, n: 20, topology: { kind: 'none' }, migration: { mode } }));
        assert.deepEqual(result.solution, toOneBased(core.solution!), `${mode} seed ${seed}`);
        assert.equal(result.foundAtIteration, core.iterations);
        assert.equal(result.islands[0].iterations, core.iterations);
        assert.equal(result.islands[0].evaluations, core.evaluations);
      }
    }
  });

  it('a worker that throws gives an island-error naming the island and the iteration; the others go on', async () => {
    for (const mode of ['async', 'sync'] as const) {
      // Sync: the barrier at every second iteration holds island 0 until island 1 has reached
      // its fault, whatever the scheduling. Async has no barrier, so the board is large enough
      // (hundreds of iterations) that island 1 reaches iteration 4 first even on a loaded machine.
      const { result, events } = await withFault({ island: 1, atIteration: 4, kind: 'throw' }, (launcher) =>
        run(options({ islands: 2, n: mode === 'sync' ? 48 : 100, populationSize: 200, migration: { mode, interval: 2 }, launcher })),
      );
      const errors = ofType(events, 'island-error');
      assert.equal(errors.length, 1, mode);
      assert.equal(errors[0].island, 1);
      assert.equal(errors[0].iteration, 4);
      assert.equal(errors[0].fatal, false);
      assert.match(errors[0].message, /test fault: island 1 throws at iteration 4/);
      assert.deepEqual(result.islands[1].error, { message: errors[0].message, iteration: 4 });
      assert.equal(result.solved, true, mode);
      assert.notEqual(result.foundBy, 1);
    }
  });

  it('a worker that exits gives an island-error too, never a hang', async () => {
    const { result, events } = await withFault({ island: 0, atIteration: 3, kind: 'exit' }, (launcher) =>
      run(options({ islands: 2, migration: { mode: 'sync', interval: 2 }, launcher })),
    );
    const errors = ofType(events, 'island-error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0].island, 0);
    assert.equal(errors[0].iteration, 3);
    assert.match(errors[0].message, /exited with code: 70/);
    assert.equal(result.solved, true);
    assert.equal(result.foundBy, 1);
  });

  it("onIslandError: 'fail' stops the run and rejects naming the island", async () => {
    // Sync with interval 2: island 0 cannot pass iteration 2 before island 1 has faulted, so no
    // solution can come first however the threads are scheduled.
    const events: ArchipelagoEvent[] = [];
    await withFault({ island: 1, atIteration: 2, kind: 'throw' }, async (launcher) => {
      const archipelago = startArchipelago(
        options({ islands: 2, n: 60, onIslandError: 'fail', migration: { mode: 'sync', interval: 2 }, launcher }),
      );
      archipelago.events$.subscribe((e) => events.push(e));
      await assert.rejects(
        archipelago.result,
        (e: Error) => e instanceof IslandFailedError && /^island 1 failed at iteration 2: test fault/.test(e.message),
      );
    });
    assert.equal(ofType(events, 'island-error')[0].fatal, true);
    const done = ofType(events, 'done')[0];
    assert.equal(done.result.islands[0].stopReason, 'stopped');
  });

  it('stop() stops every island and reports the best so far', async () => {
    const archipelago = startArchipelago(options({ islands: 2, n: 400, populationSize: 200 }));
    const events: ArchipelagoEvent[] = [];
    archipelago.events$.subscribe((e) => {
      events.push(e);
      if (e.type === 'progress') archipelago.stop();
    });
    const result = await archipelago.result;
    assert.equal(result.solved, false);
    assert.equal(result.solution, null);
    assert.equal(result.foundBy, null);
    assert.ok(result.best && result.best.length === 400);
    assert.ok(result.fitness > 0);
    assert.ok(result.stopLatencyMs !== null);
    for (const island of result.islands) assert.equal(island.stopReason, 'stopped');
    assert.equal(ofType(events, 'solution').length, 0);
  });

  it('maxIterations and timeLimitMs end the run', async () => {
    const capped = await run(
      options({ islands: 2, n: 200, populationSize: 50, maxIterations: 7, migration: { mode: 'sync', interval: 3 } }),
    );
    for (const island of capped.result.islands) {
      assert.equal(island.iterations, 7);
      assert.equal(island.stopReason, 'max-iterations');
    }
    assert.equal(capped.result.stopLatencyMs, null);
    // A board no run solves within seconds (N = 400 solved in about a second on a loaded machine,
    // where the limit's timer can fire that late): the time limit is what ends it, whatever the load.
    const timed = await run(options({ islands: 2, n: 3000, populationSize: 20, timeLimitMs: 300 }));
    assert.equal(timed.result.solved, false);
    for (const island of timed.result.islands) assert.equal(island.stopReason, 'stopped');
  });
});
