import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CourseLog } from '../src/archipelago/course-log.ts';
import { combineCourses } from '../src/archipelago/trajectory.ts';
import { gaInitialEvaluations } from '../src/config/ga-section.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import type { RunRecord } from '../src/experiment/records.ts';
import { runStudy } from '../src/experiment/runner.ts';
import { readRuns } from '../src/experiment/store.ts';
import { cellFileName } from '../src/experiment/sweep.ts';
import { IOH_DAT_HEADER, iohFiles } from '../src/report/exports/ioh-export.ts';
import { readStudy } from '../src/report/data/study-data.ts';
import type { ArchipelagoEvent } from '../src/archipelago/events.ts';
import { RecordEvents, recordHolds } from '../src/archipelago/record-cut.ts';
import type { ArchipelagoResult } from '../src/archipelago/events.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { startSeededRun, type RunResult, type SeededRunConfig } from '../src/run/start-run.ts';
import type { TestFault } from '../src/archipelago/test-fault.ts';
import { withFault } from './fixtures/fault-host.ts';
import { SYNC_LAGGED_STUDY } from './helpers.ts';
import type { Launcher } from '../src/archipelago/launcher.ts';

/** A course log of (iteration, evaluations, best) for every iteration of `course`. */
function logOf(course: [number, number, number][]): Float64Array {
  const log = new CourseLog();
  for (const [t, e, b] of course) log.note(t, e, b);
  return log.entries();
}

describe('course logs and the trajectory combined from them', () => {
  it('an island logs its first iteration, its improvements, where its evaluations per iteration change, and its last', () => {
    // 100 initial, then 10 an iteration, then 12 (immigrants from iteration 4 on).
    const course: [number, number, number][] = [
      [0, 100, 30],
      [1, 110, 28],
      [2, 120, 28],
      [3, 130, 28],
      [4, 142, 28],
      [5, 154, 25],
      [6, 166, 25],
      [7, 178, 25],
    ];
    assert.deepEqual([...logOf(course)], [0, 100, 30, 1, 110, 28, 3, 130, 28, 5, 154, 25, 7, 178, 25]);
  });

  it('reads every iteration back exactly: the sum of the islands through t, the least best, improvements only, the end last', () => {
    const a = logOf([
      [0, 100, 30],
      [1, 110, 28],
      [2, 120, 28],
      [3, 130, 20],
    ]);
    const b = logOf([
      [0, 100, 29],
      [1, 112, 29],
      [2, 124, 27],
      [3, 136, 27],
    ]);
    assert.deepEqual(combineCourses([a, b], Infinity, { evaluations: 266, fitness: 20 }), [
      [200, 29],
      [222, 28],
      [244, 27],
      [266, 20],
    ]);
    // A solved run: iterations from the winning one (3) on are not points; the end is.
    assert.deepEqual(combineCourses([a, b], 3, { evaluations: 250, fitness: 0 }), [
      [200, 29],
      [222, 28],
      [244, 27],
      [250, 0],
    ]);
    // A log from another host that is not one (uneven growth, a rising best, not a Float64Array) is left out.
    const uneven = Float64Array.from([0, 100, 30, 3, 131, 20]);
    const rising = Float64Array.from([0, 100, 30, 1, 110, 31]);
    assert.deepEqual(combineCourses([a, uneven, rising, [1, 2, 3] as never, null], Infinity, { evaluations: 130, fitness: 20 }), [
      [100, 30],
      [110, 28],
      [130, 20],
    ]);
  });
});

const dir = mkdtempSync(path.join(tmpdir(), 'nqi-trajectory-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A record without what depends on timing: seconds, latencies, when it finished, and the provenance's machine state. */
function untimed(record: RunRecord): unknown {
  return JSON.parse(
    JSON.stringify(record, (key, value: unknown) =>
      ['seconds', 'startupSeconds', 'stopLatencyMs', 'foundAtSeconds', 'finishedAt', 'provenance'].includes(key) ? undefined : value,
    ),
  );
}

describe('a seeded study repeats its records, trajectories and observables included', () => {
  it('sync and lagged cells of 3 islands, run twice: the same runs.jsonl but for timings; exact trajectories', async () => {
    const file = path.join(dir, 'repeat.yaml');
    writeFileSync(file, SYNC_LAGGED_STUDY);
    const experiment = loadExperiment(file, { availableParallelism: 4, totalMemory: 16e9 });
    const records = async (name: string) => {
      const out = path.join(dir, name);
      await runStudy(experiment, { outDir: out, resume: false, events: false });
      return readRuns(path.join(out, 'runs.jsonl')).runs.sort((x, y) => x.cell.localeCompare(y.cell) || x.seed - y.seed);
    };
    const first = await records('first');
    const second = await records('second');
    assert.equal(first.length, 6);
    assert.deepEqual(second.map(untimed), first.map(untimed));
    for (const r of first) {
      const t = r.trajectory!;
      assert.ok(t.length >= 2, `${r.cell} seed ${r.seed}: ${JSON.stringify(t)}`);
      // Every island's initial population: M = 30 members and the paper's bad repository.
      const initial = gaInitialEvaluations(experiment.cells.find((c) => c.id === r.cell)!.config.ga);
      assert.equal(initial, 30 + 6);
      assert.equal(t[0][0], 3 * initial, 'the first point counts every initial population');
      for (let i = 1; i < t.length - 1; i++) assert.ok(t[i][0] > t[i - 1][0] && t[i][1] < t[i - 1][1], `an improvement at ${i}`);
      assert.deepEqual(t[t.length - 1], [r.evaluations, r.fitness], 'the last point is the run');
    }
    // The study exercises both ends: runs that solved and runs that reached the limit.
    assert.ok(first.some((r) => r.solved) && first.some((r) => !r.solved));
    // The IOH export (report --ioh): each cell's .dat blocks are its runs' trajectories.
    const files = iohFiles(readStudy(path.join(dir, 'first')));
    for (const cell of experiment.cells) {
      const dat = files.find((f) => f.path.startsWith(`${cellFileName(cell.id)}/`) && f.path.endsWith('.dat'))!;
      const blocks = dat.text
        .trim()
        .split(`${IOH_DAT_HEADER}\n`)
        .slice(1)
        .map((block) =>
          block
            .trim()
            .split('\n')
            .map((line) => line.split(' ').map(Number)),
        );
      const byText = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
      const trajectories = first.filter((r) => r.cell === cell.id).map((r) => r.trajectory);
      assert.equal(blocks.length, 3);
      assert.deepEqual(blocks.sort(byText), trajectories.sort(byText), cell.id);
    }
  });
});

describe("lagged: what islands did past the run's cut is not in the record", () => {
  it("an event is kept up to the iteration its island's record counts; a failed island keeps all; between as the series", () => {
    const island = (id: number, iterations: number, migrantsReceived: number, stopReason: string | null) =>
      ({ id, iterations, migrantsReceived, stopReason }) as ArchipelagoResult['islands'][number];
    const result = {
      islands: [island(0, 20, 8, 'solved'), island(1, 20, 4, 'other-solved'), island(2, 7, 0, null)],
      between: [{ iteration: 16, meanDistance: 0.5, distinct: 3, sampled: 4 }],
    } as ArchipelagoResult;
    const holds = recordHolds(result);
    const progress = (i: number, iteration: number) => ({ type: 'progress', island: i, iteration }) as ArchipelagoEvent;
    const survival = (to: number, iteration: number) => ({ type: 'survival', to, iteration, after: 10 }) as ArchipelagoEvent;
    const migration = (to: number, sent: number) => ({ type: 'migration', to, sent }) as ArchipelagoEvent;
    const between = (iteration: number) => ({ type: 'between', iteration }) as ArchipelagoEvent;
    const kept = [
      progress(1, 20),
      progress(1, 21),
      progress(2, 30),
      survival(0, 10),
      survival(0, 11),
      migration(1, 4),
      migration(1, 4),
      migration(2, 4),
      between(16),
      between(24),
    ].map(holds);
    assert.deepEqual(kept, [true, false, true, true, false, true, false, true, true, false]);
  });

  /** A run's result, its events as they came, and the lines a study's events/ file keeps. */
  async function lagged(fault?: TestFault): Promise<{ result: RunResult; raw: ArchipelagoEvent[]; kept: string[] }> {
    const config = resolveRunConfig(
      {
        n: 48,
        seed: 3,
        islands: 3,
        topology: { kind: 'ring' },
        ga: { populationSize: 100 },
        migration: { mode: 'lagged', lag: 3, interval: 1, migrants: 4 },
      },
      'test',
    ) as SeededRunConfig;
    const go = async (launcher?: Launcher) => {
      const run = startSeededRun(config, launcher ? { launcher } : {});
      const raw: ArchipelagoEvent[] = [];
      const recorded = new RecordEvents();
      run.events$.subscribe((e) => {
        raw.push(e);
        recorded.add(e);
      });
      const result = await run.result;
      return { result, raw, kept: recorded.lines(result) };
    };
    return fault ? withFault(fault, go) : go();
  }

  /**
   * The kept events that must repeat: migrations, survival checks and between samples, without their clock and
   * sorted (how the islands' messages interleave is timing).
   */
  const repeatable = (kept: string[]) =>
    kept
      .map((line) => JSON.parse(line) as ArchipelagoEvent)
      .filter((e) => e.type === 'migration' || e.type === 'survival' || e.type === 'between')
      .map((e) => ({ ...e, seconds: undefined }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  it('the finder slowed: the others run past its iteration, and the record and kept events are those of the even run', async () => {
    const even = await lagged();
    assert.equal(even.result.solved, true);
    const cut = even.result.foundAtIteration!;
    // 8 ms an iteration: with 3 ms, on a crowded machine (npm test runs four files at once beside other
    // work) the others' threads at times waited as long for a core and ran no further than the finder.
    const slowed = await lagged({ island: even.result.foundBy!, atIteration: 1, kind: 'slow', delayMs: 8 });
    // The fault did what it is for: some island sent progress past the iteration its record counts.
    const past = slowed.raw.filter((e) => e.type === 'progress' && e.iteration > slowed.result.islands[e.island].iterations);
    assert.ok(past.length > 0, 'an island ran past the cut');
    assert.deepEqual(slowed.result.between, even.result.between);
    assert.ok(even.result.between!.length >= 4 && even.result.between!.every((p) => p.iteration < cut));
    const kept = repeatable(slowed.kept);
    assert.deepEqual(kept, repeatable(even.kept));
    assert.ok(kept.some((e) => e.type === 'migration') && kept.some((e) => e.type === 'survival'));
    // The kept migrations agree with the record's counts: each island took in what its record says it received.
    for (const island of slowed.result.islands) {
      const received = kept
        .filter((e) => e.type === 'migration' && e.to === island.id)
        .reduce((sum, e) => sum + (e as { sent: number }).sent, 0);
      assert.equal(received, island.migrantsReceived, `island ${island.id}`);
    }
  });
});
