/**
 * Issue 45's "Done when" for the report, on hand-made studies and a real one: every verdict
 * agrees with its interval at the stated level (an interval leaves 1 out exactly when the
 * verdict says lower or higher, exactly when p Bonf. < 0.05); each family is as large as the
 * number of its tests the terminal table shows; and no output prints a ratio for what was not
 * estimated ("∞x", "0.00x").
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runExperiment, studyReport } from '../src/index.ts';
import type { StudySummary } from '../src/report/statistics/summary.ts';
import { renderCsv, summaryRows } from '../src/report/page/table.ts';
import { renderTable } from '../src/report/page/terminal-table.ts';
import { handMadeStudy, type Hand } from './hand-study.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-families-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const hand = (name: string, maxIterations: number | null, runs: Record<1 | 2, Hand[]>) =>
  studyReport(handMadeStudy(dir, name, maxIterations, runs));
const seeds = [1, 2, 3, 4, 5, 6, 7, 8];

/** The studies checked: censored, identical cells, a cell that never solves, a strong effect, and a real 3-cell study. */
const reports: { name: string; report: ReturnType<typeof studyReport> }[] = [];
before(async () => {
  reports.push(
    {
      name: 'censored',
      report: hand('censored', 100, {
        1: [60, 70, 80, 90, 100, 100].map((it, i) => ({ seed: i + 1, solved: it < 100, iterations: it, evaluations: it * 10 })),
        2: [55, 65, 75, 85, 95, 100].map((it, i) => ({ seed: i + 1, solved: it < 100, iterations: it, evaluations: it * 20 })),
      }),
    },
    {
      name: 'identical',
      report: hand('identical', null, {
        1: seeds.map((seed) => ({ seed, solved: true, iterations: 10 * seed, evaluations: 100 * seed })),
        2: seeds.map((seed) => ({ seed, solved: true, iterations: 10 * seed, evaluations: 100 * seed })),
      }),
    },
    {
      name: 'never solves',
      report: hand('never', 50, {
        1: seeds.map((seed) => ({ seed, solved: true, iterations: 10 + seed, evaluations: 100 + 10 * seed })),
        2: seeds.map((seed) => ({ seed, solved: false, iterations: 50, evaluations: 1000 })),
      }),
    },
    {
      name: 'strong effect',
      report: hand('strong', null, {
        1: seeds.map((seed) => ({ seed, solved: true, iterations: 100, evaluations: 1000 + 37 * seed })),
        2: seeds.map((seed) => ({ seed, solved: true, iterations: 30, evaluations: 500 + 11 * seed })),
      }),
    },
  );
  const out = path.join(dir, 'real');
  await runExperiment(
    {
      name: 'real',
      base: { overrides: { n: 16, islands: 4, migration: { mode: 'sync' } } },
      sweep: { 'topology.kind': ['ring', 'none', 'fully-connected'] },
      baseline: { 'topology.kind': 'ring' },
      repeats: 6,
      seed: 3,
    },
    { out },
  );
  reports.push({ name: 'real', report: studyReport(out) });
});

/** The numbers of tests the terminal table shows in each family: its p Bonf. cells that hold a p. */
function shownTests(summary: StudySummary): Record<'evaluations' | 'seconds' | 'success', number> {
  const { header, rows } = summaryRows(summary);
  const columns = header.flatMap((h, i) => (h.endsWith('p Bonf.') ? [i] : []));
  assert.equal(columns.length, 3, header.join(' | '));
  const count = (col: number) => rows.filter((r) => /^(<0\.001|[01]\.\d{3})$/.test(r[col])).length;
  return { evaluations: count(columns[0]), seconds: count(columns[1]), success: count(columns[2]) };
}

describe("the report's families, intervals and verdicts agree", () => {
  it('an interval leaves 1 out exactly when the verdict says lower or higher, exactly when p Bonf. < 0.05', () => {
    let verdicts = 0;
    for (const { name, report } of reports)
      for (const cell of report.summary.cells)
        for (const metric of ['evaluations', 'seconds'] as const) {
          const c = cell.comparison?.[metric];
          if (!c || c.family === null) continue;
          const what = `${name}, ${cell.id}, ${metric}`;
          assert.equal(c.ratio!.level, report.summary.families[metric].level, what);
          assert.equal(c.verdict !== 'none', c.ratio!.excludesOne, what);
          assert.equal(c.verdict !== 'none', c.pAdjusted < 0.05, what);
          if (c.verdict === 'lower') assert.ok(c.ratio!.upper <= 1, what);
          if (c.verdict === 'higher') assert.ok(c.ratio!.lower >= 1, what);
          if (c.verdict !== 'none') verdicts++;
        }
    // Not vacuous: the strong effect (and the real study) give verdicts.
    assert.ok(verdicts >= 2, `${verdicts} verdicts`);
  });

  it('each family holds exactly the tests the terminal table shows', () => {
    for (const { name, report } of reports) {
      const { families } = report.summary;
      assert.deepEqual(
        shownTests(report.summary),
        { evaluations: families.evaluations.tests, seconds: families.seconds.tests, success: families.success.tests },
        name,
      );
    }
    // Identical cells: nothing to test, said so.
    const identical = reports.find((r) => r.name === 'identical')!.report;
    assert.equal(identical.summary.families.evaluations.tests, 0);
    assert.match(identical.table, /evaluations: not tested: every one of 8 pairs equal \(the runs are identical, seed for seed\)/);
    assert.match(identical.table, /success: not tested: both solved every run/);
    // The real study: two compared cells, every run solved: 2, 2 and no success test.
    const real = reports.find((r) => r.name === 'real')!.report.summary.families;
    assert.deepEqual([real.evaluations.tests, real.seconds.tests, real.success.tests], [2, 2, 0]);
  });

  it('prints no ratio for what was not estimated: no ∞x, no 0.00x, in the table, markdown, CSV or headline', () => {
    for (const { name, report } of reports) {
      for (const [what, text] of [
        ['table', renderTable(report.summary)],
        ['markdown', report.markdown],
        ['headline', report.headline.join('\n')],
        ['csv', renderCsv(report.summary)],
      ] as const) {
        // (A cell's own ERT is ∞ when it solved nothing, by definition: only ratios are checked.)
        assert.doesNotMatch(text, /∞\s*[x×]|0\.00[x×]|[x×] \[(∞|0\.00)/, `${name}, ${what}`);
        assert.doesNotMatch(text, /Holm|∞ rank/, `${name}, ${what}`);
      }
    }
    const never = reports.find((r) => r.name === 'never solves')!.report;
    assert.match(never.table, /none \(a cell solved nothing within B\)/);
  });
});

describe("a report's opening says what the runs cover", () => {
  const run = (seed: number): Hand => ({ seed, solved: true, iterations: 10, evaluations: 100 * seed });
  it('every seed in every cell only when every run is there; a partial study says it is partial (issue 47)', () => {
    const whole = hand('cover-whole', null, { 1: [1, 2, 3].map(run), 2: [1, 2, 3].map(run) });
    assert.match(whole.markdown, /6 of 6 runs; seeds 1, 2, 3 in every cell \(paired\)/);
    // A shard not yet run: islands=2 lacks seed 3.
    const partial = hand('cover-partial', null, { 1: [1, 2, 3].map(run), 2: [1, 2].map(run) });
    assert.match(partial.markdown, /5 of 6 runs; the study's seeds are 1, 2, 3, not yet all run in every cell/);
    assert.doesNotMatch(partial.markdown, /in every cell \(paired\)/);
  });
});
