import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { LocalHost } from '../src/archipelago/local-host.ts';
import { startArchipelago, type ArchipelagoOptions, type ArchipelagoResult } from '../src/archipelago/archipelago.ts';
import { childrenPerIteration, paperParams } from '../src/ga/params.ts';

const N = 20;
const POPULATION = 40;
// One warm pool for every run: each run's cost is its search, not thread start-up.
const host = new LocalHost(3);
after(() => host.close());
const params = paperParams(N, { populationSize: POPULATION });

function options(interval: number, seed: number, extra: Partial<ArchipelagoOptions> = {}): ArchipelagoOptions {
  return {
    seed,
    islands: 3,
    evolver: { mode: 'paper', params },
    topology: { kind: 'none' },
    migration: { mode: 'sync', interval, migrants: 1, emigrantSelection: { kind: 'best' }, replacement: 'worst-if-better', rejectDuplicates: false },
    launcher: host,
    ...extra,
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
      assert.deepEqual([fifty.foundBy, fifty.foundAtIteration, fifty.solution], [one.foundBy, one.foundAtIteration, one.solution], `seed ${seed}`);
      assert.equal(fifty.evaluations, one.evaluations, `seed ${seed}: evaluations to solution`);
      assert.deepEqual(fifty.islands.map((i) => i.evaluations), one.islands.map((i) => i.evaluations), `seed ${seed}: per island`);
      // Independently: a paper island evaluates its M + b initial members, then the same number
      // of children every iteration; a non-winner is counted through the winning iteration k
      // (an island that found a solution too stopped at it, within its generation).
      const k = one.foundAtIteration!;
      for (const island of one.islands) {
        if (island.stopReason === 'solved' || island.stopReason === 'also-solved') continue;
        const expected = POPULATION + params.badRepositorySize + k * childrenPerIteration(params);
        assert.equal(island.evaluations, expected, `seed ${seed}: island ${island.id} through iteration ${k}`);
      }
      // Interval 1: every island stops at the barrier right after the winning iteration.
      assert.equal(one.evaluationsAfterSolution, 0, `seed ${seed}`);
      assert.ok(fifty.evaluationsAfterSolution !== null && fifty.evaluationsAfterSolution >= 0);
      assert.equal(fifty.evaluationsAfterSolution, fifty.islands.reduce((s, i) => s + i.evaluationsAfterSolution!, 0));
      after50 += fifty.evaluationsAfterSolution;
    }
    // The islands did run on to the barrier at interval 50: without counting apart, the totals would differ.
    assert.ok(after50 > 0, 'some evaluations past the solution at interval 50');
  });

  it('async runs count everything each island evaluated until it stopped (nothing apart)', async () => {
    const result = await run(options(1, 1, { migration: { ...options(1, 1).migration, mode: 'async' } }));
    assert.equal(result.solved, true);
    assert.equal(result.evaluationsAfterSolution, null);
    for (const island of result.islands) assert.equal(island.evaluationsAfterSolution, null);
  });
});
