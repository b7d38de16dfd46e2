/**
 * The benchmarking measures of a study (success rates with intervals, ERT with its bootstrap
 * interval, run-length ECDFs) and the treatment of unsolved runs, checked on a small
 * hand-made runs.jsonl against values worked out by hand in the comments.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { cellFileName } from '../src/experiment/sweep.ts';
import { baselineMapper } from '../src/report/statistics/baseline.ts';
import { censoredValue, censoringPlan, observe, testedValue } from '../src/report/statistics/censoring.ts';
import { ertInterval, expectedRunningTime, fisherExact, quantile, runLengthEcdf, wilson } from '../src/report/statistics/stats.ts';
import { readStudy } from '../src/report/data/study-data.ts';
import { IOH_DAT_HEADER, iohFiles } from '../src/report/exports/ioh-export.ts';
import { writeExportFolder } from '../src/report/exports/export-folder.ts';
import { fitnessWithin, fixedBudgetPoints } from '../src/report/statistics/run-length.ts';
import { summarise } from '../src/report/statistics/summary.ts';
import { renderTable } from '../src/report/page/terminal-table.ts';
import { cli, isOneLineError } from './cli-helpers.ts';
import { handMadeStudy as madeIn, type Hand } from './hand-study.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-measures-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const handMadeStudy = (name: string, maxIterations: number | null, runs: Record<1 | 2, Hand[]>) => madeIn(dir, name, maxIterations, runs);
const run = (seed: number, solved: boolean, evaluations: number, iterations = evaluations / 10): Hand => ({
  seed,
  solved,
  evaluations,
  iterations,
});

describe('success rates, ERT and run-length ECDF of a hand-made runs.jsonl', () => {
  // Cell islands=1: solved with 100, 200 and 400 evaluations, one run unsolved after 1000.
  // Cell islands=2: solved with 300 and 300, three runs unsolved after 800 (seeds 3, 4, 5).
  const folder = handMadeStudy('hand', null, {
    1: [run(1, true, 100), run(2, true, 200), run(3, true, 400), run(4, false, 1000)],
    2: [run(1, true, 300), run(2, true, 300), run(3, false, 800), run(4, false, 800), run(5, false, 800)],
  });
  const study = readStudy(folder);
  const summary = summarise(study, baselineMapper(study.manifest, study.manifest.baseline), study.manifest.baseline);
  const [one, two] = summary.cells;
  const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-6, `${what}: ${a}, expected ${b}`);

  it('ERT = evaluations of all runs / successes', () => {
    // islands=1: (100 + 200 + 400 + 1000) / 3 = 1700 / 3 = 566.666...
    close(one.ert, 1700 / 3, 'ERT of islands=1');
    // islands=2: (300 + 300 + 800 + 800 + 800) / 2 = 3000 / 2 = 1500.
    close(two.ert, 1500, 'ERT of islands=2');
    assert.equal(expectedRunningTime([{ solved: false, evaluations: 5 }]), Infinity, 'no success: infinite');
  });

  it('success rates with Wilson score intervals', () => {
    // Wilson, z = 1.959964, z² = 3.841459. 3/4: centre (0.75 + z²/8) / (1 + z²/4) = 1.230182 / 1.960365 = 0.627527,
    // half-width z / (1 + z²/4) · sqrt(0.75 · 0.25 / 4 + z²/64) = 0.999795 · 0.326953 = 0.326886: [0.300642, 0.954413]
    // (R: prop.test(3, 4, correct = FALSE)$conf.int).
    assert.deepEqual([one.solved, one.runs], [3, 4]);
    close(one.successInterval.lower, 0.300642, 'lower 3/4');
    close(one.successInterval.upper, 0.954413, 'upper 3/4');
    // 2/5: centre (0.4 + z²/10) / (1 + z²/5) = 0.784146 / 1.768292 = 0.443448, half-width
    // z / (1 + z²/5) · sqrt(0.4 · 0.6 / 5 + z²/100) = 1.108393 · 0.293964 = 0.325827: [0.117621, 0.769276].
    close(two.successInterval.lower, 0.117621, 'lower 2/5');
    close(two.successInterval.upper, 0.769276, 'upper 2/5');
    // The bounds at 0/n and n/n are 0 and 1 exactly: 0/5 is [0, z²/(5 + z²)] = [0, 0.434482].
    const none = wilson(0, 5);
    assert.equal(none.lower, 0);
    close(none.upper, 3.841459 / 8.841459, 'upper 0/5');
    assert.equal(wilson(5, 5).upper, 1);
  });

  it("compares success rates with Fisher's exact test", () => {
    // 3 of 4 against 2 of 5: 5 successes among 9 runs. With the margins fixed, the successes of
    // the first cell k = 0..4 have probabilities C(4,k) C(5,5-k) / C(9,5) = 1, 20, 60, 40, 5 (/126).
    // Seen: k = 3 (40/126); as likely or less: k = 0, 1, 3, 4: p = 66/126 = 0.523810 (R: fisher.test).
    close(two.success!.pValue, 66 / 126, 'Fisher p');
    close(fisherExact(0, 5, 5, 5), 2 / 252, 'Fisher p of 0/5 vs 5/5 (1/252 each tail)');
  });

  it('the bootstrap interval of ERT: seeded, and as the exact bootstrap distribution says', () => {
    // Two runs, one solved with 100 evaluations and one unsolved after 300: ERT = 400. A resample of
    // two draws holds the solved run twice (probability 1/4, ERT 100), once (1/2, ERT 400) or never
    // (1/4, no success: ∞). So the 2.5% quantile of 2000 resamples is 100 and the 97.5% one is ∞.
    const pair = [
      { solved: true, evaluations: 100 },
      { solved: false, evaluations: 300 },
    ];
    assert.deepEqual(ertInterval(pair), { lower: 100, upper: Infinity });
    // Same runs, same interval: the resampling is seeded.
    assert.deepEqual(ertInterval([...study.runs]), ertInterval([...study.runs]));
    // islands=1, enumerated: the 4^4 = 256 equally likely ordered resamples of its four runs give
    // the exact bootstrap distribution of ERT; 2000 resamples must put the 95% interval's ends
    // between its 1% and 4% quantiles (lower) and its 96% and 99% quantiles (upper).
    const runs = study.runs.filter((r) => r.cell === 'islands=1');
    const exact: number[] = [];
    for (let code = 0; code < 256; code++) {
      const pick = [0, 1, 2, 3].map((k) => runs[(code >> (2 * k)) & 3]);
      exact.push(expectedRunningTime(pick));
    }
    const { lower, upper } = one.ertInterval;
    assert.ok(lower >= quantile(exact, 0.01) && lower <= quantile(exact, 0.04), `lower ${lower}`);
    assert.ok(upper >= quantile(exact, 0.96) && upper <= quantile(exact, 0.99), `upper ${upper}`);
    assert.ok(lower <= one.ert && one.ert <= upper);
  });

  it('the fixed-target ECDF: the share of all runs solved within each budget', () => {
    // islands=1: solved at 100, 200, 400 of 4 runs: 0 below 100, 1/4 from 100, 2/4 from 200, 3/4 from 400, never 1.
    const runs = study.runs.filter((r) => r.cell === 'islands=1');
    assert.deepEqual(runLengthEcdf(runs, [50, 100, 199, 200, 400, 1e9]), [0, 0.25, 0.25, 0.5, 0.75, 0.75]);
    // islands=2: solved at 300 twice of 5 runs: 0 below 300, 2/5 from there.
    assert.deepEqual(
      runLengthEcdf(
        study.runs.filter((r) => r.cell === 'islands=2'),
        [299, 300, 800],
      ),
      [0, 0.4, 0.4],
    );
  });

  it('medians are over the solved runs, and say how many they are', () => {
    // islands=2: solved 300, 300: median 300 over 2 of 5 runs.
    assert.equal(two.solvedQuartiles.evaluations.median, 300);
    // islands=1: solved 100, 200, 400: median 200 (over all runs, unsolved = ∞: (200 + 400) / 2 = 300).
    assert.equal(one.solvedQuartiles.evaluations.median, 200);
    assert.equal(one.quartiles.evaluations.median, 300);
    assert.match(renderTable(summary), /islands=2 +5 +2\/5 \[12%, 77%\] +1500 \[\d+, ∞\] +300 \[300, 300\] \(2\/5\)/);
  });
});

describe('unsolved runs: every comparison at the common budget min(B_A, B_B)', () => {
  // The example in small: 1 and 2 islands under one iteration limit (100). Both
  // islands count evaluations, so an iteration is 10 evaluations on 1 island and 20 on 2,
  // and the limit cuts 1 island off at 1000 evaluations and 2 islands at 2000.
  const runs: Record<1 | 2, Hand[]> = {
    // seeds 1-4: 1 island solves at 60, 70, 80, 90 iterations; seeds 5, 6 unsolved at 100.
    1: [60, 70, 80, 90, 100, 100].map((it, i) => ({ seed: i + 1, solved: it < 100, iterations: it, evaluations: it * 10 })),
    // 2 islands: solves at 55, 65, 75, 85, 95 iterations (more evaluations than 1 island on every seed), seed 6 unsolved.
    2: [55, 65, 75, 85, 95, 100].map((it, i) => ({ seed: i + 1, solved: it < 100, iterations: it, evaluations: it * 20 })),
  };
  const study = readStudy(handMadeStudy('cut-offs', 100, runs));
  const summary = summarise(study, baselineMapper(study.manifest, study.manifest.baseline), study.manifest.baseline);
  const c = summary.cells[1].comparison!;

  it('iterations are not compared across island counts, and say why', () => {
    assert.match(c.iterations.notRun!, /2 vs 1 islands: an iteration of more islands is more work/);
    assert.equal(c.iterations.family, null);
    assert.match(renderTable(summary), /islands=2, iterations: not tested: 2 vs 1 islands/);
  });

  it('evaluations (cut off at 1000 for 1 island, 2000 for 2) are compared within 1000, saying why', () => {
    assert.equal(c.evaluations.test, 'common-budget');
    assert.equal(c.evaluations.budget, 1000);
    assert.match(c.evaluations.why!, /^3 runs unsolved, 5 solved past 1000 evaluations$/);
    // min(T, 1000): 1 island 600, 700, 800, 900, 1000, 1000; 2 islands 1000 on every seed:
    // log ratios log(1000/600) .. log(1000/900), 0, 0: 2 islands higher on seeds 1-4, ties on 5, 6.
    assert.equal(c.evaluations.rankBiserial, 1);
    assert.equal(c.evaluations.zeros, 2);
    assert.deepEqual(
      c.evaluations.logRatios,
      [600, 700, 800, 900, 1000, 1000].map((v) => Math.log(1000 / v)),
    );
    assert.match(
      renderTable(summary),
      /islands=2, evaluations: 3 runs unsolved, 5 solved past 1000 evaluations; compared at the common budget 1000/,
    );
  });

  it('plans each case: no limit and all solved, a limit no run reaches, runs cut off or solved past B', () => {
    const solved = (value: number) => ({ solved: true, value, cutoff: value });
    const cut = (cutoff: number) => ({ solved: false, value: cutoff, cutoff });
    assert.deepEqual(censoringPlan([solved(1), solved(2)], 'evaluations', [null, null]), { test: 'all-solved', budget: null, why: null });
    assert.deepEqual(censoringPlan([solved(1), solved(2)], 'evaluations', [9, null]), { test: 'all-solved', budget: 9, why: null });
    const shared = censoringPlan([solved(1), cut(5), cut(5)], 'evaluations', [5, 5]);
    assert.deepEqual([shared.test, shared.budget, shared.why], ['common-budget', 5, '2 runs unsolved']);
    // A cell's own limit bounds B even where every one of its runs solved within it.
    const past = censoringPlan([solved(7), solved(3)], 'evaluations', [5, 10]);
    assert.deepEqual([past.test, past.budget, past.why], ['common-budget', 5, '1 solved past 5 evaluations']);
    assert.equal(censoredValue(solved(7), past), Infinity, 'solved past the budget: not solved within it');
    assert.equal(testedValue(solved(7), past), 5);
    assert.equal(testedValue(solved(4), past), 4);
  });

  it('an unsolved run stopped by another limit is cut off where it stopped, not at the limit', () => {
    const limits = { maxIterations: 100, maxEvaluations: null, timeLimit: 2 };
    const stoppedByTime = { ...study.runs[0], solved: false, iterations: 40, seconds: 2.01 };
    assert.deepEqual(observe(stoppedByTime, 'iterations', limits), { solved: false, value: 40, cutoff: 40 });
    assert.deepEqual(observe(stoppedByTime, 'seconds', limits), { solved: false, value: 2.01, cutoff: 2 });
    assert.equal(censoringPlan([observe(stoppedByTime, 'iterations', limits)], 'iterations', [100, 100]).budget, 40);
  });

  it('a run the evaluation budget stopped is cut off at the budget, though it spent up to an iteration less (a budget is a prefix)', () => {
    const limits = { maxIterations: null, maxEvaluations: 1000, timeLimit: null };
    const censored = { ...study.runs[0], solved: false, evaluations: 968, ended: 'max-evaluations' as const };
    assert.deepEqual(observe(censored, 'evaluations', limits), { solved: false, value: 968, cutoff: 1000 });
    const stoppedByTime = { ...censored, ended: 'time-limit' as const };
    assert.deepEqual(observe(stoppedByTime, 'evaluations', limits), { solved: false, value: 968, cutoff: 968 });
  });
});

describe('export for IOHanalyzer (report --ioh DIR)', () => {
  // islands=1: seed 1 solved at 100 after improving to 5 at 10 and 2 at 60; seed 2 unsolved at 1000, fitness 1.
  // islands=2: seed 1 solved at 300, no trajectory (a record of a version before 0.2); seed 2 unsolved at 800.
  const folder = handMadeStudy('ioh', null, {
    1: [
      {
        ...run(1, true, 100),
        trajectory: [
          [10, 5],
          [60, 2],
          [100, 0],
        ],
      },
      {
        ...run(2, false, 1000),
        trajectory: [
          [10, 6],
          [500, 1],
          [1000, 1],
        ],
      },
    ],
    2: [run(1, true, 300), run(2, false, 800)],
  });
  const study = readStudy(folder);
  const out = path.join(dir, 'ioh-out');

  /**
   * Reads an export as IOHanalyzer's documentation ("Supported Data Format") describes it:
   * an .info file of three-line blocks (1: comma-separated name = value pairs with funcId,
   * DIM and algId, case-sensitive and mandatory; 2: a comment starting with %; 3: the data
   * file's relative path, then instance:running time|best-so-far f(x) per run); a .dat file
   * whose runs are separated by lines starting with "function evaluation" (quoted), here the
   * two-column format: evaluations and best-so-far f(x), one space apart, each block ending
   * at the run's last evaluation.
   */
  function parseExport(root: string, cellFolder: string) {
    const info = readFileSync(path.join(root, cellFolder, 'IOHprofiler_f1_i1.info'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    assert.equal(info.length, 3, 'one block of three lines');
    const pairs = Object.fromEntries(
      info[0].split(',').map((p) => {
        const at = p.indexOf('=');
        return [
          p.slice(0, at).trim(),
          p
            .slice(at + 1)
            .trim()
            .replace(/^'|'$/g, ''),
        ];
      }),
    );
    for (const key of ['funcId', 'DIM', 'algId']) assert.ok(key in pairs, `${key} in ${info[0]}`);
    assert.ok(info[1].startsWith('%'));
    const [datPath, ...runs] = info[2].split(',').map((f) => f.trim());
    const ends = runs.map((r) => {
      const m = /^(\d+):(\d+)\|([-+0-9.e]+)$/.exec(r);
      assert.ok(m, `run entry ${r}`);
      return { instance: Number(m[1]), maxRT: Number(m[2]), finalFV: Number(m[3]) };
    });
    const datFile = path.join(root, cellFolder, datPath);
    assert.ok(existsSync(datFile), datPath);
    const lines = readFileSync(datFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    assert.ok(lines[0].startsWith('"function evaluation"'), 'IOHanalyzer tells the format by the first line');
    const blocks: [number, number][][] = [];
    for (const line of lines) {
      if (line.startsWith('"function evaluation"')) {
        assert.equal(line.match(/"[^"]*"/g)!.length, 2, 'two columns');
        blocks.push([]);
        continue;
      }
      const fields = line.split(' ');
      assert.equal(fields.length, 2, `a complete two-column record: ${line}`);
      blocks[blocks.length - 1].push([Number(fields[0]), Number(fields[1])]);
    }
    return { pairs, ends, blocks };
  }

  it('writes one folder per cell whose .info and .dat parse as the documentation says, and agree', () => {
    writeExportFolder(out, iohFiles(study), '--ioh');
    const one = parseExport(out, cellFileName('islands=1'));
    assert.deepEqual([one.pairs.funcId, one.pairs.DIM, one.pairs.algId, one.pairs.maximization], ['1', '12', 'ioh c1 islands=1', 'F']);
    // Runs of islands=1: ends 100 (fitness 0) and 1000 (fitness 1); blocks are the trajectories.
    assert.deepEqual(one.ends, [
      { instance: 1, maxRT: 100, finalFV: 0 },
      { instance: 1, maxRT: 1000, finalFV: 1 },
    ]);
    assert.deepEqual(one.blocks, [
      [
        [10, 5],
        [60, 2],
        [100, 0],
      ],
      [
        [10, 6],
        [500, 1],
        [1000, 1],
      ],
    ]);
    const two = parseExport(out, cellFileName('islands=2'));
    assert.deepEqual(two.blocks, [[[300, 0]], [[800, 1]]], 'records without a trajectory: their end alone');
    for (const { ends, blocks } of [one, two]) {
      // Each block ends at its run's last evaluation and value (what the .info says), evaluations rising, f(x) never rising.
      blocks.forEach((b, k) => {
        assert.deepEqual(b.at(-1), [ends[k].maxRT, ends[k].finalFV]);
        for (let i = 1; i < b.length; i++) assert.ok(b[i][0] > b[i - 1][0] && b[i][1] <= b[i - 1][1]);
      });
    }
    assert.equal(IOH_DAT_HEADER, '"function evaluation" "best-so-far f(x)"');
  });

  it('fixed-budget values: the best fitness within each budget, known only where every run has one', () => {
    // islands=1, seed 1: 5 from 10 evaluations, 2 from 60, solved (0) at 100 and from then on.
    const [solved, unsolved] = study.runs.filter((r) => r.cell === 'islands=1');
    assert.deepEqual(
      [5, 10, 59, 60, 100, 5000].map((b) => fitnessWithin(solved.trajectory!, true, b)),
      [undefined, 5, 5, 2, 0, 0],
    );
    // Seed 2: 6 from 10, 1 from 500, stopped at 1000 unsolved: unknown past 1000.
    assert.deepEqual(
      [10, 499, 500, 1000, 1001].map((b) => fitnessWithin(unsolved.trajectory!, false, b)),
      [6, 6, 1, 1, undefined],
    );
    // The curve of islands=1 runs from 10 to 1000 (12 budgets a decade): median of (5, 6) = 5.5 at 10,
    // of (0, 1) = 0.5 at 1000. islands=2's records have no trajectory: no line.
    const points = fixedBudgetPoints(
      study.runs,
      study.manifest.cells.map((c) => c.id),
    );
    assert.ok(points.every((p) => p.cell === 'c1'));
    assert.equal(points.length, 25);
    assert.deepEqual([points[0].evaluations, points[0].median], [10, 5.5]);
    assert.ok(Math.abs(points[24].evaluations - 1000) < 1e-9);
    assert.equal(points[24].median, 0.5);
  });

  it('report --ioh refuses a folder that is not empty, with one line and exit 2', () => {
    const r = cli(['report', folder, '--ioh', out]);
    assert.equal(r.code, 2);
    assert.ok(isOneLineError(r), r.stderr);
    assert.match(r.stderr, /--ioh .*ioh-out: folder is not empty; expected a missing or empty folder/);
    const fresh = path.join(dir, 'ioh-cli');
    const ok = cli(['report', folder, '--ioh', fresh]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(existsSync(path.join(fresh, cellFileName('islands=2'), 'data_f1', 'IOHprofiler_f1_DIM12_i1.dat')));
  });
});
