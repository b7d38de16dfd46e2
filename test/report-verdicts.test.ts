/**
 * The report's verdicts, checked against values worked out by hand in the comments: the
 * budget test (Wilcoxon signed-rank on min(T, B), as scipy and R compute it), the ratio with
 * its 95% interval, and the headline's sentences.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { baselineMapper } from '../src/report/baseline.ts';
import { headline } from '../src/report/headline.ts';
import { ertWithin, pairedRatio } from '../src/report/ratio.ts';
import { comparePaired } from '../src/report/stats.ts';
import { readStudy } from '../src/report/study-data.ts';
import { summarise } from '../src/report/summary.ts';
import { renderTable } from '../src/report/table.ts';
import { studyReport } from '../src/index.ts';
import { cliInProcess, isOneLineError } from './cli-helpers.ts';
import { handMadeStudy, type Hand } from './hand-study.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-verdicts-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the signed-rank test as R and scipy compute it', () => {
  it('exact without ties or zeros', () => {
    // d = 1..6, all positive: V = 21, the largest of 2^6 sign patterns: p = 2 / 64 (exact).
    // R: wilcox.test(x, y, paired = TRUE); scipy: wilcoxon(x, y, method='exact').
    const c = comparePaired([2, 3, 4, 5, 6, 7], [1, 1, 1, 1, 1, 1]);
    assert.deepEqual([c.method, c.statistic, c.informative, c.pairs], ['exact', 21, 6, 6]);
    assert.ok(Math.abs(c.pValue - 2 / 64) < 1e-12, `p = ${c.pValue}`);
  });

  it('normal, with the continuity correction, when zeros are dropped (min(T, B) ties at B)', () => {
    // x = min(T, B) with B = 1000: 4 pairs differ by 400, 300, 200, 100, 2 pairs are both at B.
    // V = 1 + 2 + 3 + 4 = 10 over n = 4, mean 5, variance 4*5*9/24 = 7.5:
    // z = (10 - 5 - 0.5) / sqrt(7.5) = 1.643168, p = 2 * (1 - Phi(1.643168)) = 0.100348.
    // The exact p on the 4 (2/16 = 0.125) is not what R does with zeros; scipy: method='approx'.
    const c = comparePaired([1000, 1000, 1000, 1000, 1000, 1000], [600, 700, 800, 900, 1000, 1000]);
    assert.deepEqual([c.method, c.statistic, c.informative, c.pairs, c.lower, c.higher], ['normal', 10, 4, 6, 0, 4]);
    assert.ok(Math.abs(c.pValue - 0.100348) < 5e-6, `p = ${c.pValue}`);
  });

  it('normal with the tie correction', () => {
    // |d| = 5, 5, 5, 5, ∞ (all negative) and one zero: ranks 2.5 x 4 and 5, V = 0, n = 5, mean 7.5,
    // variance 5*6*11/24 - (4^3 - 4)/48 = 13.75 - 1.25 = 12.5:
    // z = (0 - 7.5 + 0.5) / sqrt(12.5) = -1.979899, p = 2 * Phi(-1.979899) = 0.047715.
    const c = comparePaired([55, 65, 75, 85, 95, Infinity], [60, 70, 80, 90, Infinity, Infinity]);
    assert.equal(c.method, 'normal');
    assert.ok(Math.abs(c.pValue - 0.047715) < 5e-6, `p = ${c.pValue}`);
  });
});

describe('the ratio with its 95% interval', () => {
  it('all solved: the median of paired ratios, with a seeded bootstrap interval around it', () => {
    const same = pairedRatio([5, 10, 15, 20], [10, 20, 30, 40], null);
    // Every ratio is 0.5, so is every resample's median.
    assert.deepEqual(same, { kind: 'median', value: 0.5, lower: 0.5, upper: 0.5 });
    const x = [40, 50, 60, 70, 80, 90, 100, 110];
    const y = [100, 100, 100, 100, 100, 100, 100, 100];
    const r = pairedRatio(x, y, null);
    assert.equal(r.value, 0.75); // median of 0.4 ... 1.1
    assert.ok(r.lower >= 0.4 && r.lower < 0.75 && r.upper > 0.75 && r.upper <= 1.1, JSON.stringify(r));
    assert.deepEqual(pairedRatio(x, y, null), r, 'the same runs give the same interval');
  });

  it('censored: ERT within the budget, each run counting min(value, B)', () => {
    // Within B = 100: cell 55, 65, 75, 85, 95, - : (375 + 100) / 5 = 95;
    // baseline 60, 70, 80, 90, -, - : (300 + 200) / 4 = 125; ratio 95 / 125 = 0.76.
    const x = [55, 65, 75, 85, 95, Infinity];
    const y = [60, 70, 80, 90, Infinity, Infinity];
    assert.equal(ertWithin(x, 100), 95);
    assert.equal(ertWithin(y, 100), 125);
    const r = pairedRatio(x, y, 100);
    assert.equal(r.kind, 'ert');
    assert.equal(r.value, 0.76);
    assert.ok(r.lower < 0.76 && r.upper > 0.76, JSON.stringify(r));
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

  it('tests evaluations at the common budget as documented, with the ERT ratio', () => {
    assert.equal(c.evaluations.test, 'common-budget');
    assert.equal(c.evaluations.budget, 1000);
    // As in the second case above: p = 0.100348; 2 islands solved nothing within 1000: ERT ratio ∞.
    assert.ok(Math.abs(c.evaluations.pValue - 0.100348) < 5e-6);
    assert.equal(c.evaluations.ratio.value, Infinity);
    // Iterations: ∞ rank at 100, ERT ratio 0.76 as worked out above.
    assert.equal(c.iterations.ratio.value, 0.76);
  });

  it('adjusts over one stated family and leaves time below the noise floor untested', () => {
    // Seconds are iterations / 1000 here: medians under 0.1 s, below the 0.5 s floor.
    assert.equal(c.seconds.notRun !== null, true);
    assert.ok(Number.isNaN(c.seconds.pValue));
    // Family: evaluations, iterations and success rate of the one compared cell (time not tested).
    assert.equal(summary.holmFamily, 3);
    // Holm over 3: the smallest p (iterations, 0.047715) times 3.
    assert.ok(Math.abs(c.iterations.pHolm - 3 * 0.047715) < 2e-5, `${c.iterations.pHolm}`);
  });

  it('opens with one sentence per comparison, and says when nothing differs', () => {
    const lines = headline(summary);
    // Holm over 3: iterations 0.047715 x 3 = 0.143, evaluations max(0.143, 0.100348 x 2) = 0.201,
    // success (4/6 vs 5/6, Fisher p = 1) 1. Times: iterations / 1000, medians 0.080 (2 islands) and 0.085.
    // 2 islands solve nothing within 1000 evaluations: ERT ∞ in every resample too.
    assert.deepEqual(lines, [
      'islands=2 against islands=1: evaluations no difference detected: ∞× [∞, ∞] (ERT ratio within 1000), lower on 0 of 6 seeds, higher on 4; Wilcoxon signed-rank, budget 1000, 4 of 6 pairs differ, p Holm 0.201.',
      'islands=2 against islands=1: wall time not tested (median time 0.080 s vs 0.085 s, below the noise floor of 0.5 s).',
      'No difference detected in evaluations or wall time (Holm over all 3 tests of the report).',
    ]);
    const table = renderTable(summary);
    assert.ok(
      table.split('\n').indexOf(lines[0]) > 0 && table.indexOf(lines[0]) < table.indexOf('solved [95% CI]'),
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
    [{ seed: 7 }, /record 5 \(islands=1@7\) seed 7 is not one of the study's seeds \(2 per cell\)/],
    [{ cell: 'islands=9' }, /record 5 \(islands=9@1\) cell "islands=9" is not one of the study's 2 cells/],
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
    assert.match(r.stderr, /record 2 \(islands=2@1\) is solved but its solution is not one: column 2 shares a ↗ diagonal/);
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
