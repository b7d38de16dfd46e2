/**
 * The live view's page in a real Chromium at the sizes and shapes 0.8.0 failed on: a
 * 1024-island run, legends and labels, takeover, long study cell names. Events are handed to
 * the server's state through a Subject by the test; each step waits on what the page shows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Subject } from 'rxjs';
import type { ArchipelagoEvent } from '../src/archipelago/events.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveConfig, startRun } from '../src/index.ts';
import { serveRun, serveStudy } from '../src/serve/serve.ts';
import type { RunRecord } from '../src/experiment/records.ts';
import { servedLiveAndReplay } from './served-run.ts';
import { CHROMIUM, CHROMIUM_ARGS, systemTool } from './system-tools.ts';

const chromiumTool = systemTool(CHROMIUM);
const dir = mkdtempSync(path.join(tmpdir(), 'nq-live-page-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A progress event of `island` at `iteration`. */
export function progress(island: number, iteration: number, best: number, extra: Partial<ArchipelagoEvent> = {}): ArchipelagoEvent {
  return {
    type: 'progress',
    island,
    iteration,
    evaluations: iteration * 100,
    bestFitness: best,
    meanFitness: best + 10,
    diversity: 0.5,
    migrantsSent: 0,
    migrantsAccepted: 0,
    seconds: iteration / 10,
    ...extra,
  } as ArchipelagoEvent;
}

describe('the page at any size (Chromium)', { skip: chromiumTool.skip }, () => {
  let browser: Browser;
  const problems: string[] = [];
  before(async () => {
    browser = await chromium.launch({ executablePath: chromiumTool.path(), args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    assert.deepEqual(problems, [], 'no console error or page error');
  });
  async function tab(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    return page;
  }

  it('draws a 1024-island run with 128 samples per island (0.8.0 threw a RangeError)', async () => {
    const islands = 1024;
    const config = resolveConfig({ n: 200, islands, topology: { kind: 'ring' }, seed: 1 });
    const events = new Subject<ArchipelagoEvent>();
    const server = await serveRun(config, { port: 0 });
    server.watch(events);
    for (let iteration = 1; iteration <= 128; iteration++)
      for (let island = 0; island < islands; island++) events.next(progress(island, iteration, 400 - iteration - (island % 50)));
    const page = await tab();
    await page.goto(server.url);
    await page.waitForSelector('#status[data-iteration="128"]');
    await page.waitForSelector('#best path[data-series]');
    assert.equal(await page.locator('#best path[data-series]').count(), islands, 'a line per island');
    assert.equal(await page.locator('#topology g.node').count(), islands);
    await page.close();
    await server.close();
  });

  it('shows the takeover time of a takeover run in the status line and per island, live and from its trace', async () => {
    const handle = startRun({
      n: 16,
      ga: { mode: 'takeover' },
      islands: 4,
      topology: { kind: 'ring' },
      migration: { mode: 'sync', interval: 5, migrants: 1 },
      seed: 1,
    });
    const { result, server, replay } = await servedLiveAndReplay(handle, dir, 'takeover.jsonl');
    const takeover = result.takeover!;
    assert.ok(takeover.iteration !== null, 'the seeded run is taken over');
    for (const url of [server.url, replay.url]) {
      const page = await tab();
      await page.goto(url);
      await page.waitForSelector('body[data-state="over"]');
      assert.equal(
        await page
          .locator('#status')
          .textContent()
          .then((t) => t?.split(';')[0]),
        `takeover: the archipelago was taken over at iteration ${takeover.iteration}`,
      );
      // Every chart the page draws (any section with a figure, a chart added later too) has a legend.
      const charts = await page.$$eval('section', (all) =>
        all
          .filter((s) => s.querySelector('svg[role="img"], canvas'))
          .map((s) => ({ id: s.id, legend: s.querySelector('.legend') !== null })),
      );
      for (const id of ['topology', 'best', 'mean', 'diversity', 'heat', 'distinct'])
        assert.ok(
          charts.some((c) => c.id === id),
          `#${id} drawn`,
        );
      assert.deepEqual(
        charts.filter((c) => !c.legend),
        [],
        'every chart has a legend',
      );
      assert.equal(await page.locator('#best .key').count(), 4, 'a key per island');
      assert.equal(await page.locator('#heat .colour-bar').count(), 1, 'the heat map has its colour bar');
      assert.equal(await page.locator('#topology line[marker-end="url(#arrow)"]').count(), 4, 'each directed edge has its arrow');
      assert.match((await page.locator('#best svg[role="img"]').textContent()) ?? '', /fewer is better/);
      const cells = await page.$$eval('#islands tr[data-island]', (rows) => rows.map((r) => r.lastElementChild?.textContent));
      assert.deepEqual(
        cells,
        takeover.islands.map((at) => (at === null ? '–' : `iteration ${at}`)),
      );
      await page.close();
    }
    await server.close();
    await replay.close();
  });

  it('tells apart two study cells whose names differ only in their last characters', async () => {
    const config = resolveConfig({ n: 12, islands: 2, seed: 1 });
    const long = 'topology.kind=ring,migration.mode=lagged,migration.interval=';
    const ids = [`${long}1`, `${long}10`];
    const plan = { name: 'names', seeds: [1], cells: ids.map((id) => ({ id, values: {}, config })), provenance: null, tool: null };
    const server = await serveStudy(plan, path.join(dir, 'no-study'), { port: 0 });
    ids.forEach((cell, k) =>
      server.runEnded({ cell, seed: 1, solved: true, evaluations: 1000 * (k + 1), error: null } as unknown as RunRecord),
    );
    server.finish();
    const page = await tab();
    await page.goto(server.url);
    await page.waitForSelector('#status[data-done="2"]');
    const names = await page.$$eval('#cells td.name', (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(names, ids, 'the table shows whole names');
    const labels = await page.$$eval('#ert text[data-cell]', (texts) => texts.map((t) => t.textContent));
    assert.equal(new Set(labels).size, 2, `ERT labels differ: ${labels.join(' | ')}`);
    const keys = await page.$$eval('#ecdf .key', (k) => k.map((e) => e.textContent));
    assert.deepEqual(keys, ids, 'the ECDF legend names each cell whole');
    const inside = await page.$$eval('#ert text[data-cell]', (texts) =>
      texts.every((t) => t.getBoundingClientRect().left >= t.closest('svg')!.getBoundingClientRect().left - 1),
    );
    assert.ok(inside, 'no label clipped at the left');
    const fill = await page.$eval(
      '#cells .bar',
      (bar) => bar.getBoundingClientRect().left - bar.parentElement!.getBoundingClientRect().left,
    );
    assert.equal(fill, 0, 'the done bar fills from the left');
    await page.close();
    await server.close();
  });
});
