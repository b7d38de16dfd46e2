/**
 * ERT at intermediate targets (src/report/statistics/target-ert.ts) against values worked out by hand in
 * the comments, and the markdown report (src/report/page/markdown.ts): the library's
 * `studyReport(dir).markdown` and `report DIR --markdown FILE`, from a hand-made study folder.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { studyReport } from '../src/index.ts';
import type { RunRecord } from '../src/experiment/records.ts';
import { markdownTable, markdownText } from '../src/report/page/markdown.ts';
import { ertInterval } from '../src/report/statistics/stats.ts';
import { anytimeRange, meanFitnessOver } from '../src/report/statistics/anytime.ts';
import { ERT_TARGETS, ertAtTargets, targetRunLength } from '../src/report/statistics/target-ert.ts';
import { cliInProcess } from './cli-helpers.ts';
import { handMadeStudy, type Hand } from './hand-study.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-targets-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// Three runs of one cell. A: solved at 800. B: unsolved, stopped at 1000 with f = 3.
// C: solved at 600. Each trajectory's last point is the run's evaluations and fitness.
const A: Hand = {
  seed: 1,
  solved: true,
  iterations: 80,
  evaluations: 800,
  trajectory: [
    [100, 10],
    [300, 5],
    [500, 2],
    [800, 0],
  ],
};
const B: Hand = {
  seed: 2,
  solved: false,
  iterations: 100,
  evaluations: 1000,
  trajectory: [
    [100, 12],
    [400, 6],
    [700, 3],
    [1000, 3],
  ],
};
const C: Hand = {
  seed: 3,
  solved: true,
  iterations: 60,
  evaluations: 600,
  trajectory: [
    [100, 9],
    [200, 4],
    [250, 1],
    [600, 0],
  ],
};
const record = (h: Hand) => ({ ...h, trajectory: h.trajectory, cell: 'c' }) as unknown as RunRecord;

describe('ERT to reach f <= target, from the trajectories', () => {
  const runs = [A, B, C].map(record);

  it("the area over the convergence curve, worked out by hand over the study's common range", () => {
    // X = 1000: B, the one unsolved run, reached 1000. Before its first point a run counts that point's fitness.
    // A: 10 on [0, 300), 5 on [300, 500), 2 on [500, 800), 0 after: 3000 + 1000 + 600 = 4600, / 1000 = 4.6.
    // B: 12 on [0, 400), 6 on [400, 700), 3 on [700, 1000): 4800 + 1800 + 900 = 7500: 7.5.
    // C: 9 on [0, 200), 4 on [200, 250), 1 on [250, 600), 0 after: 1800 + 200 + 350 = 2350: 2.35.
    assert.equal(anytimeRange(runs), 1000);
    assert.ok(Math.abs(meanFitnessOver(runs, 1000) - (4.6 + 7.5 + 2.35) / 3) < 1e-12);
    // All solved: X is the most any run needed (800); A: (3000 + 1000 + 600) / 800; C: 2350 / 800.
    assert.equal(anytimeRange([runs[0], runs[2]]), 800);
    assert.ok(Math.abs(meanFitnessOver([runs[0], runs[2]], 800) - (4600 / 800 + 2350 / 800) / 2) < 1e-12);
  });

  it('is worked out by hand: a run that missed the target counts its whole budget', () => {
    const got = ertAtTargets(runs);
    assert.deepEqual(
      got.map((t) => t.target),
      [...ERT_TARGETS],
    );
    // f <= 8: A at 300 (f 5), B at 400 (f 6), C at 200 (f 4): (300 + 400 + 200) / 3 = 300.
    // f <= 4: A at 500 (f 2), B at 700 (f 3), C at 200: 1400 / 3.
    // f <= 2: A at 500, B never (its budget, 1000), C at 250 (f 1): 1750 / 2 = 875.
    // f <= 1: A at 800 (f 0), B 1000, C at 250: 2050 / 2 = 1025.
    // f <= 0: A 800, B 1000, C 600: 2400 / 2 = 1200, the cell's ERT.
    const expected = [300, 1400 / 3, 875, 1025, 1200];
    got.forEach((t, i) => assert.ok(Math.abs(t.ert - expected[i]) < 1e-9, `f <= ${t.target}: ${t.ert}, expected ${expected[i]}`));
    assert.deepEqual(
      got.map((t) => t.reached),
      [3, 3, 2, 2, 2],
    );
  });

  it("each target's interval is ERT's bootstrap over the runs' lengths to that target", () => {
    assert.deepEqual(targetRunLength(runs[1], 2), { solved: false, evaluations: 1000 });
    assert.deepEqual(targetRunLength(runs[2], 2), { solved: true, evaluations: 250 });
    const [at2] = ertAtTargets(runs, [2]);
    const lengths = [
      { solved: true, evaluations: 500 },
      { solved: false, evaluations: 1000 },
      { solved: true, evaluations: 250 },
    ];
    assert.deepEqual(at2.interval, ertInterval(lengths));
    assert.ok(at2.interval.lower <= at2.ert && at2.ert <= at2.interval.upper);
  });

  it('is infinite for a target no run reached', () => {
    const [t] = ertAtTargets([runs[1]], [2]);
    assert.equal(t.ert, Infinity);
    assert.equal(t.reached, 0);
  });
});

describe('the report carries the ERT at each target', () => {
  // islands=1: A, B and C; islands=2: the same runs, each with half the evaluations.
  const half = (h: Hand): Hand => ({
    ...h,
    evaluations: h.evaluations / 2,
    trajectory: h.trajectory!.map(([x, f]) => [x / 2, f] as [number, number]),
  });
  const folder = handMadeStudy(dir, 'targets', null, { 1: [A, B, C], 2: [A, B, C].map(half) });
  const report = studyReport(folder);
  const [one, two] = report.summary.cells;

  it('in the summary (and so in --json), per cell', () => {
    assert.equal(one.ertAtTargets[2].ert, 875);
    assert.equal(two.ertAtTargets[2].ert, 875 / 2);
    assert.equal(one.ertAtTargets.at(-1)!.ert, one.ert, 'the last target, 0, is the ERT');
  });

  it('in the terminal table and the CSV', () => {
    assert.match(report.table, /ERT to reach f ≤ target:\ncell\s+f ≤ 8\s+f ≤ 4\s+f ≤ 2\s+f ≤ 1\s+f ≤ 0\s+mean f to \d+ evals\n/);
    // islands=1 at f <= 2: 875; f <= 1: 1025 (formatNumber: integers as they are).
    assert.match(report.table, /\nislands=1\s+300 \[[^\]]+\]\s+467 \[[^\]]+\]\s+875 \[[^\]]+\]\s+1025 \[[^\]]+\]\s+1200 \[/);
    const [header, first] = report.csv.split('\n').map((l) => l.split(','));
    const at = header.indexOf('ert_target_2');
    assert.ok(at > 0 && header[at + 1] === 'ert_target_2_lower' && header[at + 2] === 'ert_target_2_upper', header.join());
    assert.equal(first[at], '875');
  });

  it('in --json', async () => {
    const r = await cliInProcess(['report', folder, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const data = JSON.parse(r.stdout) as { cells: { ertAtTargets: { target: number; ert: number; reached: number }[] }[] };
    assert.deepEqual(
      data.cells[1].ertAtTargets.map((t) => [t.target, t.ert, t.reached]),
      [
        [8, 150, 3],
        [4, 1400 / 6, 3],
        [2, 875 / 2, 2],
        [1, 1025 / 2, 2],
        [0, 600, 2],
      ],
    );
  });
});

describe('the markdown report', () => {
  it('escapes what markdown would read: a pipe, a link, HTML, a line break', () => {
    assert.equal(markdownText('a|b [x](y) <b>&\nc'), 'a\\|b \\[x\\](y) \\<b\\>\\& c');
    assert.equal(markdownText('2 * 3_4 `x` #1 ~z~ \\'), '2 \\* 3\\_4 \\`x\\` \\#1 \\~z\\~ \\\\');
    assert.equal(markdownText('bell \u0007'), 'bell \\\\u0007', 'a control character shows as its escape');
  });

  it('a GitHub table: header, delimiter, one row per line, every row as wide as the header', () => {
    const table = markdownTable(
      ['cell', 'n'],
      [
        ['a|b', '1'],
        ['c', '2'],
      ],
    );
    assert.equal(table, '| cell | n |\n| :--- | ---: |\n| a\\|b | 1 |\n| c | 2 |');
  });

  // Cell islands=2 needs half the evaluations of islands=1 on every seed: exact p = 2 / 2^8, lower after Bonferroni over its one test.
  const folder = handMadeStudy(dir, 'md|<b>study', null, {
    1: [1, 2, 3, 4, 5, 6, 7, 8].map((seed): Hand => ({ seed, solved: true, iterations: 10, evaluations: 100 * seed })),
    2: [1, 2, 3, 4, 5, 6, 7, 8].map((seed): Hand => ({ seed, solved: true, iterations: 10, evaluations: 50 * seed })),
  });

  it('opens with the headline, then the summary and target tables, the notes and the provenance', () => {
    const { markdown, headline, summary } = studyReport(folder);
    const lines = markdown.split('\n');
    assert.equal(lines[0], '# md\\|\\<b\\>study');
    const firstSection = lines.findIndex((l) => l.startsWith('## '));
    const bullets = lines.slice(0, firstSection).filter((l) => l.startsWith('- '));
    assert.equal(bullets.length, headline.length);
    assert.match(bullets[0], /^- Families \(each Bonferroni at α = 0\.05/);
    assert.match(bullets[1], /^- islands=2 against islands=1: evaluations lower: 0\.500× \\\[0\.500, 0\.500\\\]/);
    assert.deepEqual(
      lines.filter((l) => l.startsWith('## ')),
      ['## Summary', '## ERT to reach f ≤ target', '## Notes', '## Provenance'],
    );
    // Every row of a table has as many cells as its header (unescaped pipes).
    const cells = (l: string) => l.replace(/\\\|/g, '').split('|').length;
    const tables = markdown.split('\n\n').filter((b) => b.startsWith('| '));
    assert.equal(tables.length, 2);
    for (const t of tables) {
      const rows = t.split('\n');
      assert.equal(rows.length, 2 + summary.cells.length);
      assert.ok(
        rows.every((r) => cells(r) === cells(rows[0])),
        t,
      );
    }
    assert.match(markdown, /\n\| islands=2 \| 8 \| 8\/8 /);
    assert.match(markdown, /## Provenance\n\n- Made by nqueens-islands 0\.0\.0/);
  });

  it("report DIR --markdown FILE writes the library's markdown; refused onto the study's inputs and with --run", async () => {
    const file = path.join(dir, 'report.md');
    const r = await cliInProcess(['report', folder, '--markdown', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(file, 'utf8'), studyReport(folder).markdown);
    assert.match(r.stderr, /wrote .*report\.md/);

    const runs = path.join(folder, 'runs.jsonl');
    const before = readFileSync(runs, 'utf8');
    const onto = await cliInProcess(['report', folder, '--markdown', runs]);
    assert.equal(onto.code, 2);
    assert.equal(onto.stdout, '');
    assert.match(
      onto.stderr.trim(),
      /^nqueens-islands: --markdown .*runs\.jsonl: is runs\.jsonl of the study in .*; a study's records are never written over/,
    );
    assert.equal(readFileSync(runs, 'utf8'), before);

    const same = await cliInProcess(['report', folder, '--markdown', file, '--csv', file]);
    assert.equal(same.code, 2);
    assert.equal(same.stderr.trim().split('\n').length, 1, same.stderr);

    const alone = path.join(dir, 'alone.md');
    const run = await cliInProcess(['report', '--run', runs, '--markdown', alone]);
    assert.equal(run.code, 2);
    assert.match(run.stderr.trim(), /^nqueens-islands: --markdown: needs a study folder/);
    assert.equal(existsSync(alone), false);
  });
});
