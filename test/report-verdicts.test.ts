/**
 * The report's verdicts, checked against values worked out by hand or by scipy in the
 * comments: the budget test (Wilcoxon signed-rank of log(min(T, B)) ratios), the paired ratio
 * with its interval, the families, and the headline's sentences.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { baselineMapper } from '../src/report/statistics/baseline.ts';
import { headline } from '../src/report/page/headline.ts';
import { ertWithin, pairedRatio } from '../src/report/statistics/ratio.ts';
import { readStudy } from '../src/report/data/study-data.ts';
import { summarise } from '../src/report/statistics/summary.ts';
import { ratioText } from '../src/report/page/table.ts';
import { renderTable } from '../src/report/page/terminal-table.ts';
import { studyReport } from '../src/index.ts';
import { cliInProcess, isOneLineError } from './cli-helpers.ts';
import { handMadeStudy, type Hand } from './hand-study.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-verdicts-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the paired ratio and the ERT ratio', () => {
  it('the paired ratio: exp of the Hodges-Lehmann estimate of the log ratios, the same interval every time', () => {
    // Every log ratio log(0.5): every Walsh average is log(0.5), so are the estimate and both bounds.
    const same = pairedRatio([0.5, 0.5, 0.5, 0.5, 0.5, 0.5].map(Math.log), 0.05);
    assert.ok(Math.abs(same.value - 0.5) < 1e-12 && Math.abs(same.upper - 0.5) < 1e-12, JSON.stringify(same));
    const d = [40, 50, 60, 70, 80, 90, 100, 110].map((x) => Math.log(x / 100));
    assert.deepEqual(pairedRatio(d, 0.05), pairedRatio(d, 0.05), 'no resampling stream: the same runs give the same interval');
  });

  it('ERT within the budget, each run counting min(value, B): its own number', () => {
    // Within B = 100: cell 55, 65, 75, 85, 95, - : (375 + 100) / 5 = 95;
    // baseline 60, 70, 80, 90, -, - : (300 + 200) / 4 = 125; ratio 95 / 125 = 0.76.
    assert.equal(ertWithin([55, 65, 75, 85, 95, Infinity], 100), 95);
    assert.equal(ertWithin([60, 70, 80, 90, Infinity, Infinity], 100), 125);
  });
});

describe('a report that says what won', () => {
  // 1 and 2 islands under one iteration limit (100): 1 island cut off at 1000 evaluations, 2 at 2000.
  const runs: Record<1 | 2, Hand[]> = {
    1: [60, 70, 80, 90, 100, 100].map((it, i) => ({ seed: i + 1, solved: it < 100, iterations: it, evaluations: it * 10 })),
    2: [55, 65, 75, 85, 95, 100].map((it, i) => ({ seed: i + 1, solved: it < 100, iterations: it, evaluations: it * 20 })),
  };
  const study = readStudy(handMadeStudy(dir, 'headline', 100, runs));
  const summary = summarise(study, baselineMapper(study.manifest, study.manifest.baseline), study.manifest.baseline);
  const c = summary.cells[1].comparison!;

  it('tests evaluations at the common budget as documented, the ERT ratio apart', () => {
    assert.equal(c.evaluations.test, 'common-budget');
    assert.equal(c.evaluations.budget, 1000);
    // d = log(1000 / [600, 700, 800, 900, 1000, 1000]): 4 positive, 2 zeros; V = 10 over n = 4, mean 5,
    // variance 7.5: z = (10 - 5 - 0.5) / sqrt(7.5) = 1.643168, p = 0.100348.
    // python3: wilcoxon(d, method='asymptotic', correction=True).pvalue = 0.10034824646229074;
    // the median of the 21 Walsh averages, exp'd: 1.1952286093343936.
    assert.ok(Math.abs(c.evaluations.pValue - 0.10034824646229074) < 1e-12);
    assert.ok(Math.abs(c.evaluations.ratio!.value - 1.1952286093343936) < 1e-12);
    // 2 islands solved nothing within 1000 evaluations: no ERT ratio (never ∞x).
    assert.ok(Number.isNaN(c.evaluations.ertRatio));
    assert.match(renderTable(summary), /none \(a cell solved nothing within B\)/);
  });

  it('one family per measure, each as large as what the table shows; time tested whatever the machine', () => {
    // Seconds are iterations / 1000 here, medians 0.085 and 0.080 s: under the floor, tested all the same.
    assert.equal(c.seconds.family, 'seconds');
    assert.match(c.seconds.caution!, /median times 0.0800 s vs 0.0850 s, below the noise floor of 0.5 s/);
    // python3: t = log([0.055, .., 0.095, 0.1] / [0.06, .., 0.1, 0.1]); wilcoxon(t, method='asymptotic', correction=True) = 0.05905822909053671.
    assert.ok(Math.abs(c.seconds.pValue - 0.05905822909053671) < 1e-12);
    assert.deepEqual([summary.families.evaluations.tests, summary.families.seconds.tests, summary.families.success.tests], [1, 1, 1]);
    // Iterations across island counts: not compared, in no family.
    assert.equal(c.iterations.family, null);
  });

  it('opens with the families, one sentence per comparison, and says when nothing differs', () => {
    const lines = headline(summary);
    assert.deepEqual(lines, [
      'Families (each Bonferroni at α = 0.05: p Bonf. = min(1, m·p), verdict when p Bonf. < 0.05, exactly when the interval leaves 1 out): evaluations, the primary: 1 test, intervals at 95%; wall time: 1 test, intervals at 95%; success rates: 1 test; iterations are descriptive.',
      `islands=2 against islands=1: evaluations no difference detected: ${ratioText(c.evaluations, '×')} (paired ratio), lower on 0 of 6 seeds, higher on 4; Wilcoxon signed-rank of the log ratios, budget 1000, 4 of 6 pairs differ, p Bonf. 0.100.`,
      `islands=2 against islands=1: wall time no difference detected: ${ratioText(c.seconds, '×')} (paired ratio), lower on 5 of 6 seeds, higher on 0; Wilcoxon signed-rank of the log ratios, budget 0.100, 5 of 6 pairs differ, p Bonf. 0.059; wall time depends on the machine, this is the one that ran the study; median times 0.0800 s vs 0.0850 s, below the noise floor of 0.5 s: load on the machine moves runs this short.`,
      'No difference detected in evaluations or wall time.',
    ]);
    // Accepted at 1 itself (p 0.100), so the interval reaches 1 and is closed there.
    assert.equal(ratioText(c.evaluations), '1.20x [1.00, 1.67]');
    const table = renderTable(summary);
    assert.ok(
      table.split('\n').indexOf(lines[1]) > 0 && table.indexOf(lines[1]) < table.indexOf('solved [95% CI]'),
      'headline before the table',
    );
    assert.match(table, /4 of 6/);
  });
});

describe('records that do not fit the study are refused, one line each, exit 2', () => {
  const all = (extra: Partial<Record<string, unknown>>) => {
    const folder = handMadeStudy(dir, `misfit-${Object.keys(extra).join('-')}-${String(Object.values(extra)[0])}`, null, {
      1: [1, 2].map((seed) => ({ seed, solved: true, iterations: 10, evaluations: 100 })),
      2: [1, 2].map((seed) => ({ seed, solved: true, iterations: 10, evaluations: 100 })),
    });
    const file = path.join(folder, 'runs.jsonl');
    const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]) as Record<string, unknown>;
    appendFileSync(file, `${JSON.stringify({ ...first, ...extra })}\n`);
    return folder;
  };
  for (const [extra, message] of [
    [{ seed: 7 }, /runs\.jsonl:5: record \(islands=1@7\) seed 7 is not one of the study's seeds \(2 per cell\)/],
    [{ cell: 'islands=9' }, /runs\.jsonl:5: record \(islands=9@1\) cell "islands=9" is not one of the study's 2 cells/],
    [{ seed: 3, solution: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] }, /seed 3 is not one/],
  ] as const) {
    it(`${JSON.stringify(extra)}`, async () => {
      const r = await cliInProcess(['report', all(extra)]);
      assert.ok(isOneLineError(r), r.stderr);
      assert.match(r.stderr, message);
    });
  }

  it('a "solved" record whose solution is not one (re-validated), in place of a real run', async () => {
    const folder = handMadeStudy(dir, 'misfit-solution', null, {
      1: [{ seed: 1, solved: true, iterations: 10, evaluations: 100 }],
      2: [{ seed: 1, solved: true, iterations: 10, evaluations: 100 }],
    });
    const file = path.join(folder, 'runs.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const forged = { ...(JSON.parse(lines[1]) as object), solution: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] };
    writeFileSync(file, `${lines[0]}\n${JSON.stringify(forged)}\n`);
    const r = await cliInProcess(['report', folder]);
    assert.ok(isOneLineError(r), r.stderr);
    assert.match(r.stderr, /runs\.jsonl:2: record \(islands=2@1\) is solved but its solution is not one: column 2 shares a ↗ diagonal/);
  });
});

describe('the report through the package entry, as a notebook would use it', () => {
  const runs: Record<1 | 2, Hand[]> = {
    1: [60, 70, 80, 90, 100, 100].map((it, i) => ({ seed: i + 1, solved: it < 100, iterations: it, evaluations: it * 10 })),
    2: [55, 65, 75, 85, 95, 100].map((it, i) => ({ seed: i + 1, solved: it < 100, iterations: it, evaluations: it * 20 })),
  };
  const folder = handMadeStudy(dir, 'library', 100, runs);

  it('gives the CLI numbers: the same table, and per cell the ECDF stopped at its own cut-off', async () => {
    const report = studyReport(folder);
    const cli = await cliInProcess(['report', folder]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout.trim(), report.table.trim());
    assert.deepEqual(report.headline, headline(report.summary));
    // islands=1: solved at 600, 700, 800, 900 of 6 runs; its unsolved runs stopped at 1000: the line ends there, marked.
    const one = report.figures['islands=1'];
    assert.equal(one.name, 'islands=1');
    assert.deepEqual(
      one.ecdf.map((p) => [p.evaluations, p.solved, p.cutoff]),
      [
        [600, 0, false],
        [600, 1 / 6, false],
        [700, 2 / 6, false],
        [800, 3 / 6, false],
        [900, 4 / 6, false],
        [1000, 4 / 6, true],
      ],
    );
    // islands=2 ran to 2000 (its own budget) and is drawn to there, not to another cell's.
    assert.deepEqual(report.figures['islands=2'].ecdf.at(-1), { evaluations: 2000, solved: 5 / 6, cutoff: true });
    const json = await cliInProcess(['report', folder, '--json']);
    const parsed = JSON.parse(json.stdout) as { figures: Record<string, { ecdf: unknown[] }>; headline: string[] };
    assert.equal(parsed.figures['islands=2'].ecdf.length, report.figures['islands=2'].ecdf.length);
    assert.deepEqual(parsed.headline, report.headline);
  });

  it('report --figures DIR writes every figure as SVG with the rows it draws as CSV, into a missing or empty folder only', async () => {
    const out = path.join(dir, 'figures');
    const r = await cliInProcess(['report', folder, '--figures', out]);
    assert.equal(r.code, 0, r.stderr);
    const names = readdirSync(out).sort();
    assert.deepEqual(names, [
      'box-evaluations.csv',
      'box-evaluations.svg',
      'box-seconds.csv',
      'box-seconds.svg',
      'ecdf-evaluations.csv',
      'ecdf-evaluations.svg',
    ]);
    for (const svg of names.filter((n) => n.endsWith('.svg')))
      assert.match(readFileSync(path.join(out, svg), 'utf8'), /^<svg[^>]*>[\s\S]*<\/svg>\s*$/);
    // The ECDF's CSV: a header and one row per point, the same points as the JSON's, cut-offs marked.
    const csv = readFileSync(path.join(out, 'ecdf-evaluations.csv'), 'utf8').trim().split('\n');
    assert.equal(csv[0], 'cell,evaluations,solved,cutoff');
    const report = studyReport(folder);
    const points = Object.values(report.figures).flatMap((f) => f.ecdf);
    assert.equal(csv.length - 1, points.length);
    assert.ok(csv.includes('islands=1,1000,0.6666666666666666,true'), csv.join('\n'));
    // Solved runs only in the box plots: 4 + 5.
    assert.equal(readFileSync(path.join(out, 'box-evaluations.csv'), 'utf8').trim().split('\n').length - 1, 9);
    const again = await cliInProcess(['report', folder, '--figures', out]);
    assert.ok(isOneLineError(again), again.stderr);
    assert.match(again.stderr, /--figures .*figures: folder is not empty; expected a missing or empty folder/);
  });
});
