/**
 * Lagged migration (bounded staleness): a run is a function of its seed and config alone.
 * The same run twice gives the same record but for timings; so does a run in which one
 * island sleeps in every iteration (the others wait for its migrants, or run ahead of it
 * and report what they had at the first solution's iteration); lag 0 is sync's search.
 * Real worker threads; no sleeps as synchronisation (the slow island's sleep is the fault
 * under test, and nothing waits for it to end).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { LocalHost } from '../src/archipelago/local-host.ts';
import type { TestFault } from '../src/archipelago/test-fault.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import type { RunConfigInput } from '../src/config/schema.ts';
import { resultRecord, type SolveRecord } from '../src/run/result-record.ts';
import { startSeededRun, type SeededRunConfig } from '../src/run/start-run.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { withFault } from './fixtures/fault-host.ts';
import { reportProblem } from '../src/cluster/result-checks.ts';
import type { IslandReport } from '../src/archipelago/messages.ts';
import { repeatablePart } from './helpers.ts';

/** One pool of island workers for the file's runs, as a long-lived process keeps one (starting workers is most of a small run's cost). */
const host = new LocalHost(4);
after(() => host.close());

async function run(input: RunConfigInput, testFault?: TestFault): Promise<SolveRecord> {
  const config = resolveRunConfig(input, 'test') as SeededRunConfig;
  // The slowed island's worker reads its fault from its environment: a pool of its own.
  const result = testFault
    ? await withFault(testFault, (launcher) => startSeededRun(config, { launcher }).result)
    : await startSeededRun(config, { launcher: host }).result;
  return resultRecord(result, config);
}

const lagged = (o: Partial<RunConfigInput> & { n: number; seed: number }, migration: Record<string, unknown> = {}): RunConfigInput => ({
  islands: 2,
  ga: { populationSize: 100 },
  ...o,
  migration: { mode: 'lagged', lag: 2, interval: 1, migrants: 4, ...migration },
});

describe('lagged migration', { timeout: 120_000 }, () => {
  it('the same run twice in one process gives the same record but for timings, and migrants crossed', async () => {
    const config = lagged({ n: 60, seed: 7, islands: 4, topology: { kind: 'ring-bi' } }, { lag: 3, interval: 2 });
    const first = await run(config);
    const second = await run(config);
    assert.equal(first.solved, true);
    assert.deepEqual(validateSolution(first.solution!, 60), { valid: true });
    assert.deepEqual(repeatablePart(second), repeatablePart(first));
    assert.ok(
      first.islands.every((i) => i.migrantsAccepted > 0),
      JSON.stringify(first.islands),
    );
    // Every island reports its state at the first solution's iteration.
    assert.ok(
      first.islands.every((i) => i.iterations === first.foundAtIteration),
      JSON.stringify(first.islands),
    );
    assert.deepEqual(
      first.islands.filter((i) => i.stopReason === 'solved').map((i) => i.id),
      [first.foundBy],
    );
  });

  it('a slow island (sleeping 3 ms every iteration) changes nothing in the record', async () => {
    const config = lagged({ n: 48, seed: 3, islands: 3, topology: { kind: 'ring' } });
    const even = await run(config);
    for (const island of [0, 1, 2]) {
      const slowed = await run(config, { island, atIteration: 1, kind: 'slow', delayMs: 3 });
      assert.deepEqual(repeatablePart(slowed), repeatablePart(even), `island ${island} slowed`);
    }
  });

  it('islands that take in nothing run ahead of a slow finder and still report their state at its iteration', async () => {
    // No edges: nothing holds the fast islands back but the history window; they pass the cut.
    const config = lagged({ n: 40, seed: 5, islands: 3, topology: { kind: 'none' } });
    const even = await run(config);
    assert.equal(even.solved, true);
    const slowed = await run(config, { island: even.foundBy!, atIteration: 0, kind: 'slow', delayMs: 4 });
    assert.deepEqual(repeatablePart(slowed), repeatablePart(even));
    assert.ok(even.islands.every((i) => i.iterations === even.foundAtIteration));
  });

  it('an unsolved run ends every island at the iteration limit, the same twice', async () => {
    const config = lagged({ n: 400, seed: 2, limits: { maxIterations: 30 } }, { lag: 1, migrants: 3 });
    const [a, b] = [await run(config), await run(config, { island: 1, atIteration: 5, kind: 'slow', delayMs: 2 })];
    assert.equal(a.solved, false);
    assert.deepEqual(repeatablePart(b), repeatablePart(a));
    assert.deepEqual(
      a.islands.map((i) => [i.iterations, i.migrantsSent, i.stopReason]),
      [
        [30, 90, 'max-iterations'],
        [30, 90, 'max-iterations'],
      ],
    );
    // Lag 1: migrants sent at iterations 1..29 entered at 2..30 (those sent at 30 would enter at 31).
    assert.ok(a.islands.every((i) => i.migrantsAccepted <= 29 * 3));
  });

  it('lag 0 is the search of sync mode: the same finder, iteration, solution and evaluations', async () => {
    for (const interval of [1, 3]) {
      const base = { n: 32, seed: 11, islands: 3, topology: { kind: 'ring' as const } };
      const zero = await run(lagged(base, { lag: 0, interval }));
      const sync = await run({ ...base, ga: { populationSize: 100 }, migration: { mode: 'sync', interval, migrants: 4 } });
      assert.deepEqual(
        [zero.solution, zero.foundBy, zero.foundAtIteration],
        [sync.solution, sync.foundBy, sync.foundAtIteration],
        `interval ${interval}`,
      );
      if (interval === 1) assert.equal(zero.evaluations, sync.evaluations);
    }
  });
});

describe("a lagged island's report past the cut, as a coordinator checks it", () => {
  // [2, 0, 3, 1] is a solution of N = 4; [0, 1, 2, 3] has every queen on one diagonal (fitness 3).
  const report = (stopReason: string, best: number[], bestFitness: number) =>
    ({ stopReason, best: Uint16Array.from(best), bestFitness, solution: null }) as unknown as IslandReport;

  it('takes the counters at the cut beside the chromosome held now (other-solved), and still checks its shape', () => {
    // Its fitness at the cut was 9; it holds a better chromosome now (a report dropped for this hung the run).
    assert.equal(reportProblem(report('other-solved', [0, 1, 2, 3], 9), 4), null);
    assert.match(reportProblem(report('other-solved', [0, 1, 1, 3], 6), 4) ?? '', /^best chromosome /);
    // Any other island's fitness claim is checked against its chromosome.
    assert.match(reportProblem(report('max-iterations', [0, 1, 2, 3], 9), 4) ?? '', /claims fitness 9 for a best chromosome of fitness 3/);
    assert.equal(reportProblem(report('max-iterations', [0, 1, 2, 3], 3), 4), null);
  });
});
