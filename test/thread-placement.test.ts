/**
 * The worker threads a run uses: a run's record names them (outside configHash), and the
 * pool `solve` starts before its flags are parsed keeps to `--threads`. In-process (`runCli`,
 * a real pool of worker threads).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startEarlyHost, takeEarlyHost, workersHint } from '../src/cli/early-host.ts';
import { readRuns } from '../src/experiment/store.ts';
import { cliInProcess } from './cli-helpers.ts';
import { osThreads } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel5-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe("a run's record names its placement", () => {
  it('solve: `threads` is the worker threads used, given or not, and configHash ignores it', async () => {
    const records = [];
    for (const flags of [[], ['--threads', '1'], ['--threads', '2']]) {
      const r = await cliInProcess(['solve', '-n', '10', '--islands', '3', '--seed', '4', '--json', ...flags]);
      assert.equal(r.code, 0, r.stderr);
      records.push(JSON.parse(r.stdout) as { threads?: number; config: { threads?: number }; provenance: { configHash: string } });
    }
    // Not given: one per island up to the cores, as the pool placed them.
    const cores = Math.min(3, (await import('node:os')).availableParallelism());
    assert.deepEqual(
      records.map((r) => [r.threads, r.config.threads]),
      [
        [cores, undefined],
        [1, 1],
        [2, 2],
      ],
    );
    assert.equal(new Set(records.map((r) => r.provenance.configHash)).size, 1);
    // A board answered without a run used no thread.
    const small = await cliInProcess(['solve', '-n', '1', '--json']);
    assert.equal((JSON.parse(small.stdout) as { threads?: number }).threads, 0);
    // verify --file takes a record with it (its `solution`).
    const saved = join(tmp, 'record.json');
    writeFileSync(saved, small.stdout);
    const verified = await cliInProcess(['verify', '--file', saved, '-n', '1']);
    assert.equal(verified.code, 0, verified.stderr);
  });

  it('experiment: each run record says its threads, and the report reads them', async () => {
    const file = join(tmp, 'study.yaml');
    writeFileSync(
      file,
      'base: { overrides: { n: 10, islands: 2, limits: { maxIterations: 50 } } }\nsweep:\n  threads: [1, 2]\nrepeats: 1\nseed: 1\n',
    );
    const out = join(tmp, 'study');
    const run = await cliInProcess(['experiment', file, '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const { runs } = readRuns(join(out, 'runs.jsonl'));
    assert.deepEqual(runs.map((r) => [r.values.threads, r.threads]).sort(), [
      [1, 1],
      [2, 2],
    ]);
    const report = await cliInProcess(['report', out, '--json']);
    assert.equal(report.code, 0, report.stderr);
  });
});

describe("solve's early worker pool", () => {
  it('boots one worker per island up to the cores, never more than --threads (a plain reading of argv, yargs judges later)', () => {
    const cases: [string[], number, number][] = [
      [['-n', '64', '--islands', '64', '--threads', '2'], 16, 2],
      [['-n', '64', '--islands=64', '--threads=2'], 16, 2],
      [['-n', '64', '--islands', '8'], 16, 8],
      [['-n', '64', '--islands', '64'], 16, 16],
      [['-n', '64'], 16, 16],
      [['-n', '64', '--threads', '3'], 16, 3],
      [['-n', '64', '--threads', '0'], 16, 16],
      [['-n', '64', '--threads', 'x'], 4, 4],
      [['-n', '64', '--threads', '2.5'], 4, 4],
      [['-n', '64', '--islands', '6', '--threads', '9'], 4, 4],
      [['-n', '3', '--threads', '2'], 16, 0],
      [['-n', '64', '--nats', 'nats://x', '--threads', '2'], 16, 0],
      [['--help'], 16, 0],
      // A config file may set threads (read later): no early pool unless --threads says how many.
      [['-n', '64', '--config', 'run.yaml'], 16, 0],
      [['-n', '64', '-c', 'run.yaml'], 16, 0],
      [['-n', '64', '--config=run.yaml', '--islands', '8'], 16, 0],
      [['-n', '64', '--config', 'run.yaml', '--threads', '2'], 16, 2],
      // A small run (config/defaults.ts SMALL_RUN): its islands share one thread unless --threads says otherwise.
      [['-n', '8'], 2, 1],
      [['-n', '100', '--islands', '2'], 16, 1],
      [['-n', '8', '--threads', '2'], 2, 2],
      [['-n', '101'], 2, 2],
      [['-n', '8', '--islands', '3'], 4, 3],
      [['-n', '8', '--mode', 'hybrid'], 2, 2],
      [['-n', '8', '--population', '2000'], 2, 2],
      [['-n', '8', '--island-groups', '{}'], 2, 2],
      [['-n', '8'], 16, 16],
    ];
    for (const [argv, cores, workers] of cases) assert.equal(workersHint(argv, cores), workers, argv.join(' '));
  });

  it('--islands 64 --threads 2 on a machine of 8 cores starts at most 2 worker threads; without --threads, 8', async (t) => {
    if (osThreads() === null) return t.skip('no /proc/self/status');
    const started = async (argv: string[]) => {
      const before = osThreads()!;
      startEarlyHost(argv, 8);
      const host = takeEarlyHost();
      assert.ok(host, argv.join(' '));
      const during = osThreads()! - before;
      await host.close();
      return during;
    };
    const capped = await started(['-n', '64', '--islands', '64', '--threads', '2']);
    // The 2 workers, and at most 4 of libuv's pool that an async file operation may start meanwhile.
    assert.ok(capped >= 2 && capped <= 2 + 4, `${capped} threads started`);
    assert.ok((await started(['-n', '64', '--islands', '64'])) >= 8, 'the same count without --threads');
  });
});
