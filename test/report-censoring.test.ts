/**
 * Issue 18's example with real runs: 1 against 2 islands under an iteration limit that
 * leaves runs unsolved. An iteration limit is a different evaluation budget for 1 and 2
 * islands, so ranking unsolved runs as +Infinity in evaluations can give an effect whose sign
 * the same seeds run to completion contradict. The report's verdict must agree in sign (or
 * claim nothing) with the verdict on the uncensored runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runExperiment } from '../src/index.ts';
import { baselineMapper } from '../src/report/statistics/baseline.ts';
import { readStudy } from '../src/report/data/study-data.ts';
import { summarise, type StudySummary } from '../src/report/statistics/summary.ts';
import type { RunRecord } from '../src/experiment/records.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-censoring-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Islands 1 and 2 at N = 40 (half the CPU of N = 60, and under the limit both metrics reach a verdict to check), 20 seeds, islands independent (topology none) and in lockstep (sync), so every run is the same on every machine. */
async function study(name: string, maxIterations: number | null): Promise<{ summary: StudySummary; runs: RunRecord[] }> {
  const out = path.join(dir, name);
  await runExperiment(
    {
      name,
      base: { overrides: { n: 40, topology: { kind: 'none' }, migration: { mode: 'sync' }, limits: { maxIterations } } },
      sweep: { islands: [1, 2] },
      baseline: { islands: 1 },
      repeats: 20,
      seed: 1,
    },
    { out },
  );
  const data = readStudy(out);
  return { summary: summarise(data, baselineMapper(data.manifest, data.manifest.baseline), data.manifest.baseline), runs: data.runs };
}

describe('a study cut off by an iteration limit against the same seeds run to completion', () => {
  let limited: StudySummary;
  let complete: StudySummary;
  let runs: RunRecord[];
  before(async () => {
    const a = await study('limited', 190);
    const b = await study('complete', null);
    [limited, complete, runs] = [a.summary, b.summary, [...a.runs, ...b.runs]];
  });

  it("keeps in every record a best-fitness trajectory that ends at the run's end", () => {
    for (const run of runs) {
      const t = run.trajectory!;
      assert.ok(t.length >= 2, `${run.cell}@${run.seed}: ${t.length} points`);
      assert.deepEqual(t.at(-1), [run.evaluations, run.fitness]);
      for (let i = 1; i < t.length; i++)
        assert.ok(
          t[i][0] > t[i - 1][0] && t[i][1] < t[i - 1][1] + (i === t.length - 1 ? 1 : 0),
          `${run.cell}@${run.seed}: ${JSON.stringify(t)}`,
        );
    }
  });

  it('leaves runs unsolved in both cells under the limit, and none without it', () => {
    for (const cell of limited.cells)
      assert.ok(cell.solved > 0 && cell.solved < cell.runs, `${cell.id}: ${cell.solved}/${cell.runs} solved`);
    for (const cell of complete.cells) assert.equal(cell.solved, cell.runs, cell.id);
  });

  it('compares evaluations at the common budget and leaves iterations across island counts out', () => {
    const c = limited.cells[1].comparison!;
    assert.match(c.iterations.notRun!, /2 vs 1 islands/);
    // Evaluations: 2 islands spend twice the evaluations per iteration, so their limit is another budget.
    assert.equal(c.evaluations.test, 'common-budget');
  });

  it('claims no effect whose sign the uncensored runs contradict', () => {
    const truth = complete.cells[1].comparison!.evaluations;
    const c = limited.cells[1].comparison!.evaluations;
    // Unadjusted p: a stricter check than the verdict, since it claims more; at this size and limit p < 0.05.
    assert.ok(c.pValue < 0.05, `evaluations p = ${c.pValue}`);
    assert.equal(
      Math.sign(c.rankBiserial),
      Math.sign(truth.rankBiserial),
      `limited r = ${c.rankBiserial}, complete r = ${truth.rankBiserial}`,
    );
    // The uncensored runs say 2 independent islands cost more evaluations than one (each spends
    // an iteration's evaluations twice); the limited study, compared at the common budget, must not say less.
    assert.ok(truth.rankBiserial > 0, `complete: r = ${truth.rankBiserial}`);
    assert.notEqual(c.verdict, 'lower');
  });

  it("makes the censored test the documented one: scipy's wilcoxon of log(min(T, B)) ratios", () => {
    const c = limited.cells[1].comparison!.evaluations;
    // B = 1 island's cut-off, 190 iterations; within it the 1-island baseline solved 6 seeds the
    // 2-island cell did not, every other pair is "not within B" on both sides: 6 of 20 differ.
    assert.equal(c.test, 'common-budget');
    assert.deepEqual([c.informative, c.pairs, c.lower, c.higher], [6, 20, 0, 6]);
    // d = log(min(T_2, B) / min(T_1, B)) = log(B / y) > 0 on the 6 pairs, distinct, V = R+ = 1+...+6 = 21.
    // Zeros (14 pairs) make it the normal approximation: mean n(n+1)/4 = 10.5, sd = sqrt(6*7*13/24)
    // = 4.769696, no ties; z = (21 - 10.5 - 0.5) / 4.769696 = 2.096570, p = 2 (1 - Phi(z)) = 0.036032.
    // scipy 1.17: wilcoxon(d, method='asymptotic', correction=True) = 0.036031686218233584 (its ranks: d = [0.1, .., 0.6] + [0] * 14 gives it);
    // R: wilcox.test(d, exact = FALSE, correct = TRUE) gives the same.
    assert.equal(c.statistic, 21);
    assert.equal(c.method, 'normal');
    assert.ok(Math.abs(c.pValue - 0.036031686218233584) < 1e-12, `p = ${c.pValue}, d = ${JSON.stringify(c.logRatios)}`);
    // The 2-island cell solved nothing within B: no ERT ratio, and the text says so, never ∞x.
    assert.ok(Number.isNaN(c.ertRatio));
    assert.ok(c.ratio !== null && Number.isFinite(c.ratio.value));
  });
});
