/**
 * The live view's stream under load (issue 48): views above 1 MB reach a page that reads
 * slowly or pauses without the page being dropped (0.8.0 dropped it at the first view above
 * the socket's 16 KB mark, and the page reconnected for good); a page that stops reading is
 * dropped after the stated time; a real page keeps receiving views through a 60 s run whose views reach above 1 MB.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { chromium, type Browser } from 'playwright-core';
import { resolveConfig } from '../src/index.ts';
import { traceHeader } from '../src/run/trace.ts';
import { newRunCursor, RunState, runHeader } from '../src/serve/run-state.ts';
import { runStream } from '../src/serve/serve.ts';
import { startViewServer, type ViewServer } from '../src/serve/server.ts';
import { CHROMIUM, CHROMIUM_ARGS, systemTool } from './system-tools.ts';

const ISLANDS = 300;

/**
 * A run state of ISLANDS islands fed by `tick(k)`: progress of every island and, unless
 * `matrix` is false, a full distance matrix, so that view is large (above 1 MB).
 */
function bigRun(): { state: RunState; tick: (k: number, matrix?: boolean) => void } {
  const config = resolveConfig({ n: 200, islands: ISLANDS, topology: { kind: 'ring' }, seed: 5 });
  const state = new RunState(runHeader(traceHeader(config)));
  const tick = (k: number, matrix = true) => {
    for (let island = 0; island < ISLANDS; island++)
      state.add({
        type: 'progress',
        island,
        iteration: k,
        evaluations: k * 1000,
        bestFitness: 300 - (k % 250) + island / 1000,
        meanFitness: 320 - (k % 250),
        diversity: 0.5 + island / 1e4,
        migrantsSent: k,
        migrantsAccepted: k,
        seconds: k / 10,
      });
    if (!matrix) return;
    const distance = Array.from({ length: ISLANDS }, (_, i) =>
      Array.from({ length: ISLANDS }, (__, j) => ((i * 31 + j * 17 + k) % 1000) / 1013),
    );
    state.add({
      type: 'between',
      iteration: k,
      distance,
      meanDistance: 0.5,
      distinct: 100,
      sampled: 200,
      seconds: k / 10,
    });
  };
  return { state, tick };
}

/** A raw reader of the event stream: its socket (to pause), the bytes and views it got, and whether the server closed it. */
function rawReader(server: ViewServer): { socket: Socket; bytes: () => number; views: () => number; closed: Promise<void> } {
  const url = new URL(server.url);
  const socket = connect(Number(url.port), '127.0.0.1', () => socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\n\r\n`));
  let bytes = 0;
  let views = 0;
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    views += (chunk.toString('latin1').match(/\ndata: |^data: /g) ?? []).length;
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { socket, bytes: () => bytes, views: () => views, closed };
}

describe('a stream of views above 1 MB', () => {
  it('keeps a page that pauses reading, and sends it the latest state when it reads again', async () => {
    const { state, tick } = bigRun();
    tick(1);
    assert.ok(JSON.stringify(state.viewSince(newRunCursor())).length > 1_000_000, 'the snapshot is above 1 MB');
    const server = await startViewServer((run) => (run === null ? runStream(state) : null), { port: 0, stallSeconds: 5 });
    const reader = rawReader(server);
    let k = 1;
    const feed = setInterval(() => tick(++k), 100);
    try {
      while (reader.views() < 2) await delay(50);
      reader.socket.pause();
      // Paused for 3 s (under the 5 s stall): the server buffers one view and coalesces the rest.
      await delay(3000);
      const before = reader.views();
      reader.socket.resume();
      while (reader.views() < before + 3) await delay(50);
      assert.equal(reader.socket.destroyed, false, 'still connected after the pause');
    } finally {
      clearInterval(feed);
      reader.socket.destroy();
      await server.close();
    }
  });

  it('drops a page that stops reading, once it took no byte for the stated time', async () => {
    const { state, tick } = bigRun();
    tick(1);
    const server = await startViewServer((run) => (run === null ? runStream(state) : null), { port: 0, stallSeconds: 1 });
    const reader = rawReader(server);
    let k = 1;
    const feed = setInterval(() => tick(++k), 100);
    try {
      while (reader.bytes() === 0) await delay(20);
      // The same 3 s pause the test above survives with 5 s, here over the stated 1 s: the server
      // ends the connection, which the reader sees once it reads what the kernel still holds.
      reader.socket.pause();
      await delay(3000);
      reader.socket.resume();
      const ended = await Promise.race([reader.closed.then(() => true), delay(10_000).then(() => false)]);
      assert.equal(ended, true, 'dropped after it stopped reading for longer than the stated time');
    } finally {
      clearInterval(feed);
      await server.close();
    }
  });
});

const chromiumTool = systemTool(CHROMIUM);
describe('a page in Chromium on a run of views above 1 MB', { skip: chromiumTool.skip }, () => {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({ executablePath: chromiumTool.path(), args: CHROMIUM_ARGS });
  });
  after(async () => browser?.close());

  // Issue 48's "done when": a 60 s run whose snapshot is above 1 MB keeps one open page
  // receiving views the whole time. A slow run, so the test costs little CPU for its minute: a
  // sample of every island each second, and a new distance matrix (a view above 1 MB) every 10 s.
  it('receives views in every 10 s of a 60 s run whose snapshot and every tenth view are above 1 MB, on one connection', async () => {
    const { state, tick } = bigRun();
    tick(1);
    // A reader in step with the page: what it gets after each second's events.
    const follower = newRunCursor();
    assert.ok(JSON.stringify(state.viewSince(follower)).length > 1_000_000, 'the snapshot is above 1 MB');
    const server = await startViewServer((run) => (run === null ? runStream(state) : null), { port: 0 });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const views = async () => Number(await page.locator('body').getAttribute('data-views'));
    const perWindow: number[] = [];
    const sizes: number[] = [];
    try {
      await page.goto(server.url);
      await page.waitForSelector('body[data-views]');
      let k = 1;
      let last = await views();
      for (let window = 0; window < 6; window++) {
        for (let second = 0; second < 10; second++) {
          tick(++k, second === 0);
          const size = JSON.stringify(state.viewSince(follower)).length;
          if (second === 0) sizes.push(size);
          await delay(1000);
        }
        const now = await views();
        perWindow.push(now - last);
        last = now;
      }
      assert.ok(
        perWindow.every((n) => n > 0),
        `views in each 10 s: ${perWindow.join(', ')}`,
      );
      assert.ok(
        sizes.every((n) => n > 1_000_000),
        `each window's first view above 1 MB: ${sizes.join(', ')}`,
      );
      assert.equal(await page.locator('body').getAttribute('data-opens'), '1', 'one connection the whole run (no reconnect)');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
