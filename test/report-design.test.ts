/**
 * `experiment FILE --plan`: whether a design can answer, worked out by hand in the comments,
 * and the seeds a pilot's spread says are needed (seeded simulation).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadExperiment } from '../src/experiment/load.ts';
import { designLines, familyDesigns, powerPlan } from '../src/report/statistics/design.ts';
import { cliInProcess, isOneLineError } from './cli-helpers.ts';
import { handMadeStudy, type Hand } from './hand-study.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-design-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** An experiment file: islands swept over `islands`, the first the baseline, `repeats` seeds. */
function experimentFile(name: string, islands: number[], repeats: number): string {
  const file = path.join(dir, `${name}.json`);
  const study = {
    name,
    base: { overrides: { n: 8, limits: { maxIterations: 50 } } },
    sweep: { islands },
    baseline: { islands: islands[0] },
    repeats,
    seed: 1,
  };
  writeFileSync(file, JSON.stringify(study));
  return file;
}

describe('the smallest adjusted p a design can reach', () => {
  it('3 compared cells on 8 seeds reach α; on 5 they cannot, and 7 would', () => {
    // 8 seeds: the smallest exact two-sided p is 2 / 2^8 = 0.0078125 (every seed one way);
    // Bonferroni over 3 tests: 3 x 0.0078125 = 0.0234375 < 0.05.
    const eight = familyDesigns(loadExperiment(experimentFile('eight', [1, 2, 3, 4], 8)));
    assert.deepEqual(
      eight.map((f) => [f.family, f.tests]),
      [
        ['evaluations', 3],
        ['seconds', 3],
        ['success', 3],
      ],
    );
    assert.equal(eight[0].smallestAdjustedP, 0.0234375);
    // 5 seeds: 3 x 2 / 2^5 = 0.1875 >= 0.05: no verdict possible whatever the data.
    // Seeds to reach: 3 x 2 / 2^n < 0.05 needs 2^n > 120: n = 7 (3 x 2 / 128 = 0.046875; n = 6 gives 0.09375).
    const five = loadExperiment(experimentFile('five', [1, 2, 3, 4], 5));
    const [evaluations, , success] = familyDesigns(five);
    assert.equal(evaluations.smallestAdjustedP, 0.1875);
    assert.equal(evaluations.seedsToReach, 7);
    // Success: Fisher's smallest p, 5/5 against 0/5, is 2 / C(10, 5) = 2 / 252 = 0.0079365; x 3 = 0.0238095.
    assert.ok(Math.abs(success.smallestAdjustedP - 6 / 252) < 1e-12, `${success.smallestAdjustedP}`);
    const lines = designLines(five);
    assert.match(
      lines[0],
      /^design: evaluations \(primary\): 3 tests \(Bonferroni\), smallest reachable p Bonf\. with 5 seeds 0\.188; warning: it cannot reach α = 0\.05, so no verdict is possible; 7 seeds would reach it$/,
    );
    assert.doesNotMatch(lines[2], /warning/);
  });

  it('one seed: p 1 reachable, no NaN; "1 seed" (it printed "with 1 seeds NaN")', () => {
    const one = loadExperiment(experimentFile('one', [1, 2, 3, 4], 1));
    assert.deepEqual(
      familyDesigns(one).map((f) => f.smallestAdjustedP),
      [1, 1, 1],
    );
    const lines = designLines(one);
    assert.match(
      lines[0],
      /^design: evaluations \(primary\): 3 tests \(Bonferroni\), smallest reachable p Bonf\. with 1 seed 1\.000; warning: .*; 7 seeds would reach it$/,
    );
    for (const line of lines) assert.doesNotMatch(line, /NaN/);
  });

  it('experiment FILE --plan prints the design and runs nothing', async () => {
    const file = experimentFile('plan', [1, 2], 4);
    const out = path.join(dir, 'plan-out');
    const r = await cliInProcess(['experiment', file, '--plan', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    // 1 test, 4 seeds: 2 / 16 = 0.125; 5 seeds give 2 / 32 = 0.0625, 6 give 0.03125.
    assert.match(
      r.stdout,
      /evaluations \(primary\): 1 test \(Bonferroni\), smallest reachable p Bonf\. with 4 seeds 0\.125; warning: .* 6 seeds would reach it/,
    );
    assert.equal(existsSync(out), false);
  });

  it('refuses a pilot or a ratio out of place, one line each, exit 2', async () => {
    const file = experimentFile('bad', [1, 2], 4);
    for (const [args, message] of [
      [['--pilot', dir], /--pilot: sizes a design; only with --plan/],
      [['--plan', '--detect', '0.8'], /--detect: sizes from a pilot; give --pilot DIR too/],
      [
        ['--plan', '--pilot', path.join(dir, 'missing')],
        /--pilot .*missing: no manifest\.json; expected the --out folder of an earlier study/,
      ],
    ] as const) {
      const r = await cliInProcess(['experiment', file, ...args]);
      assert.ok(isOneLineError(r), r.stderr);
      assert.match(r.stderr, message);
    }
  });
});

describe('seeds for 80% power from a pilot', () => {
  // A pilot whose 2-island cell needs 0.6 to 1.0 of the 1-island evaluations, seed by seed.
  const runs: Record<1 | 2, Hand[]> = {
    1: [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => ({ seed, solved: true, iterations: 100, evaluations: 1000 })),
    2: [600, 700, 800, 900, 1000, 650, 750, 850].map((evaluations, i) => ({ seed: i + 1, solved: true, iterations: 50, evaluations })),
  };
  const pilot = handMadeStudy(dir, 'pilot', null, runs);
  const experiment = loadExperiment(experimentFile('sized', [1, 2, 3], 6));

  it('is seeded (the same pilot, the same answer) and asks more seeds for a ratio nearer 1', () => {
    const near = powerPlan(experiment, pilot, 0.9);
    assert.deepEqual(powerPlan(experiment, pilot, 0.9), near);
    const far = powerPlan(experiment, pilot, 0.6);
    assert.equal(near.pairs, 8);
    assert.ok(near.seeds !== null && far.seeds !== null);
    assert.ok(far.seeds <= near.seeds, `0.6x: ${far.seeds}, 0.9x: ${near.seeds}`);
    // 2 tests at α / 2 = 0.025: 2 / 2^6 = 0.03125 cannot reach it, 2 / 2^7 = 0.0156 can: 7 seeds at least.
    assert.ok(far.seeds >= 7, `${far.seeds}`);
    assert.match(
      designLines(experiment, near).at(-1)!,
      /^design: power: to detect 0\.9x in evaluations with 80% power from 8 paired log ratios .* \d+ seeds; with 6 seeds the power is \d+%$/,
    );
  });
});
