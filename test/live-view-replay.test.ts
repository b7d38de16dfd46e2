/**
 * Replay of a long run (issue 48): a 10^6-line trace opens in `report --run FILE --serve`
 * (read as a stream, in bounded memory) and the page's timeline scrubs to the start, the
 * middle and the end, every chart following the cursor.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { resolveConfig } from '../src/index.ts';
import { traceHeader } from '../src/run/trace.ts';
import { CLI } from './cli-helpers.ts';
import { servedUrl } from './live-stream.ts';
import { CHROMIUM, CHROMIUM_ARGS, systemTool } from './system-tools.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-live-replay-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const ISLANDS = 8;

/** A trace of `lines` lines: header, started, progress of 8 islands round by round (a between sample every 125 rounds), done. */
async function longTrace(file: string, lines: number): Promise<number> {
  const out = createWriteStream(file);
  const write = async (value: object) => {
    if (!out.write(`${JSON.stringify(value)}\n`)) await once(out, 'drain');
  };
  await write(traceHeader(resolveConfig({ n: 200, islands: ISLANDS, topology: { kind: 'ring' }, seed: 5 })));
  await write({ type: 'started', islands: ISLANDS, seconds: 0.1 });
  let iteration = 0;
  for (let k = 0; k < lines - 3; k++) {
    iteration = Math.floor(k / ISLANDS);
    const island = k % ISLANDS;
    if (island === 0 && iteration % 125 === 0 && k > 0) {
      const distance = Array.from({ length: ISLANDS }, (_, i) =>
        Array.from({ length: ISLANDS }, (__, j) => (i === j ? 0 : 1 / (1 + iteration / 1000))),
      );
      await write({ type: 'between', iteration, distance, meanDistance: 0.5, distinct: 10, sampled: 64, seconds: iteration / 1000 });
      k++;
      continue;
    }
    const best = Math.max(1, 300 - Math.floor(iteration / 400));
    await write({
      type: 'progress',
      island,
      iteration,
      evaluations: iteration * 100,
      bestFitness: best,
      meanFitness: best + 20,
      diversity: 0.5,
      migrantsSent: 0,
      migrantsAccepted: 0,
      seconds: iteration / 1000,
    });
  }
  const result = {
    solved: false,
    fitness: 1,
    foundBy: null,
    foundAtIteration: null,
    evaluations: iteration * 100 * ISLANDS,
    seconds: iteration / 1000,
  };
  await write({ type: 'done', result });
  out.end();
  await once(out, 'finish');
  return iteration;
}

const chromiumTool = systemTool(CHROMIUM);
describe('replay of a 10^6-line trace', { skip: chromiumTool.skip }, () => {
  it('opens in report --run --serve and its timeline scrubs to the start, middle and end', async () => {
    const file = path.join(dir, 'long.jsonl');
    const last = await longTrace(file, 1_000_000);
    const child = spawn(process.execPath, [CLI, 'report', '--run', file, '--serve', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const browser = await chromium.launch({ executablePath: chromiumTool.path(), args: CHROMIUM_ARGS });
    try {
      const url = await servedUrl(child);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(url);
      await page.waitForSelector('#timeline:not([hidden])');
      assert.equal(await page.locator('#scrub').getAttribute('max'), String(last));
      const seek = (t: number) =>
        page.locator('#scrub').evaluate((input: { value: string; dispatchEvent(event: Event): boolean }, value) => {
          input.value = String(value);
          input.dispatchEvent(new Event('input'));
        }, t);
      const shown = async () => ({
        status: await page.locator('#status').textContent(),
        iteration: await page.locator('#islands tr[data-island="0"] td:nth-child(2)').textContent(),
        heat: await page.locator('#heat .legend').last().textContent(),
      });
      await seek(0);
      const start = await shown();
      assert.equal(start.status, `replay: iteration 0 of ${last}`);
      assert.equal(start.iteration, '0', 'the table follows the cursor');
      const middle = Math.floor(last / 2);
      await seek(middle);
      const mid = await shown();
      assert.equal(mid.status, `replay: iteration ${middle} of ${last}`);
      assert.ok(Number(mid.iteration) <= middle && Number(mid.iteration) > middle / 2, `island 0 at ${mid.iteration}`);
      assert.notEqual(mid.heat, start.heat, 'the heat map follows the cursor');
      await seek(last);
      const end = await shown();
      assert.match(end.status ?? '', /^not solved: best fitness 1/);
      assert.equal(end.iteration, String(last));
      await page.close();
    } finally {
      await browser.close();
      child.kill('SIGINT');
    }
    assert.equal(await closed, 0);
  });
});
