import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './paths.ts';
import { describe, it } from 'node:test';
import { Island } from '../src/ga/island.ts';
import { paperParams } from '../src/ga/params.ts';
import { Rng } from '../src/ga/rng.ts';

/**
 * bench/baseline.c is an independent C implementation of the same reading, drawing the
 * same random numbers in the same order. Both must take the same path for a seed: a
 * differential check of the TypeScript core (and of the benchmark's baseline).
 */
describe('C baseline', () => {
  it('takes exactly the same iterations and evaluations as the TypeScript island, seed for seed', () => {
    const binary = join(mkdtempSync(join(tmpdir(), 'nq-baseline-')), 'baseline');
    execFileSync('cc', ['-O2', '-o', binary, join(ROOT, 'bench', 'baseline.c'), '-lm']);
    for (const [n, seed] of [
      [8, 1],
      [16, 2],
      [25, 3],
      [40, 4],
    ]) {
      const [iterations, evaluations, , solved] = execFileSync(binary, [String(n), String(seed)], { encoding: 'utf8' })
        .trim()
        .split(' ')
        .map(Number);
      const island = new Island({ params: paperParams(n), rng: Rng.forStream(seed, 0) });
      while (!island.step());
      assert.equal(solved, 1);
      assert.deepEqual([island.iterations, island.evaluations], [iterations, evaluations], `N = ${n}, seed ${seed}`);
    }
  });
});
