import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cellNames } from '../src/report/page/cell-names.ts';
import { chromium, type Browser } from 'playwright-core';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { MANIFEST_FORMAT, type Manifest, type RunRecord } from '../src/experiment/records.ts';
import { eventLogPath } from '../src/experiment/runner.ts';
import { expandSweep, baselineOf } from '../src/experiment/sweep.ts';
import { baselineMapper, parseBaselineFlags } from '../src/report/statistics/baseline.ts';
import { renderHtml } from '../src/report/page/html.ts';
import { PAPER_TABLE1, table1Rows } from '../src/report/page/paper-table1.ts';
import { readEvents, readStudy } from '../src/report/data/study-data.ts';
import { summarise } from '../src/report/statistics/summary.ts';
import { MEASURE_COLUMNS, renderCsv, summaryRows, targetErtRows } from '../src/report/page/table.ts';
import { renderTable } from '../src/report/page/terminal-table.ts';
import { progressPoints } from '../src/report/figures/charts.ts';
import { runExperiment, type ArchipelagoEvent } from '../src/index.ts';
import { cliInProcess, isOneLineError, oneLine } from './cli-helpers.ts';
import { paper } from './helpers.ts';
import { CHROMIUM, CHROMIUM_ARGS, systemTool } from './system-tools.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { availableParallelism: 4, totalMemory: 8e9 };

/** A deterministic stream in [0, 1) (mulberry32), so the synthetic study is the same every time. */
function stream(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Writes a study folder as `experiment` would, without running anything: cells ring,
 * fully-connected and none (the baseline) on 4 islands, 8 seeds; ring is about twice as
 * fast as none, one run of none is unsolved and one of fully-connected failed. `events` adds
 * event logs to every run. Another `sweep` (with topology.kind, none among its kinds) gives other cells.
 */
function syntheticStudy(
  name: string,
  events: boolean,
  sweep: Record<string, (string | number)[]> = { 'topology.kind': ['ring', 'fully-connected', 'none'] },
  seeds = [1, 2, 3, 4, 5, 6, 7, 8],
): string {
  const out = path.join(dir, name);
  mkdirSync(path.join(out, 'events'), { recursive: true });
  const baseline = { 'topology.kind': 'none' };
  const cells = expandSweep(sweep).map((cell) => ({
    ...cell,
    baseline: baselineOf(cell, baseline),
    config: resolveRunConfig(
      {
        n: 48,
        islands: 4,
        topology: { kind: cell.values['topology.kind'] },
        migration: { interval: cell.values['migration.interval'] ?? 1 },
      },
      'synthetic',
      {},
      env,
    ),
  }));
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    name,
    description: 'synthetic <study> & friends',
    experiment: { file: '/x/study.yaml', sha256: 'f'.repeat(64), text: 'sweep:\n  topology.kind: [ring, fully-connected, none]\n' },
    keys: Object.keys(sweep),
    seeds,
    baseline,
    cells,
    events,
    tool: { name: 'nqueens-islands', version: '0.0.0' },
    environment: { node: 'v20', platform: 'linux', arch: 'x64', cpuModel: 'test cpu', cores: 4, totalMemoryBytes: 8e9 },
    startedAt: '2025-01-01T00:00:00.000Z',
    resumedAt: [],
  };
  writeFileSync(path.join(out, 'manifest.json'), JSON.stringify(manifest));
  const random = stream(7);
  const speed: Record<string, number> = { ring: 0.5, 'ring-bi': 0.55, 'fully-connected': 0.7, star: 0.8, hypercube: 0.6, none: 1 };
  const lines: string[] = [];
  for (const seed of seeds) {
    const hardness = 0.5 + random() * 2;
    for (const cell of cells) {
      const kind = cell.values['topology.kind'] as string;
      const solved = !(kind === 'none' && seed === 8);
      const seconds = hardness * speed[kind] * (0.9 + 0.2 * random());
      const iterations = Math.round(seconds * 400);
      const record: RunRecord = {
        cell: cell.id,
        values: cell.values,
        seed,
        solved,
        fitness: solved ? 0 : 1,
        seconds: solved ? seconds : 20,
        iterations,
        evaluations: iterations * 4000,
        evaluationsAfterSolution: null,
        foundBy: solved ? seed % 4 : null,
        stopLatencyMs: 2,
        migrantsSent: 0,
        migrantsAccepted: 0,
        islands: [],
        // A 48-queens solution (evens then odds: valid for N mod 6 not 2 or 3).
        solution: solved ? [...Array.from({ length: 24 }, (_, k) => 2 * k + 2), ...Array.from({ length: 24 }, (_, k) => 2 * k + 1)] : null,
        finishedAt: '2025-01-01T00:00:00.000Z',
        error: kind === 'fully-connected' && seed === 3 ? 'island 1: worker exited' : null,
        // Best fitness 12, 9, 6, 3 at a fifth, two, three and four fifths of the run, then its end.
        trajectory: [
          ...[1, 2, 3, 4].map((k): [number, number] => [Math.round((k * iterations * 4000) / 5), 15 - 3 * k]),
          [iterations * 4000, solved ? 0 : 1],
        ],
      };
      lines.push(JSON.stringify(record));
      if (!events) continue;
      const log: object[] = [];
      for (let t = 1; t <= 8; t++) {
        for (let island = 0; island < 4; island++) {
          log.push({
            type: 'progress',
            island,
            iteration: t * 50,
            evaluations: t * 50000,
            bestFitness: Math.max(1, 12 - t - island),
            meanFitness: 20,
            diversity: 0.3,
            migrantsSent: t,
            migrantsAccepted: t,
            seconds: (t * record.seconds) / 9,
          });
          if (kind !== 'none')
            log.push({
              type: 'migration',
              from: island,
              to: (island + 1) % 4,
              epoch: null,
              iteration: t * 20,
              sent: 2,
              accepted: t % 3 === 0 ? 0 : 1,
            });
        }
      }
      if (solved) log.push({ type: 'solution', island: record.foundBy, iteration: iterations, solution: [1], seconds: record.seconds });
      writeFileSync(path.join(out, eventLogPath(cell.id, seed)), log.map((e) => `${JSON.stringify(e)}\n`).join(''));
    }
  }
  writeFileSync(path.join(out, 'runs.jsonl'), `${lines.join('\n')}\n`);
  return out;
}

describe('summary, table and CSV', () => {
  const study = readStudy(syntheticStudy('summary', false));
  const summary = summarise(study, baselineMapper(study.manifest, study.manifest.baseline), study.manifest.baseline);
  const [ring, fully, none] = summary.cells;

  it('counts runs and successes, quartiles with unsolved as ∞, comparisons against the baseline', () => {
    assert.deepEqual([ring.runs, ring.solved, none.runs, none.solved, fully.runs], [8, 8, 8, 7, 7]);
    assert.deepEqual(summary.failedRuns, ['topology.kind=fully-connected@3: island 1: worker exited']);
    assert.equal(fully.comparison!.seconds.pairs, 7, 'the failed run is no pair');
    assert.equal(none.successRate, 7 / 8);
    assert.equal(none.comparison, null);
    assert.equal(ring.baseline, none.id);
    const c = ring.comparison!.seconds;
    assert.equal(c.pairs, 8);
    // Ring is faster on every seed (the unsolved baseline run counts as slower still).
    assert.equal(c.rankBiserial, -1);
    assert.equal(c.method, 'exact');
    assert.ok(Math.abs(c.pValue - 2 / 256) < 1e-12, `p = ${c.pValue}`);
    assert.ok(c.ratio!.value > 0.4 && c.ratio!.value < 0.6);
    assert.ok(fully.comparison!.seconds.pAdjusted >= fully.comparison!.seconds.pValue);
  });

  it('renders a table and a CSV with one row per cell', () => {
    const table = renderTable(summary);
    assert.match(table, /summary: 23 of 24 runs, 8 seeds per cell\nleft out, an island failed: topology.kind=fully-connected@3/);
    assert.match(table, /topology\.kind=none\s+8\s+7\/8 \[53%, 98%\]/);
    const csv = renderCsv(summary).trim().split('\n');
    assert.equal(csv.length, 4);
    const header = csv[0].split(',');
    const row = (i: number) => Object.fromEntries(csv[i].match(/("[^"]*"|[^,]*)(,|$)/g)!.map((f, k) => [header[k], f.replace(/,$/, '')]));
    assert.equal(row(1).cell, 'topology.kind=ring');
    assert.equal(row(1).seconds_p_method, 'exact');
    assert.equal(row(3).success_rate, '0.875');
    assert.equal(row(3).seconds_p, '', 'no comparison for the baseline');
  });

  it('refuses a manifest that is not a study manifest with one line, even JSON null', () => {
    for (const [name, text] of [
      ['null', 'null'],
      ['list', '[1]'],
      ['other', '{"format":"x"}'],
    ]) {
      const folder = path.join(dir, `bad-manifest-${name}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, 'manifest.json'), text);
      assert.throws(() => readStudy(folder), {
        name: 'ConfigError',
        message: /manifest\.json: format .*, expected nqueens-islands\/experiment-results@1$/,
      });
    }
  });

  it('takes another baseline from report --baseline, and refuses one that is not swept', () => {
    const other = parseBaselineFlags(['topology.kind=ring'], study.manifest);
    const s = summarise(study, baselineMapper(study.manifest, other), other);
    assert.equal(s.cells[0].comparison, null);
    assert.equal(s.cells[2].comparison!.seconds.rankBiserial, 1);
    assert.throws(
      () => parseBaselineFlags(['topology.kind=star'], study.manifest),
      /--baseline topology.kind=star: expected one of the swept values ring, fully-connected, none/,
    );
    assert.throws(() => parseBaselineFlags(['islands=2'], study.manifest), /islands is not a sweep key/);
    assert.throws(() => parseBaselineFlags(['ring'], study.manifest), /expected KEY=VALUE/);
  });

  it("keeps the paper's Table 1 as the fixture has it", () => {
    for (const entry of paper.table1) assert.ok(PAPER_TABLE1[entry.n].includes(entry.iterations!), `N = ${entry.n}`);
    assert.equal(Object.values(PAPER_TABLE1).flat().length, paper.table1.length);
    assert.deepEqual(table1Rows(study), [], 'no n in 10..25 in this study');
  });
});

describe('HTML report', () => {
  const withEvents = syntheticStudy('with-events', true);
  const without = syntheticStudy('without-events', false);
  let page = '';
  let bare = '';
  before(async () => {
    for (const [folder, setter] of [
      [withEvents, (h: string) => (page = h)],
      [without, (h: string) => (bare = h)],
    ] as const) {
      const study = readStudy(folder);
      const html = await renderHtml(
        study,
        summarise(study, baselineMapper(study.manifest, study.manifest.baseline), study.manifest.baseline),
        null,
      );
      writeFileSync(path.join(folder, 'report.html'), html);
      setter(html);
    }
  });

  it('is self-contained: no scripts, nothing fetched, text escaped', () => {
    assert.doesNotMatch(page, /<script/i);
    assert.doesNotMatch(page, /(src|href)\s*=\s*["']?(https?:)?\/\//i);
    assert.match(page, /Content-Security-Policy" content="default-src 'none'/);
    assert.match(page, /synthetic &lt;study&gt; &amp; friends/);
    assert.equal(page.match(/<svg/g)?.length, 7, 'ECDF, fixed budget, two box plots, diversity, fitness over time, migration flow');
  });

  it('has every column of the terminal table', () => {
    const study = readStudy(withEvents);
    const summarised = summarise(study, baselineMapper(study.manifest, study.manifest.baseline), study.manifest.baseline);
    const { header } = summaryRows(summarised);
    // The settings table first, then the measures, the comparisons and the ERT to each target (each headed by the cell column).
    const summary = page.slice(page.indexOf('<h2>Summary</h2>'));
    const columns = [...summary.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]);
    const targets = targetErtRows(summarised).header;
    assert.deepEqual(columns, [...header.slice(0, MEASURE_COLUMNS), header[0], ...header.slice(MEASURE_COLUMNS), ...targets]);
    for (const name of ['start-up s', 'pairs ≠', 'r', 'p', 'p Bonf.', 'evals ERT ratio', 'success p Bonf.'])
      assert.ok(columns.includes(name), name);
    // The ratios' intervals are headed by their family's level.
    for (const name of [/^time ratio \[\d+(\.\d+)?%\]$/, /^evals ratio \[\d+(\.\d+)?%\]$/])
      assert.ok(
        columns.some((c) => name.test(c)),
        String(name),
      );
  });

  it("refuses --paper-table1 for a study that is not the paper's set-up, naming what differs", async () => {
    const r = await cliInProcess(['report', withEvents, '--paper-table1']);
    assert.ok(isOneLineError(r), r.stderr);
    assert.match(
      r.stderr,
      /--paper-table1: .* is not the paper's set-up \(one island, topology none, paper mode\), so Table 1 is no comparison: cell topology\.kind=ring: islands 4, topology\.kind ring \(and 2 more cells\)$/m,
    );
  });

  it('says where event logs are missing', () => {
    assert.match(bare, /No event logs in this study: run the experiment with --events/);
    assert.equal(bare.match(/<svg/g)?.length, 4, 'ECDF, fixed budget and the box plots only');
  });

  // Skipped with one line where there is no Chromium; CI sets NQI_REQUIRE_CHROMIUM=1, so there it must run.
  const chromiumTool = systemTool(CHROMIUM);
  describe('in a real headless browser (Chromium)', { skip: chromiumTool.skip }, () => {
    let browser: Browser;
    before(async () => {
      browser = await chromium.launch({ executablePath: chromiumTool.path(), args: CHROMIUM_ARGS });
    });
    after(async () => browser?.close());

    for (const [name, folder, charts] of [
      ['with event logs', () => withEvents, 7],
      ['without event logs', () => without, 4],
    ] as const) {
      it(`loads without console errors or fetches and draws its charts (${name})`, async () => {
        const tab = await browser.newPage();
        const problems: string[] = [];
        tab.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
        tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        tab.on('request', (r) => !r.url().startsWith('file:') && !r.url().startsWith('data:') && problems.push(`fetch: ${r.url()}`));
        await tab.goto(`file://${path.join(folder(), 'report.html')}`, { waitUntil: 'load' });
        const figures = await tab.$$eval('figure svg', (svgs) =>
          svgs.map((svg) => {
            const box = svg.getBoundingClientRect();
            return {
              width: box.width,
              height: box.height,
              marks: svg.querySelectorAll('g[class*="mark-"] > path, g[class*="mark-"] > line, g[class*="mark-"] > rect').length,
            };
          }),
        );
        assert.equal(figures.length, charts);
        for (const f of figures) {
          assert.ok(f.width > 100 && f.height > 50, `chart size ${f.width}x${f.height}`);
          assert.ok(f.marks > 3, `chart has ${f.marks} marks`);
        }
        assert.equal(
          await tab.locator('table tbody tr').count(),
          12,
          'settings, measures, comparisons and ERT to each target: a row per cell each',
        );
        assert.deepEqual(problems, []);
        await tab.close();
      });
    }

    const layouts: [number, Record<string, string[] | number[]>][] = [
      [2, { 'topology.kind': ['ring', 'none'] }],
      [8, { 'topology.kind': ['ring', 'ring-bi', 'fully-connected', 'none'], 'migration.interval': [1, 50] }],
      [
        24,
        { 'topology.kind': ['ring', 'ring-bi', 'fully-connected', 'star', 'hypercube', 'none'], 'migration.interval': [1, 10, 50, 100] },
      ],
    ];
    for (const [count, sweep] of layouts) {
      it(`lays out a study of ${count} cells with nothing overflowing or cut and no console error`, async () => {
        const folder = syntheticStudy(`layout-${count}`, true, sweep, [1, 2, 3, 4]);
        const study = readStudy(folder);
        assert.equal(study.manifest.cells.length, count);
        const html = path.join(folder, 'report.html');
        writeFileSync(
          html,
          await renderHtml(study, summarise(study, baselineMapper(study.manifest, study.manifest.baseline), study.manifest.baseline), null),
        );
        const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const problems: string[] = [];
        tab.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
        tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        await tab.goto(`file://${html}`, { waitUntil: 'load' });
        // What overflows: the page wider than the window, text wider than its box, chart text outside its chart, labels cut short (…).
        const overflows = await tab.$eval('html', (root) => {
          const out: string[] = [];
          if (root.scrollWidth > root.clientWidth) out.push(`page ${root.scrollWidth} px wide in a window of ${root.clientWidth}`);
          for (const el of root.querySelectorAll('h1, h2, h3, p, li, th, td, figcaption, pre, figure')) {
            if (el.scrollWidth > el.clientWidth + 1)
              out.push(`${el.tagName} "${(el.textContent ?? '').slice(0, 50)}": ${el.scrollWidth} > ${el.clientWidth}`);
          }
          for (const svg of root.querySelectorAll('figure svg')) {
            const box = svg.getBoundingClientRect();
            const figure = svg.parentElement!.getBoundingClientRect();
            if (box.left < figure.left - 1 || box.right > figure.right + 1)
              out.push(`chart ${box.width} px wide in a figure of ${figure.width}`);
            for (const text of svg.querySelectorAll('text')) {
              const r = text.getBoundingClientRect();
              const content = text.textContent ?? '';
              if (content.endsWith('…')) out.push(`label cut short: "${content}"`);
              if (r.width === 0) continue;
              if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
                out.push(`chart text "${content}" outside its chart`);
            }
          }
          return out;
        });
        assert.deepEqual(overflows, []);
        // Every cell is in the ECDF's legend under the name its swept values make, in manifest order.
        const legend = await tab.$$eval('figure svg', (svgs) =>
          [...svgs[0].querySelectorAll('.role-legend-label text')].map((t) => t.textContent ?? ''),
        );
        assert.deepEqual(legend, [...cellNames(study.manifest.cells).values()]);
        const rows = await tab.$$eval('table:first-of-type tbody th', (ths) => ths.map((th) => th.textContent));
        assert.deepEqual(
          rows,
          study.manifest.cells.map((c, i) => `c${i + 1} ${c.id}`),
        );
        assert.deepEqual(problems, []);
        await tab.close();
      });
    }

    /** Loads a page, saves a screenshot beside it, and counts the points plotted in each chart (legend symbols are not marks). */
    async function plottedPoints(html: string): Promise<number[]> {
      const tab = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const problems: string[] = [];
      tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      tab.on('request', (r) => !r.url().startsWith('file:') && !r.url().startsWith('data:') && problems.push(`fetch: ${r.url()}`));
      await tab.goto(`file://${html}`, { waitUntil: 'load' });
      const png = await tab.screenshot({ path: html.replace(/\.html$/, '.png'), fullPage: true });
      assert.ok(png.length > 10_000, 'a screenshot with something on it');
      const counts = await tab.$$eval('figure svg', (svgs) =>
        svgs.map((svg) => svg.querySelectorAll('g.mark-symbol.role-mark path').length),
      );
      assert.deepEqual(problems, []);
      await tab.close();
      return counts;
    }

    /** Points per island of a log's fitness curves, checked to be several for each island. */
    function pointsPerIsland(events: readonly ArchipelagoEvent[], islands: number): number {
      const points = progressPoints(events, 'iterations');
      for (let island = 0; island < islands; island++) {
        const own = points.filter((p) => p.island === island).length;
        assert.ok(own >= 3, `island ${island} has ${own} points`);
      }
      return points.length;
    }

    it('draws a curve of several points per island for a study of runs of about 0.1 s', async () => {
      const out = path.join(dir, 'short-runs');
      await runExperiment(
        {
          name: 'short runs',
          base: { overrides: { n: 20, islands: 2, migration: { mode: 'sync', interval: 2 } } },
          sweep: { 'topology.kind': ['ring', 'none'] },
          baseline: { 'topology.kind': 'none' },
          repeats: 2,
          seed: 1,
        },
        { out, events: true },
      );
      const study = readStudy(out);
      assert.ok(
        study.runs.every((r) => r.seconds < 1),
        `short runs: ${study.runs.map((r) => r.seconds).join(', ')} s`,
      );
      const html = path.join(out, 'report.html');
      writeFileSync(
        html,
        await renderHtml(study, summarise(study, baselineMapper(study.manifest, study.manifest.baseline), study.manifest.baseline), null),
      );
      const chosen = study.runs[0];
      const expected = pointsPerIsland(readEvents(study, chosen.cell, chosen.seed)!, 2);
      const fitness = (await plottedPoints(html))[5];
      assert.equal(fitness, expected, 'every progress sample of the chosen run is a point');
    });

    /** Loads a page and returns, per figure, its title and how many marks it draws; fails on any console error, page error or fetch. */
    async function figureMarks(html: string): Promise<{ titles: string[]; marks: number }[]> {
      const tab = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const problems: string[] = [];
      tab.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
      tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      tab.on('request', (r) => !r.url().startsWith('file:') && !r.url().startsWith('data:') && problems.push(`fetch: ${r.url()}`));
      await tab.goto(`file://${html}`, { waitUntil: 'load' });
      const figures = await tab.$$eval('figure svg', (svgs) =>
        svgs.map((svg) => ({
          titles: [...svg.querySelectorAll('.role-title-text')].map((t) => t.textContent ?? ''),
          marks: svg.querySelectorAll(
            'g[class*="mark-"] > path, g[class*="mark-"] > line, g[class*="mark-"] > rect, g[class*="mark-"] > text',
          ).length,
        })),
      );
      assert.deepEqual(problems, []);
      await tab.close();
      return figures;
    }

    it('draws the migration observables of one run (report --run): distance per pair, its matrix, distinct genotypes, immigrants per island, the takeover', async () => {
      const trace = path.join(dir, 'takeover-trace.jsonl');
      const html = path.join(dir, 'takeover-run.html');
      const solved = await cliInProcess([
        'solve',
        '-n',
        '16',
        '--mode',
        'takeover',
        '--population',
        '256',
        '--islands',
        '4',
        '--topology',
        'ring-bi',
        '--migration',
        'sync',
        '--interval',
        '1',
        '--migrants',
        '1',
        '--seed',
        '2',
        '--trace',
        trace,
        '--json',
      ]);
      assert.equal(solved.code, 0, solved.stderr);
      const r = await cliInProcess(['report', '--run', trace, '--html', html]);
      assert.equal(r.code, 0, r.stderr);
      const events = readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line) as ArchipelagoEvent);
      const between = events.filter((e) => e.type === 'between');
      assert.ok(between.length >= 6 && events.some((e) => e.type === 'survival'), 'the trace has between and survival events');
      const figures = await figureMarks(html);
      const titled = (text: string) => figures.find((f) => f.titles.some((t) => t.startsWith(text)));
      for (const title of [
        'distance between the islands of each pair',
        'distance between islands at iteration',
        'distinct genotypes and mean distance',
        'immigrants per migration',
      ]) {
        assert.ok(titled(title), `a chart "${title}" in ${JSON.stringify(figures.map((f) => f.titles))}`);
        assert.ok(titled(title)!.marks > 3, `"${title}" draws ${titled(title)!.marks} marks`);
      }
      // 6 pairs of 4 islands, a line each; a 4 x 4 matrix without its diagonal.
      assert.equal(titled('distance between the islands of each pair')!.marks >= 6, true);
      const page = readFileSync(html, 'utf8');
      assert.match(page, /<h2>Takeover<\/h2>/);
      assert.match(page, /Archipelago: taken over at iteration \d+/);
    });

    it('draws the migration observables of a study: medians per cell, immigrant rates, the takeover table and plot', async () => {
      const out = path.join(dir, 'takeover-study');
      await runExperiment(
        {
          name: 'takeover',
          base: {
            overrides: { n: 16, islands: 4, ga: { mode: 'takeover', populationSize: 32 }, migration: { mode: 'sync', migrants: 1 } },
          },
          sweep: { 'topology.kind': ['ring', 'fully-connected'], 'migration.interval': [1, 5] },
          repeats: 2,
          seed: 1,
        },
        { out, events: false },
      );
      const study = readStudy(out);
      assert.ok(
        study.runs.every((r) => r.takeover?.iteration !== null && (r.between?.length ?? 0) >= 4),
        'every run records its takeover and between samples',
      );
      const html = path.join(out, 'report.html');
      writeFileSync(html, await renderHtml(study, summarise(study, baselineMapper(study.manifest, null), null), null));
      const figures = await figureMarks(html);
      for (const title of [
        'between the islands: median over runs, per cell',
        'immigrants accepted and surviving',
        'takeover time: measured median',
      ]) {
        const f = figures.find((x) => x.titles.some((t) => t.startsWith(title)));
        assert.ok(f && f.marks > 3, `a chart "${title}" with marks in ${JSON.stringify(figures)}`);
      }
      const page = readFileSync(html, 'utf8');
      assert.match(page, /<h2>Takeover time<\/h2>/);
      assert.equal(
        page.match(/<th scope="row">topology\.kind=ring,migration\.interval=5<\/th>/g)?.length,
        1,
        'the cell in the takeover table',
      );
      assert.equal(
        page.match(/<th scope="row"><span class="short">c\d+<\/span> topology\.kind=ring,<wbr>migration\.interval=5<\/th>/g)?.length,
        3,
        'the cell, by short name and full label, in the settings table, the summary and the ERT to each target',
      );
      const r = await cliInProcess(['report', out]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /takeover time \(iterations at which every island held only copies of the best/);
      assert.match(r.stdout, /^topology\.kind=fully-connected,migration\.interval=1\s+2\s+2\s+/m);
      // Takeover fitness (1 = a copy of the best, 2 = other) is not the paper's: no ERT to the paper's targets, no mean f, no IOH export.
      assert.match(r.stdout, /^topology\.kind=ring,migration\.interval=5(\s+n\/a){6}$/m);
      assert.match(r.stdout, /n\/a: .* score members by the takeover mode's own fitness/);
      const ioh = await cliInProcess(['report', out, '--ioh', path.join(dir, 'takeover-ioh')]);
      assert.equal(ioh.code, 2, ioh.stderr);
      assert.match(oneLine(ioh, '--ioh of takeover cells'), /--ioh: every cell scores members by the takeover mode's own fitness/);
      assert.equal(existsSync(path.join(dir, 'takeover-ioh')), false);
    });

    it('draws one run from solve --trace with report --run FILE --html: fitness and diversity per island, migrants per edge', async () => {
      const trace = path.join(dir, 'trace.jsonl');
      const html = path.join(dir, 'run.html');
      const solved = await cliInProcess([
        'solve',
        '-n',
        '20',
        '--islands',
        '2',
        '--seed',
        '4',
        '--migration',
        'sync',
        '--interval',
        '2',
        '--trace',
        trace,
        '--json',
      ]);
      assert.equal(solved.code, 0, solved.stderr);
      const r = await cliInProcess(['report', '--run', trace, '--html', html]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^.*trace\.jsonl: N=20, 2 islands, topology ring, seed 4; solved by island [01] at iteration \d+/);
      assert.match(r.stdout, /^island 1: \d+ samples, iterations 0\.\.\d+/m);
      const events = readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line) as ArchipelagoEvent);
      const expected = pointsPerIsland(events, 2);
      const [fitness, diversity, flow] = await plottedPoints(html);
      assert.equal(fitness, expected);
      assert.equal(diversity, events.filter((e) => e.type === 'progress').length);
      assert.equal(flow, 0, 'the flow is a heat map, no points');
    });
  });
});
