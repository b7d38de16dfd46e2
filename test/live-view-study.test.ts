/**
 * The study page (docs/live-view.md): the runs of one cell overlaid, from a real study's
 * records, in a real Chromium; and the library serving a study as it runs
 * (`runExperiment`'s `serve`). The study is run once, through the library, with its view.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { ConfigError, runExperiment, type ExperimentInput, type RunRecord, type ViewServer } from '../src/index.ts';
import { Subject } from 'rxjs';
import type { ArchipelagoEvent } from '../src/archipelago/events.ts';
import { resolveConfig } from '../src/index.ts';
import { serveStudy, serveStudyFolder } from '../src/serve/serve.ts';
import type { CellRunsView } from '../src/serve/cell-runs.ts';
import { readViews } from './live-stream.ts';
import { CHROMIUM, CHROMIUM_ARGS, systemTool } from './system-tools.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-live-study-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** 2 cells × 3 seeds: at 3 iterations no run solves N = 24 (censored); at 2000 every run does. */
const STUDY: ExperimentInput = {
  name: 'overlay',
  base: { overrides: { n: 24, islands: 2, topology: { kind: 'ring' }, migration: { mode: 'sync', interval: 2 } } },
  sweep: { 'limits.maxIterations': [3, 2000] },
  repeats: 3,
  seed: 5,
};
const out = path.join(dir, 'study');
let records: RunRecord[] = [];
/** What the library's view sent while the study ran: its last study view. */
let lastView: Record<string, unknown> | undefined;
/** The page the library's view answered with while the study ran. */
let pageAnswer: { status: number; body: string } | undefined;

before(async () => {
  let view: ViewServer | null = null;
  let reading: Promise<Record<string, unknown>[]> = Promise.resolve([]);
  let answering: Promise<unknown> = Promise.resolve();
  await runExperiment(STUDY, {
    out,
    serve: {
      port: 0,
      onServe: (served) => {
        view = served;
        reading = readViews(served.url);
        answering = fetch(served.url).then(async (res) => (pageAnswer = { status: res.status, body: await res.text() }));
      },
    },
  });
  assert.ok(view, 'onServe got the view before the study ended');
  lastView = (await reading).at(-1);
  await answering;
  await (view as ViewServer).close();
  records = readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RunRecord);
});

describe("the library's study view (runExperiment's serve)", () => {
  it('answers with the page and shows the study cells as they finish', () => {
    assert.equal(pageAnswer?.status, 200);
    assert.match(pageAnswer?.body ?? '', /<script type="module" src="app.js">/);
    assert.equal(lastView?.kind, 'study');
    assert.equal(lastView?.finished, true);
    assert.equal(lastView?.done, 6);
    const cells = (lastView?.cells as { id: string; done: number }[]).map((c) => [c.id, c.done]);
    assert.deepEqual(
      cells,
      [...new Set(records.map((r) => r.cell))].map((id) => [id, 3]),
    );
  });

  it('refuses serve options it cannot use, in one line naming the option', async () => {
    const refused = (serve: unknown): Promise<void> =>
      assert.rejects(
        runExperiment(STUDY, { out: path.join(dir, 'never'), serve: serve as never }),
        (e: unknown) => e instanceof ConfigError && /serve/.test(e.message),
      );
    await refused({ port: 0 });
    await refused({ port: 70000, onServe: () => {} });
    await refused({ port: 0, stalSeconds: 3, onServe: () => {} });
  });
});

describe("a cell's runs, as the page fetches them (cell?id=CELL)", () => {
  it('gives each finished run its curve, ending at its own evaluations and fitness; 404 for no such cell', async () => {
    const server = await serveStudyFolder(out, { port: 0 });
    try {
      for (const cell of new Set(records.map((r) => r.cell))) {
        const res = await fetch(`${server.url}cell?${new URLSearchParams({ id: cell }).toString()}`);
        assert.equal(res.status, 200);
        const view = (await res.json()) as CellRunsView;
        const runs = records.filter((r) => r.cell === cell).sort((a, b) => a.seed - b.seed);
        assert.deepEqual(
          view.runs.map((r) => [r.seed, r.curve.at(-1), r.censored]),
          runs.map((r) => [r.seed, [r.evaluations, r.fitness], !r.solved]),
        );
        for (const r of view.runs)
          assert.ok(
            r.curve.every((p, i) => i === 0 || (p[0] >= r.curve[i - 1][0] && p[1] <= r.curve[i - 1][1])),
            'a course',
          );
      }
      assert.equal((await fetch(`${server.url}cell?id=nothing`)).status, 404);
    } finally {
      await server.close();
    }
  });

  it('shows where each run going on is now: its islands’ evaluations and their best', async () => {
    const config = resolveConfig({ n: 12, islands: 2, seed: 1 });
    const plan = { name: 'going', seeds: [1, 2], cells: [{ id: 'c', values: {}, config }], provenance: null, tool: null };
    const server = await serveStudy(plan, path.join(dir, 'no-study'), { port: 0 });
    const events = new Subject<ArchipelagoEvent>();
    server.runEvents('c', 2, events);
    const progress = (island: number, evaluations: number, bestFitness: number) =>
      ({
        type: 'progress',
        island,
        iteration: 3,
        evaluations,
        bestFitness,
        meanFitness: 9,
        diversity: 0.5,
        migrantsSent: 0,
        migrantsAccepted: 0,
        seconds: 1,
      }) as ArchipelagoEvent;
    events.next(progress(0, 300, 6));
    events.next(progress(1, 500, 4));
    const view = (await (await fetch(`${server.url}cell?id=c`)).json()) as CellRunsView;
    assert.deepEqual(view.running, [{ seed: 2, evaluations: 800, best: 4 }]);
    assert.deepEqual(view.runs, []);
    await server.close();
  });
});

const chromiumTool = systemTool(CHROMIUM);
describe('the runs of one study cell overlaid (Chromium)', { skip: chromiumTool.skip }, () => {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({ executablePath: chromiumTool.path(), args: CHROMIUM_ARGS });
  });
  after(async () => browser?.close());

  it('draws one curve per run, each ending at its record’s evaluations; censored runs dashed and crossed', async () => {
    const server = await serveStudyFolder(out, { port: 0 });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    try {
      await page.goto(server.url);
      await page.waitForSelector('#status[data-done="6"]');
      const cells = [...new Set(records.map((r) => r.cell))];
      for (const [k, cell] of cells.entries()) {
        const runs = records.filter((r) => r.cell === cell).sort((a, b) => a.seed - b.seed);
        // The first by the list, the second by a click on its name in the table.
        if (k === 0) await page.selectOption('#cell-pick', cell);
        else await page.locator(`#cells tr[data-cell="${cell}"] td.name`).click();
        await page.waitForSelector(`#overlay .overlay-chart[data-cell="${cell}"] path[data-end]`, { state: 'attached' });
        const curves = await page.$$eval('#overlay path[data-end]', (paths) =>
          paths.map((p) => ({
            name: p.getAttribute('data-series')!,
            end: Number(p.getAttribute('data-end')),
            dashed: p.hasAttribute('stroke-dasharray'),
          })),
        );
        assert.equal(curves.length, 3, `${cell}: three curves`);
        assert.deepEqual(
          curves.map((c) => [c.name.split(':')[0], c.end]),
          runs.map((r) => [`seed ${r.seed}`, r.evaluations]),
          `${cell}: each curve ends at its run's evaluations`,
        );
        assert.deepEqual(
          curves.map((c) => c.dashed),
          runs.map((r) => !r.solved),
          `${cell}: unsolved runs are dashed`,
        );
        assert.equal(await page.locator('#overlay .end-cross').count(), runs.filter((r) => !r.solved).length);
        assert.equal(await page.locator('#overlay .end-dot').count(), runs.filter((r) => r.solved).length);
        const keys = await page.$$eval('#overlay .key', (k) => k.map((e) => e.textContent));
        assert.equal(keys.length, 3, 'a legend key per run');
        assert.ok(keys.every((key, i) => key!.startsWith(`seed ${runs[i].seed}:`)));
      }
      const options = await page.$$eval('#cell-pick option[value]:not([value=""])', (o) => o.map((e) => e.textContent));
      assert.deepEqual(options, cells, 'the list names each cell whole (they differ in their last characters)');
      const charts = await page.$$eval('section', (all) =>
        all
          .filter((s) => s.querySelector('svg[role="img"], canvas'))
          .map((s) => ({ id: s.id, legend: s.querySelector('.legend') !== null })),
      );
      assert.deepEqual(
        charts.map((c) => c.id),
        ['ecdf', 'ert', 'overlay'],
      );
      assert.deepEqual(
        charts.filter((c) => !c.legend),
        [],
        'every chart of the study page has a legend',
      );
      const unsolved = records.filter((r) => !r.solved).length;
      assert.ok(unsolved >= 3 && unsolved < 6, `the study has censored and solved runs (${unsolved} unsolved)`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
