/**
 * Lineage on the live view's page in a real Chromium (docs/live-view.md, "Lineage"): a seeded
 * ring takeover run (ga.mode takeover, as `--mode takeover`) whose page shows the origin
 * colour of island 0 reaching every island, live and in the replay of its trace following
 * the timeline's cursor, with a legend; and the heat map of the islands' final states.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { chromium, type Page } from 'playwright-core';
import type { BetweenEvent } from '../src/archipelago/events.ts';
import { startRun } from '../src/index.ts';
import { islandColour } from '../src/report/figures/palette.ts';
import { servedLiveAndReplay } from './served-run.ts';
import { CHROMIUM, CHROMIUM_ARGS, systemTool } from './system-tools.ts';

const chromiumTool = systemTool(CHROMIUM);
const dir = mkdtempSync(path.join(tmpdir(), 'nq-live-lineage-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Per island drawn: its bars' fill colours. */
const fills = (page: Page) =>
  page.$$eval('#lineage-bars g[data-island]', (groups) =>
    groups.map((g) => [...g.querySelectorAll('rect')].map((r) => r.getAttribute('fill'))),
  );

/** Per island drawn: its bars' origins and shares. */
const bars = (page: Page) =>
  page.$$eval('#lineage-bars g[data-island]', (groups) =>
    groups.map((g) =>
      [...g.querySelectorAll('rect')].map((r) => [Number(r.getAttribute('data-origin')), Number(r.getAttribute('data-share'))]),
    ),
  );

describe('lineage on the page (Chromium)', { skip: chromiumTool.skip }, () => {
  it("a ring takeover: island 0's colour reaches every island, live and in the replay, whose cursor it follows", async () => {
    const islands = 6;
    const handle = startRun({
      n: 16,
      ga: { mode: 'takeover', populationSize: 32 },
      islands,
      topology: { kind: 'ring' },
      migration: { mode: 'sync', interval: 3, migrants: 1 },
      seed: 2,
    });
    const { events, result, server, replay } = await servedLiveAndReplay(handle, dir, 'takeover.jsonl');
    assert.ok(result.takeover?.iteration != null, 'the seeded run is taken over');
    const between = events.filter((e): e is BetweenEvent & { type: 'between' } => e.type === 'between');
    const final = between.at(-1)!;

    const browser = await chromium.launch({ executablePath: chromiumTool.path(), args: CHROMIUM_ARGS });
    const everyIslandOf = (origin: number) => Array.from({ length: islands }, () => [[origin, 1]]);
    try {
      for (const url of [server.url, replay.url]) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        await page.goto(url);
        await page.waitForSelector('body[data-state="over"]');
        assert.deepEqual(await bars(page), everyIslandOf(0), "island 0's origin holds every member of every island");
        assert.deepEqual(
          await fills(page),
          Array.from({ length: islands }, () => [islandColour(0)]),
          "every bar in island 0's colour",
        );
        assert.match((await page.locator('#lineage .legend').last().textContent()) ?? '', new RegExp(`^iteration ${final.iteration}:`));
        assert.equal(await page.locator('#lineage-legend .key').count(), 1, 'one origin left, one key');
        assert.match((await page.locator('#heat .legend').last().textContent()) ?? '', new RegExp(`${final.iteration}`), 'the last state');
        await page.close();
      }
      // The replay's cursor: at 0 each island is all its own colour; the bars follow the slider.
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(replay.url);
      await page.waitForSelector('#timeline:not([hidden])');
      const seek = (t: number) =>
        page.locator('#scrub').evaluate((input: { value: string; dispatchEvent(event: Event): boolean }, value) => {
          input.value = String(value);
          input.dispatchEvent(new Event('input'));
        }, t);
      await seek(0);
      assert.deepEqual(
        await bars(page),
        Array.from({ length: islands }, (_, i) => [[i, 1]]),
      );
      const keys = await page.locator('#lineage-legend .key').allTextContents();
      assert.deepEqual(
        keys,
        Array.from({ length: islands }, (_, i) => `from island ${i}`),
      );
      assert.deepEqual(
        await fills(page),
        Array.from({ length: islands }, (_, i) => [islandColour(i)]),
        'each island all in its own colour',
      );
      // Along the ring (i sends to i + 1): the first sample at which island 0's colour is in island k's bar grows with k.
      const firstSeen = Array.from({ length: islands }, () => -1);
      for (const e of between) {
        await seek(e.iteration);
        (await fills(page)).forEach((bar, k) => {
          if (firstSeen[k] < 0 && bar.includes(islandColour(0))) firstSeen[k] = e.iteration;
        });
      }
      assert.ok(
        firstSeen.every((t, k) => t >= 0 && (k === 0 || t >= firstSeen[k - 1])) && firstSeen[islands - 1] > firstSeen[1],
        `island 0's colour spreads along the ring: first seen at ${firstSeen.join(', ')}`,
      );
      await seek(final.iteration);
      assert.deepEqual(await bars(page), everyIslandOf(0));
      await page.close();
    } finally {
      await browser.close();
      await server.close();
      await replay.close();
    }
  });
});
