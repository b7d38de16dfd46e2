/**
 * A time limit or a signal while the islands still build their populations (start-up) is a
 * limit or a signal: the run ends as one, with the best member built so far or none (said
 * so), never as failed islands terminated after the stop's grace period. The GA side (an
 * island's constructor throws `BuildStopped`) is tested directly; the rest through the real
 * CLI with real workers, on builds long enough that the stop finds them unfinished.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BuildStopped } from '../src/ga/errors.ts';
import { HybridIsland } from '../src/ga/hybrid/hybrid-island.ts';
import { hybridParams } from '../src/ga/hybrid/params.ts';
import { Island } from '../src/ga/island.ts';
import { paperParams } from '../src/ga/params.ts';
import { randomPermutation } from '../src/ga/permutation.ts';
import { Rng } from '../src/ga/rng.ts';
import { DiagonalMarks, fitness } from '../src/problem/fitness.ts';
import { cli, spawnCli } from './cli-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-startup-stop-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A `shouldStop` that says yes from its `k`-th call on (1-based). */
const stopAtCall = (k: number) => {
  let calls = 0;
  return () => ++calls >= k;
};

function built(make: () => unknown): BuildStopped {
  try {
    make();
  } catch (error) {
    if (error instanceof BuildStopped) return error;
    throw error;
  }
  assert.fail('the island was built although a stop was asked for');
}

describe('a stop during the population build (GA side)', () => {
  // Members of 70,000 genes: the build asks for a stop every 65,536 genes (BUILD_STOP_GRANULE).
  const n = 70_000;
  const paper = (shouldStop?: () => boolean) =>
    new Island({ params: paperParams(n, { populationSize: 6, badRepositorySize: 0 }), rng: Rng.forStream(3, 0), shouldStop });
  const hybrid = (shouldStop?: () => boolean) =>
    new HybridIsland({ params: hybridParams(n, { populationSize: 6 }), rng: Rng.forStream(3, 0), shouldStop });
  /** The members each mode draws with this seed, in build order, built without a stop. */
  const members = {
    paper: (k: number) => {
      const rng = Rng.forStream(3, 0);
      return Array.from({ length: k }, () => {
        const genes = new Int32Array(n);
        randomPermutation(genes, 0, n, rng);
        return genes;
      });
    },
    hybrid: (k: number) => {
      const whole = hybrid();
      return Array.from({ length: k }, (_, s) => whole.population.genes.slice(s * n, (s + 1) * n));
    },
  };
  for (const [mode, make] of [
    ['paper', paper],
    ['hybrid', hybrid],
  ] as const) {
    it(`${mode}: a stop carries the best member built so far, a real permutation with its fitness`, () => {
      for (const k of [1, 2, 4]) {
        const stopped = built(() => make(stopAtCall(k)));
        if (stopped.evaluations === 0) {
          assert.equal(stopped.best, null);
          continue;
        }
        assert.ok(stopped.best);
        const scores = members[mode](stopped.evaluations).map((genes) => ({
          genes: [...genes],
          fitness: fitness(genes, 0, n, new DiagonalMarks(n)),
        }));
        const best = scores.reduce((a, b) => (b.fitness < a.fitness ? b : a));
        assert.equal(stopped.best.fitness, best.fitness, `stop at call ${k}`);
        assert.deepEqual([...stopped.best.genes], best.genes);
      }
    });
  }

  it('hybrid: a stop inside the first smart start (checked every 65,536 columns) leaves no member', () => {
    const stopped = built(() => hybrid(stopAtCall(1)));
    assert.equal(stopped.best, null);
    assert.equal(stopped.evaluations, 0);
  });

  it('a small build completes whatever the stop says (its first population may hold a solution to report)', () => {
    assert.equal(
      new HybridIsland({ params: hybridParams(64, { populationSize: 6 }), rng: Rng.forStream(3, 0), shouldStop: () => true }).evaluations,
      6,
    );
    assert.equal(
      new Island({ params: paperParams(64, { populationSize: 20 }), rng: Rng.forStream(3, 0), shouldStop: () => true }).evaluations,
      28,
    );
  });
});

describe('a stop during start-up (real CLI, real workers)', () => {
  // Sixteen smart starts of three million queens: seconds of building on any machine.
  const big = ['solve', '--config', 'config/large-n.yaml', '-n', '3000000', '--population', '16', '--islands', '2', '--seed', '1'];

  const assertStoppedInStartup = (
    record: {
      ended: string;
      solved: boolean;
      iterations: number;
      islands: { stopReason: string | null; error?: unknown }[];
      failures: unknown[];
    },
    ended: string,
  ) => {
    assert.equal(record.ended, ended);
    assert.equal(record.solved, false);
    assert.equal(record.iterations, 0);
    assert.deepEqual(record.failures, []);
    assert.ok(
      record.islands.every((i) => i.stopReason === 'stopped' && i.error === undefined),
      JSON.stringify(record.islands),
    );
  };

  it('--time-limit during the build: exit 1, ended time-limit, no island failed', () => {
    const r = cli([...big, '--time-limit', '0.3', '--json']);
    assert.equal(r.code, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /did not stop|failed/);
    const record = JSON.parse(r.stdout);
    assertStoppedInStartup(record, 'time-limit');
    // Stopped before any member was complete, or with the best one built: either is said.
    if (record.best === null) assert.equal(record.fitness, -1);
    else assert.equal(record.best.length, 3_000_000);
  });

  it('--time-limit during the build, as text: says that the run stopped during start-up', () => {
    const r = cli([...big, '--time-limit', '0.3']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stdout,
      /^not solved N=3000000 \(time-limit\): (stopped during start-up, before any island had built a chromosome|best fitness \d+ )/,
    );
    assert.match(r.stdout, /^0 iterations; /m);
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} during start-up: exit ${code}, ended ${signal}, no island failed`, async () => {
      const run = spawnCli([...big, '--json'], { env: { NQUEENS_ISLANDS_TEST_SIGNAL_NOTE: '1' } });
      await run.waitForStderr(/run launched/);
      run.child.kill(signal);
      const exit = await run.exited;
      assert.equal(exit.code, code, run.stderr());
      assert.doesNotMatch(run.stderr(), /did not stop|failed/);
      assertStoppedInStartup(JSON.parse(run.stdout()), signal);
    });
  }
});
