import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { LocalHost } from '../src/archipelago/local-host.ts';
import { startArchipelago, type ArchipelagoOptions, type ArchipelagoResult } from '../src/archipelago/archipelago.ts';
import { ConfigError } from '../src/config/errors.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { childrenPerIteration, paperParams } from '../src/ga/params.ts';
import { endingOf } from '../src/run/result-record.ts';
import { startSeededRun } from '../src/run/start-run.ts';
import { cliInProcess, isOneLineError } from './cli-helpers.ts';

const N = 20;
const POPULATION = 40;
// One warm pool for every run: each run's cost is its search, not thread start-up.
const host = new LocalHost(3);
after(() => host.close());
const { n: _n, ...params } = paperParams(N, { populationSize: POPULATION });

function options(interval: number, seed: number, mode: 'sync' | 'async' = 'sync'): ArchipelagoOptions {
  return {
    run: {
      n: N,
      seed,
      islands: 3,
      ga: { mode: 'paper', ...params },
      topology: { kind: 'none' },
      migration: {
        mode,
        lag: 0,
        interval,
        migrants: 1,
        emigrantSelection: { kind: 'best' },
        replacement: 'worst-if-better',
        rejectDuplicates: false,
      },
      limits: { maxIterations: null, maxEvaluations: null, timeLimit: null },
      onIslandError: 'continue',
    },
    launcher: host,
  };
}

async function run(o: ArchipelagoOptions): Promise<ArchipelagoResult> {
  return startArchipelago(o).result;
}

describe('evaluations to solution (sync)', () => {
  it('topology none at interval 1 and at interval 50, same seeds: identical evaluations to solution; what ran on to the barrier is counted apart', async () => {
    let after50 = 0;
    for (const seed of [1, 2, 3, 4]) {
      const one = await run(options(1, seed));
      const fifty = await run(options(50, seed));
      assert.ok(one.solved && fifty.solved, `seed ${seed} solves`);
      // Without migration the islands' searches do not depend on the interval: same winner, same iteration.
      assert.deepEqual(
        [fifty.foundBy, fifty.foundAtIteration, fifty.solution],
        [one.foundBy, one.foundAtIteration, one.solution],
        `seed ${seed}`,
      );
      assert.equal(fifty.evaluations, one.evaluations, `seed ${seed}: evaluations to solution`);
      assert.deepEqual(
        fifty.islands.map((i) => i.evaluations),
        one.islands.map((i) => i.evaluations),
        `seed ${seed}: per island`,
      );
      // Independently: a paper island evaluates its M + b initial members, then the same number
      // of children every iteration; a non-winner is counted through the winning iteration k
      // (an island that found a solution too stopped at it, within its generation).
      const k = one.foundAtIteration!;
      for (const island of one.islands) {
        if (island.stopReason === 'solved' || island.stopReason === 'also-solved') continue;
        const expected = POPULATION + params.badRepositorySize + k * childrenPerIteration({ n: N, ...params });
        assert.equal(island.evaluations, expected, `seed ${seed}: island ${island.id} through iteration ${k}`);
      }
      // Interval 1: every island stops at the barrier right after the winning iteration.
      assert.equal(one.evaluationsAfterSolution, 0, `seed ${seed}`);
      assert.ok(fifty.evaluationsAfterSolution !== null && fifty.evaluationsAfterSolution >= 0);
      assert.equal(
        fifty.evaluationsAfterSolution,
        fifty.islands.reduce((s, i) => s + i.evaluationsAfterSolution!, 0),
      );
      after50 += fifty.evaluationsAfterSolution;
    }
    // The islands did run on to the barrier at interval 50: without counting apart, the totals would differ.
    assert.ok(after50 > 0, 'some evaluations past the solution at interval 50');
  });

  it('async runs count everything each island evaluated until it stopped (nothing apart)', async () => {
    const result = await run(options(1, 1, 'async'));
    assert.equal(result.solved, true);
    assert.equal(result.evaluationsAfterSolution, null);
    for (const island of result.islands) assert.equal(island.evaluationsAfterSolution, null);
  });
});

describe('limits.maxEvaluations', () => {
  /** A board of 64 takes far more than the budgets below: every run here ends at the budget. */
  const budgetRun = (overrides: Record<string, unknown>, seed = 1) => {
    const config = resolveRunConfig({ n: 64, islands: 3, ga: { populationSize: 40 }, ...overrides }, 'test');
    return startSeededRun({ ...config, seed }, { launcher: host }).result;
  };

  it('sync: an unsolved run stops at the last iteration t whose evaluations are within the budget: the run limited to t iterations, exactly', async () => {
    for (const migration of [
      { mode: 'sync', interval: 1 },
      { mode: 'sync', interval: 7 },
    ]) {
      for (const topology of [{ kind: 'none' }, { kind: 'ring' }]) {
        const result = await budgetRun({ migration, topology, limits: { maxEvaluations: 2000 } });
        const where = `${migration.mode} every ${migration.interval}, ${topology.kind}`;
        assert.equal(result.solved, false, where);
        const t = result.islands[0].iterations;
        assert.ok(
          result.islands.every((i) => i.iterations === t && i.stopReason === 'max-evaluations'),
          where,
        );
        assert.equal(endingOf(result), 'max-evaluations', where);
        const at = (maxIterations: number) => budgetRun({ migration, topology, limits: { maxIterations } });
        const [within, past] = [await at(t), await at(t + 1)];
        assert.deepEqual(
          result.islands.map((i) => [i.evaluations, i.bestFitness, i.migrantsAccepted]),
          within.islands.map((i) => [i.evaluations, i.bestFitness, i.migrantsAccepted]),
          where,
        );
        assert.deepEqual(
          [result.evaluations, result.fitness, result.trajectory],
          [within.evaluations, within.fitness, within.trajectory],
          where,
        );
        assert.ok(within.evaluations <= 2000 && past.evaluations > 2000, `${where}: ${within.evaluations} then ${past.evaluations}`);
      }
    }
  });

  it('async: stops every unsolved run at exactly the budget, each island at its share (budget / islands, the first budget mod islands one more)', async () => {
    // 3 islands × 48 first-population evaluations (40 + bad repository 8) = 144; 2000 = 667 + 667 + 666.
    for (const migration of [{ mode: 'async', interval: 1 }]) {
      for (const topology of [{ kind: 'none' }, { kind: 'ring' }]) {
        const result = await budgetRun({ migration, topology, limits: { maxEvaluations: 2000 } });
        const where = `${migration.mode} every ${migration.interval}, ${topology.kind}`;
        assert.equal(result.solved, false, where);
        assert.equal(result.evaluations, 2000, where);
        assert.deepEqual(
          result.islands.map((i) => i.evaluations),
          [667, 667, 666],
          where,
        );
        assert.deepEqual(
          result.islands.map((i) => i.stopReason),
          ['max-evaluations', 'max-evaluations', 'max-evaluations'],
          where,
        );
        assert.equal(endingOf(result), 'max-evaluations', where);
      }
    }
  });

  it('sync: the same seed stops at the same place (iterations, best fitness), migration or not', async () => {
    for (const topology of [{ kind: 'none' }, { kind: 'ring' }]) {
      const config = { migration: { mode: 'sync', interval: 3 }, topology, limits: { maxEvaluations: 3001 } };
      const [a, b] = [await budgetRun(config, 5), await budgetRun(config, 5)];
      const shape = (r: typeof a) => r.islands.map((i) => [i.iterations, i.evaluations, i.bestFitness, i.migrantsAccepted]);
      assert.deepEqual(shape(a), shape(b), topology.kind);
      assert.deepEqual([a.fitness, a.best], [b.fitness, b.best], topology.kind);
    }
  });

  it('the hybrid mode keeps the budget too', async () => {
    const result = await budgetRun({
      ga: { mode: 'hybrid', populationSize: 20 },
      migration: { mode: 'sync' },
      limits: { maxEvaluations: 301 },
    });
    assert.ok(result.evaluations <= 301, `${result.evaluations}`);
    if (!result.solved) assert.ok(result.islands.every((i) => i.stopReason === 'max-evaluations'));
  });

  it('a budget that cannot pay for the first populations is refused, naming the key and the least it must be', () => {
    assert.throws(
      () => resolveRunConfig({ n: 64, islands: 3, ga: { populationSize: 40 }, limits: { maxEvaluations: 143 } }, 'run.yaml'),
      (e: Error) =>
        e instanceof ConfigError &&
        e.message ===
          'run.yaml: limits.maxEvaluations: 143 does not pay for the first populations: 3 islands × 48 evaluations each; expected at least 144',
    );
  });
});

describe('the CLI', () => {
  it('solve --max-evaluations: the record ends max-evaluations within the budget, every island at the same iteration; a budget below the first populations is one line, exit 2', async () => {
    const r = await cliInProcess([
      'solve',
      '-n',
      '64',
      '--seed',
      '2',
      '--islands',
      '2',
      '--population',
      '40',
      '--max-evaluations',
      '1001',
      '--json',
    ]);
    assert.equal(r.code, 1, r.stderr);
    const record = JSON.parse(r.stdout);
    assert.deepEqual([record.solved, record.ended, record.config.limits.maxEvaluations], [false, 'max-evaluations', 1001]);
    const islands: { evaluations: number; iterations: number }[] = record.islands;
    assert.ok(record.evaluations <= 1001, `${record.evaluations}`);
    assert.equal(
      islands.reduce((sum, i) => sum + i.evaluations, 0),
      record.evaluations,
    );
    assert.equal(new Set(islands.map((i) => i.iterations)).size, 1);
    const low = await cliInProcess(['solve', '-n', '64', '--islands', '2', '--population', '40', '--max-evaluations', '95']);
    assert.ok(isOneLineError(low), low.stderr);
    assert.match(
      low.stderr,
      /--max-evaluations: 95 does not pay for the first populations: 2 islands × 48 evaluations each; expected at least 96/,
    );
    assert.match((await cliInProcess(['solve', '--help'])).stdout, /--max-evaluations +evaluation budget of the run/);
  });

  it('a run stopped at once whose islands hold a solution in their first populations prints it solved (N = 5: every population of 40 holds one)', async () => {
    for (const mode of ['async', 'sync']) {
      const r = await cliInProcess([
        'solve',
        '-n',
        '5',
        '--seed',
        '1',
        '--islands',
        '2',
        '--population',
        '40',
        '--migration',
        mode,
        '--time-limit',
        '0.000001',
        '--json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const record = JSON.parse(r.stdout);
      assert.deepEqual([record.solved, record.fitness, record.foundAtIteration], [true, 0, 0], mode);
      assert.equal(record.islands.filter((i: { stopReason: string }) => i.stopReason === 'solved').length, 1, mode);
    }
  });
});
