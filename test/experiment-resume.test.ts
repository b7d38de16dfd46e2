import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI } from './cli-helpers.ts';
import { ROOT as root } from './paths.ts';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../src/config/errors.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { runStudy } from '../src/experiment/runner.ts';
import { readRuns, runKey } from '../src/experiment/store.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-exp-resume-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { availableParallelism: 2, totalMemory: 8e9 };

/** Every (cell, seed) of the folder's runs.jsonl, checked to be there exactly once. */
function assertEachRunOnce(out: string, cells: string[], seeds: number[]): void {
  const { runs, droppedBytes } = readRuns(path.join(out, 'runs.jsonl'));
  assert.equal(droppedBytes, 0);
  const keys = runs.map((r) => runKey(r.cell, r.seed));
  assert.equal(new Set(keys).size, keys.length, 'no run twice');
  const expected = cells.flatMap((c) => seeds.map((s) => runKey(c, s))).sort();
  assert.deepEqual([...keys].sort(), expected, 'no run lost');
}

/** One line of runs.jsonl as a study writes it (an unsolved one-island run). */
function runLine(cell: string, seed: number, change: Record<string, unknown> = {}): string {
  const island = { id: 0, iterations: 5, evaluations: 100, bestFitness: 2, migrantsSent: 0, migrantsAccepted: 0 };
  return JSON.stringify({
    cell,
    values: {},
    seed,
    solved: false,
    fitness: 2,
    seconds: 0.5,
    iterations: 5,
    evaluations: 100,
    foundBy: null,
    stopLatencyMs: null,
    migrantsSent: 0,
    migrantsAccepted: 0,
    islands: [island],
    solution: null,
    error: null,
    finishedAt: '2026-01-01T00:00:00.000Z',
    ...change,
  });
}

describe('readRuns', () => {
  it('drops (and with repair, cuts) a half-written last line', () => {
    const file = path.join(dir, 'half.jsonl');
    const torn = '{"cell":"b","se';
    writeFileSync(file, `${runLine('a', 1)}\n${torn}`);
    assert.equal(readRuns(file).runs.length, 1);
    assert.ok(readFileSync(file, 'utf8').endsWith(torn), 'read-only without repair');
    const repaired = readRuns(file, true);
    assert.equal(repaired.droppedBytes, torn.length);
    assert.equal(readFileSync(file, 'utf8'), `${runLine('a', 1)}\n`);
  });

  it('refuses a damaged complete line', () => {
    const file = path.join(dir, 'bad.jsonl');
    writeFileSync(file, `${runLine('a', 1)}\nnot json\n${runLine('b', 1)}\n`);
    assert.throws(() => readRuns(file), /bad\.jsonl:2: not a JSON line/);
  });

  it('refuses a complete line that is not a run record, naming the key', () => {
    const file = path.join(dir, 'types.jsonl');
    for (const [change, says] of [
      [{ seconds: 'fast' }, /types\.jsonl:2: not a run record \(seconds: expected number/],
      [{ islands: [3] }, /types\.jsonl:2: not a run record \(islands\[0\]: expected object/],
      [{ seed: -1 }, /types\.jsonl:2: not a run record \(seed: /],
      [{ solution: 'x' }, /types\.jsonl:2: not a run record \(solution: /],
    ] as const) {
      writeFileSync(file, `${runLine('a', 1)}\n${runLine('b', 1, change)}\n`);
      assert.throws(
        () => readRuns(file),
        (e: unknown) => e instanceof ConfigError && says.test(e.message),
        JSON.stringify(change),
      );
    }
    writeFileSync(file, `${runLine('a', 1)}\nnull\n`);
    assert.throws(() => readRuns(file), /types\.jsonl:2: not a run record \(expected object, received null\)/);
  });
});

describe('runStudy in-process (N = 1 boards: answered without threads)', () => {
  const file = path.join(dir, 'instant.yaml');
  writeFileSync(file, 'base: { overrides: { n: 1, islands: 1 } }\nsweep:\n  migration.interval: [1, 2, 3]\nrepeats: 4\nseed: 11\n');
  const experiment = loadExperiment(file, env);
  const cells = experiment.cells.map((c) => c.id);

  it('stops when aborted, resumes without loss or duplicates, survives a torn last line', async () => {
    const out = path.join(dir, 'instant-out');
    const controller = new AbortController();
    const first = await runStudy(experiment, {
      outDir: out,
      resume: false,
      events: true,
      signal: controller.signal,
      hooks: { onRunEnd: (_, index) => index === 4 && controller.abort() },
    });
    assert.deepEqual([first.completed, first.interrupted], [5, true]);
    // What a SIGKILL in the middle of an append leaves behind.
    appendFileSync(path.join(out, 'runs.jsonl'), '{"cell":"migration.interval=1","seed":');
    await assert.rejects(
      runStudy(experiment, { outDir: out, resume: false, events: true }),
      (e: unknown) => e instanceof ConfigError && /folder is not empty; add --resume/.test(e.message),
    );
    const second = await runStudy(experiment, { outDir: out, resume: true, events: true });
    assert.deepEqual([second.skipped, second.completed, second.interrupted], [5, 7, false]);
    assert.ok(second.droppedBytes > 0);
    assertEachRunOnce(out, cells, experiment.seeds);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    assert.equal(manifest.resumedAt.length, 1);
    assert.equal(manifest.experiment.text, experiment.text);
    assert.equal(readdirSync(path.join(out, 'events')).length, 12);
    const third = await runStudy(experiment, { outDir: out, resume: true, events: true });
    assert.deepEqual([third.skipped, third.completed], [12, 0]);
  });

  it('refuses to resume a folder made from another experiment file', async () => {
    const out = path.join(dir, 'other-out');
    await runStudy(experiment, { outDir: out, resume: false, events: false });
    writeFileSync(file, `${experiment.text}# changed\n`);
    const changed = loadExperiment(file, env);
    await assert.rejects(
      runStudy(changed, { outDir: out, resume: true, events: false }),
      /made from other files \(study sha256 [0-9a-f]{12}\.\.\., now [0-9a-f]{12}\.\.\.: .*instant\.yaml differs\); resume with the same files/,
    );
  });
});

describe('the real CLI, killed with SIGKILL mid-study and resumed', () => {
  it('loses no finished run and repeats none', async () => {
    const file = path.join(dir, 'killed.yaml');
    writeFileSync(
      file,
      'base: { overrides: { n: 20, islands: 2, ga: { populationSize: 60 }, limits: { timeLimit: 20 } } }\nsweep:\n  topology.kind: [ring, none]\nrepeats: 3\nseed: 3\n',
    );
    const out = path.join(dir, 'killed-out');
    const runsFile = path.join(out, 'runs.jsonl');
    const child = spawn(process.execPath, [CLI, 'experiment', file, '--out', out, '--events'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal === 'SIGKILL' ? null : code)));

    // Kill as soon as the first run is on disk: watch the folder, no sleeps.
    await new Promise<void>((resolve, reject) => {
      const lines = () => (existsSync(runsFile) ? readFileSync(runsFile, 'utf8').split('\n').filter(Boolean).length : 0);
      const check = () => {
        if (lines() >= 1) {
          watcher?.close();
          child.kill('SIGKILL');
          resolve();
        }
      };
      let watcher: ReturnType<typeof watch> | undefined;
      const startWatching = () => {
        watcher = watch(out, check);
        check();
      };
      child.on('exit', () => {
        watcher?.close();
        if (lines() >= 1) resolve();
        else reject(new Error(`the CLI ended before its first run: ${stderr}`));
      });
      // The CLI creates the folder; until then watch its parent.
      if (existsSync(out)) startWatching();
      else {
        const parent = watch(dir, () => {
          if (existsSync(out) && watcher === undefined) {
            parent.close();
            startWatching();
          }
        });
        child.on('exit', () => parent.close());
      }
    });
    await exited;
    const before = readRuns(runsFile).runs.length;
    assert.ok(before >= 1);

    const resumed = spawnSync(process.execPath, [CLI, 'experiment', file, '--out', out, '--events', '--resume'], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stderr, /6 runs \(\d+ new\)/);
    assertEachRunOnce(out, ['topology.kind=ring', 'topology.kind=none'], [3, 4, 5]);

    const again = spawnSync(process.execPath, [CLI, 'experiment', file, '--out', out], { cwd: root, encoding: 'utf8' });
    assert.equal(again.status, 2);
    assert.match(again.stderr, /^nqueens-islands: --out .*: folder is not empty; add --resume/);
    assert.equal(again.stderr.trim().split('\n').length, 1);
  });
});
