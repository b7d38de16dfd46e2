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
import { BuildStopped } from '../src/ga/build-stopped.ts';
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
  const n = 64;
  /** The first three members each mode draws with this seed, built without a stop. */
  const firstThree = {
    paper: () => {
      const rng = Rng.forStream(3, 0);
      return [0, 1, 2].map(() => {
        const genes = new Uint16Array(n);
        randomPermutation(genes, 0, n, rng);
        return genes;
      });
    },
    hybrid: () => {
      const whole = new HybridIsland({ params: hybridParams(n, { populationSize: 6 }), rng: Rng.forStream(3, 0) });
      return [0, 1, 2].map((s) => whole.population.genes.slice(s * n, (s + 1) * n));
    },
  };
  for (const [mode, make] of [
    ['paper', (k: number) => new Island({ params: paperParams(n, { populationSize: 20 }), rng: Rng.forStream(3, 0), shouldStop: stopAtCall(k) })],
    ['hybrid', (k: number) => new HybridIsland({ params: hybridParams(n, { populationSize: 6 }), rng: Rng.forStream(3, 0), shouldStop: stopAtCall(k) })],
  ] as const) {
    it(`${mode}: a stop before the first member leaves no best`, () => {
      const stopped = built(() => make(1));
      assert.equal(stopped.best, null);
      assert.equal(stopped.evaluations, 0);
    });

    it(`${mode}: a stop after three members carries the best of those three, with its fitness`, () => {
      const stopped = built(() => make(4));
      assert.equal(stopped.evaluations, 3);
      assert.ok(stopped.best);
      const scores = firstThree[mode]().map((genes) => ({ genes: [...genes], fitness: fitness(genes, 0, n, new DiagonalMarks(n)) }));
      const best = scores.reduce((a, b) => (b.fitness < a.fitness ? b : a));
      assert.equal(stopped.best.fitness, best.fitness);
      assert.deepEqual([...stopped.best.genes], best.genes);
    });
  }

  it('hybrid: a stop in the middle of one smart start (checked every 65,536 columns) ends the build too', () => {
    // Call 1 is before member 0; call 2 is inside its smart start, at column 65,535.
    const stopped = built(() => new HybridIsland({ params: hybridParams(200_000, { populationSize: 2 }), rng: Rng.forStream(1, 0), shouldStop: stopAtCall(2) }));
    assert.equal(stopped.best, null);
  });
});

describe('a stop during start-up (real CLI, real workers)', () => {
  // Sixteen smart starts of three million queens: seconds of building on any machine.
  const big = ['solve', '--config', 'config/large-n.yaml', '-n', '3000000', '--population', '16', '--islands', '2', '--seed', '1'];

  const assertStoppedInStartup = (record: { ended: string; solved: boolean; iterations: number; islands: { stopReason: string | null; error?: unknown }[]; failures: unknown[] }, ended: string) => {
    assert.equal(record.ended, ended);
    assert.equal(record.solved, false);
    assert.equal(record.iterations, 0);
    assert.deepEqual(record.failures, []);
    assert.ok(record.islands.every((i) => i.stopReason === 'stopped' && i.error === undefined), JSON.stringify(record.islands));
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
    assert.match(r.stdout, /^not solved N=3000000 \(time-limit\): (stopped during start-up, before any island had built a chromosome|best fitness \d+ )/);
    assert.match(r.stdout, /^0 iterations; /m);
  });

  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
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
