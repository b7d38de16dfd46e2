/**
 * The live view (src/serve, docs/live-view.md): its bounded state, its server's rules (token,
 * Host, GET only, CSP), and the page in a real Chromium. The page tests are paced by the test:
 * a real seeded run's events are recorded once, then handed to the server's run state a part
 * at a time through a Subject, and each step waits on what the page shows (no sleeps).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Subject } from 'rxjs';
import type { ArchipelagoEvent } from '../src/archipelago/events.ts';
import type { RunRecord } from '../src/experiment/records.ts';
import { resolveConfig, startRun } from '../src/index.ts';
import { traceHeader } from '../src/run/trace.ts';
import type { SeededRunConfig } from '../src/run/start-run.ts';
import { DecimatedSeries } from '../src/serve/series.ts';
import { newRunCursor, RunState, runHeader, type RunView } from '../src/serve/run-state.ts';
import { serveRun, serveRunFile, serveStudy, type ViewServer } from '../src/serve/serve.ts';
import { CLI } from './cli-helpers.ts';
import { countViews, readViews as allViews, servedUrl } from './live-stream.ts';
import { repeatablePart } from './helpers.ts';
import { CHROMIUM, CHROMIUM_ARGS, systemTool } from './system-tools.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-live-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A seeded sync run's config and every event it gave (sync: the same run every time). */
async function recordRun(input: Parameters<typeof resolveConfig>[0]): Promise<{ config: SeededRunConfig; events: ArchipelagoEvent[] }> {
  const handle = startRun(input);
  const events: ArchipelagoEvent[] = [];
  handle.events$.subscribe((e) => events.push(e));
  await handle.result;
  return { config: handle.config, events };
}

describe('a run state', () => {
  it('keeps a series within its size however many points come, ending at the latest', () => {
    const series = new DecimatedSeries<number>(64);
    for (let i = 0; i < 100_000; i++) series.push(i);
    assert.ok(series.points.length < 64 && series.points.length >= 32, `${series.points.length} points`);
    assert.equal(series.last, 99_999);
    assert.equal(series.points[0], 0);
    assert.ok(series.epoch > 0);
  });

  it('gives a new reader the whole state, then only what changed, and both add up to a fresh snapshot', () => {
    const config = resolveConfig({ n: 12, islands: 3, topology: { kind: 'ring' }, seed: 1 });
    const state = new RunState(runHeader(traceHeader(config)));
    const cursor = newRunCursor();
    const points = (views: RunView[], island: number) =>
      views.reduce<number[][]>(
        (all, v) => (v.series[island]?.reset ? v.series[island].points : all.concat(v.series[island]?.points ?? [])),
        [],
      );
    const progress = (island: number, iteration: number): ArchipelagoEvent => ({
      type: 'progress',
      island,
      iteration,
      evaluations: iteration * 10,
      bestFitness: 100 - iteration,
      meanFitness: 120 - iteration,
      diversity: 0.5,
      migrantsSent: 0,
      migrantsAccepted: 0,
      seconds: iteration / 100,
    });
    const views: RunView[] = [];
    for (let i = 0; i < 2000; i++) {
      state.add(progress(i % 3, Math.floor(i / 3)));
      if (i % 97 === 0) views.push(state.viewSince(cursor));
    }
    views.push(state.viewSince(cursor));
    assert.ok(views[0].header, 'the first view carries the header');
    assert.equal(views[1].header, undefined);
    const fresh = state.viewSince(newRunCursor());
    for (const island of [0, 1, 2]) assert.deepEqual(points(views, island), fresh.series[island].points);
    assert.equal(state.changedSince(cursor), false);
  });
});

describe('the server', () => {
  let server: ViewServer;
  let other: ViewServer;
  before(async () => {
    const config = resolveConfig({ n: 12, islands: 2, seed: 1 });
    server = await serveRun(config, { port: 0 });
    other = await serveRun(config, { port: 0, host: '127.0.0.2' });
  });
  after(async () => {
    await server.close();
    await other.close();
  });

  it('binds 127.0.0.1 by default, sends a CSP, serves GET only and refuses another Host', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(server.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
    assert.equal((await fetch(`${server.url}events`, { method: 'POST' })).status, 405);
    assert.equal(await statusWithHost(server.url, 'attacker.example'), 403, 'a rebound DNS name');
    assert.equal(await statusWithHost(server.url, `localhost:${new URL(server.url).port}`), 200);
    assert.equal((await fetch(`${server.url}nothing`)).status, 404);
  });

  it('on another address, needs the token the URL carries (403 without it)', async () => {
    const url = new URL(other.url);
    assert.equal(url.hostname, '127.0.0.2');
    const token = url.searchParams.get('token');
    assert.match(token ?? '', /^[0-9a-f]{32}$/);
    assert.equal((await fetch(`${url.origin}/`)).status, 403);
    assert.equal((await fetch(`${url.origin}/events`)).status, 403);
    assert.equal((await fetch(`${url.origin}/app.js?token=${'0'.repeat(32)}`)).status, 403);
    assert.equal((await fetch(other.url)).status, 200);
    assert.equal((await fetch(`${url.origin}/app.js`, { headers: { cookie: `nqi-token-${url.port}=${token}` } })).status, 200);
  });
});

describe('solve --serve', () => {
  /** `solve` of a seeded sync run, with a page's event stream open the whole run when `serve`. */
  async function solved(serve: boolean, trace: string): Promise<{ record: unknown; events: string[]; views: number }> {
    const args = [
      'solve',
      '-n',
      '120',
      '--islands',
      '3',
      '--topology',
      'ring',
      '--migration',
      'sync',
      '--seed',
      '7',
      '--json',
      '--trace',
      trace,
    ];
    const child = spawn(process.execPath, [CLI, ...args, ...(serve ? ['--serve', '0'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    let views = 0;
    if (serve) {
      const url = await servedUrl(child);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/, 'the URL is the first line on stderr');
      // The run takes seconds (N = 120): the page's stream opens during it and ends when it does.
      views = await countViews(url);
    }
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    const lines = readFileSync(trace, 'utf8').trim().split('\n').slice(1);
    // Sync: migrations and between-island samples repeat exactly (progress samples are also timed, so not all of them do).
    const events = lines
      .filter((line) => /"type":"(migration|between|solution|survival)"/.test(line))
      .map((line) => JSON.stringify({ ...(JSON.parse(line) as object), seconds: undefined }))
      .sort();
    return { record: repeatablePart(JSON.parse(stdout)), events, views };
  }

  it('changes nothing in the record: a seeded run is the same with and without a page open', async () => {
    const without = await solved(false, path.join(dir, 'without.jsonl'));
    const withView = await solved(true, path.join(dir, 'with.jsonl'));
    assert.ok(withView.views >= 2, `the page got the snapshot and live views (${withView.views})`);
    assert.ok(without.events.length > 10);
    assert.deepEqual(withView.record, without.record);
    assert.deepEqual(withView.events, without.events);
  });
});

/** A command of the built CLI with `--serve 0`: its URL (the first line on stderr), the process, and its stdout when it ends. */
function served(args: string[]): {
  url: Promise<string>;
  child: ReturnType<typeof spawn>;
  closed: Promise<{ code: number | null; stdout: string }>;
} {
  const child = spawn(process.execPath, [CLI, ...args, '--serve', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const url = servedUrl(child);
  const closed = new Promise<{ code: number | null; stdout: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout })));
  return { url, child, closed };
}

describe('experiment --serve and report --serve', () => {
  it('serve a study as it goes, then its folder and one of its runs from disk until a signal', async () => {
    const study = path.join(dir, 'study.yaml');
    writeFileSync(
      study,
      `name: live\nbase:\n  overrides:\n    n: 40\n    islands: 2\nsweep:\n  topology.kind: [ring, none]\nrepeats: 3\nseed: 1\n`,
    );
    const out = path.join(dir, 'study-out');
    const live = served(['experiment', study, '--out', out, '--events']);
    const views = await allViews(await live.url);
    assert.equal((await live.closed).code, 0);
    const last = views.at(-1)!;
    assert.equal(last.kind, 'study');
    assert.equal(last.finished, true);
    assert.equal(last.done, 6);
    assert.equal((last.openable as string[]).length, 6, 'with --events every finished run can be opened');

    const folder = served(['report', out]);
    const url = await folder.url;
    const [again] = await allViews(url);
    assert.deepEqual(again.cells, last.cells, 'the folder shows what the live study ended with');
    const run = (last.openable as string[])[0];
    const [one] = await allViews(url, run);
    assert.equal(one.kind, 'run');
    assert.ok(one.done, `${run}: its event log, replayed to its end`);
    folder.child.kill('SIGINT');
    assert.equal((await folder.closed).code, 0);
  });
});

const chromiumTool = systemTool(CHROMIUM);
describe('the page in a real headless browser (Chromium)', { skip: chromiumTool.skip }, () => {
  let browser: Browser;
  let run: { config: SeededRunConfig; events: ArchipelagoEvent[] };
  const problems: string[] = [];
  before(async () => {
    browser = await chromium.launch({ executablePath: chromiumTool.path(), args: CHROMIUM_ARGS });
    run = await recordRun({ n: 40, islands: 4, topology: { kind: 'ring' }, migration: { mode: 'sync', interval: 1 }, seed: 3 });
  });
  after(async () => {
    await browser?.close();
    assert.deepEqual(problems, [], 'no console error, page error or request off the server');
  });

  /** A tab that records every console error, page error and request that is not to `origin`. */
  async function tab(origin: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => !r.url().startsWith(origin) && problems.push(`request: ${r.url()}`));
    return page;
  }
  const iteration = (page: Page) => page.locator('#status').getAttribute('data-iteration').then(Number);

  it('changes while the run goes, shows every island and the topology, and a reload gets the snapshot then live events', async () => {
    const events = new Subject<ArchipelagoEvent>();
    const server = await serveRun(run.config, { port: 0 });
    server.watch(events);
    const page = await tab(new URL(server.url).origin);
    const third = Math.floor(run.events.length / 3);
    for (const e of run.events.slice(0, third)) events.next(e);
    await page.goto(server.url);
    await page.waitForSelector('#topology g.node');
    assert.equal(await page.locator('#topology g.node').count(), 4);
    assert.equal(await page.locator('#topology line.edge').count(), 4, 'a ring of 4: 4 directed edges');
    assert.equal(await page.locator('#islands tr[data-island]').count(), 4);
    const before = await iteration(page);
    const chart = await page.locator('#best path').first().getAttribute('d');
    for (const e of run.events.slice(third, 2 * third)) events.next(e);
    // Iterations only grow: another number is a later one (the page's CSP allows no evaluated strings).
    await page.waitForSelector(`#status:not([data-iteration="${before}"])`);
    assert.notEqual(await page.locator('#best path').first().getAttribute('d'), chart, 'the chart grew');
    assert.ok((await page.locator('#heat rect.cell').count()) === 16, 'a 4 x 4 distance matrix');

    const shown = await iteration(page);
    await page.reload();
    await page.waitForSelector(`#status[data-iteration="${shown}"]`);
    assert.equal(await page.locator('#topology g.node').count(), 4);
    for (const e of run.events.slice(2 * third)) events.next(e);
    await page.waitForSelector('body[data-state="over"]');
    assert.match((await page.locator('#status').textContent()) ?? '', /^solved by island \d at iteration \d+/);
    const live = await drawn(page);
    await page.close();
    await server.close();

    // The same run from its trace file: the same drawing.
    const file = path.join(dir, 'run.trace.jsonl');
    writeFileSync(file, [traceHeader(run.config), ...run.events].map((e) => JSON.stringify(e)).join('\n'));
    const replay = await serveRunFile(file, { port: 0 });
    const again = await tab(new URL(replay.url).origin);
    await again.goto(replay.url);
    await again.waitForSelector('body[data-state="over"]');
    assert.deepEqual(await drawn(again), live);
    await again.close();
    await replay.close();
  });

  it('is readable at 64 islands: every island drawn inside its box', async () => {
    const config = resolveConfig({ n: 100, islands: 64, topology: { kind: 'ring' }, seed: 1 });
    const events = new Subject<ArchipelagoEvent>();
    const server = await serveRun(config, { port: 0 });
    server.watch(events);
    for (let island = 0; island < 64; island++)
      events.next({
        type: 'progress',
        island,
        iteration: 5,
        evaluations: 5000,
        bestFitness: 30 + island,
        meanFitness: 60,
        diversity: 0.9,
        migrantsSent: 100,
        migrantsAccepted: 50,
        seconds: 1,
      });
    const distance = Array.from({ length: 64 }, (_, i) => Array.from({ length: 64 }, (__, j) => (i === j ? 0 : 0.5 + ((i * j) % 7) / 20)));
    events.next({ type: 'between', iteration: 4, distance, meanDistance: 0.6, distinct: 400, sampled: 512, seconds: 1 });
    const page = await tab(new URL(server.url).origin);
    await page.goto(server.url);
    await page.waitForSelector('#heat rect.cell');
    assert.equal(await page.locator('#topology g.node').count(), 64);
    assert.equal(await page.locator('#heat rect.cell').count(), 64 * 64);
    const boxes = await page.$$eval('section', (sections) =>
      sections.map((s) => {
        const box = s.getBoundingClientRect();
        const svg = s.querySelector('svg')?.getBoundingClientRect();
        return { id: s.id, inside: !svg || (svg.right <= box.right + 1 && svg.left >= box.left - 1), width: box.width };
      }),
    );
    for (const b of boxes) assert.ok(b.inside && b.width > 300, `${b.id}: ${JSON.stringify(b)}`);
    await page.close();
    await server.close();
  });

  it('fills the study view in as runs finish, and opens a run going on', async () => {
    const config = run.config;
    const plan = { name: 'live <study>', seeds: [1, 2], cells: [{ id: 'ring & co', values: {}, config }], provenance: null, tool: null };
    const server = await serveStudy(plan, path.join(dir, 'no-study'), { port: 0 });
    const page = await tab(new URL(server.url).origin);
    await page.goto(server.url);
    await page.waitForSelector('#status[data-done="0"]');
    assert.equal(await page.locator('#title').textContent(), 'study live <study>', 'text from the study shown as text');
    const events = new Subject<ArchipelagoEvent>();
    server.runEvents('ring & co', 1, events);
    for (const e of run.events.slice(0, 40)) events.next(e);
    await page.waitForSelector('ul[data-kind="running"] a');
    const record = (seed: number, evaluations: number) =>
      ({ cell: 'ring & co', seed, solved: true, evaluations, error: null }) as unknown as RunRecord;
    server.runEnded(record(1, 5000));
    await page.waitForSelector('#status[data-done="1"]');
    assert.equal(await page.locator('#ecdf path').count(), 1);
    server.runEvents('ring & co', 2, events);
    await page.waitForSelector('ul[data-kind="running"] a');
    await page.locator('ul[data-kind="running"] a').click();
    await page.waitForSelector('#topology g.node');
    assert.equal(await page.locator('#topology g.node').count(), 4);
    await page.goBack();
    server.runEnded(record(2, 9000));
    server.finish();
    await page.waitForSelector('#status[data-done="2"]');
    assert.match((await page.locator('#cells tr[data-cell]').textContent()) ?? '', /2\/2/);
    await page.close();
    await server.close();
  });
});

/** The status of a GET of `url` with this Host header (fetch does not let one set it). */
function statusWithHost(url: string, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    })
      .on('error', reject)
      .end();
  });
}

/** What the run page drew: the status line, the island table and the heat map's colours. */
async function drawn(page: Page): Promise<unknown> {
  return {
    status: await page.locator('#status').textContent(),
    islands: await page.locator('#islands table').textContent(),
    heat: await page.$$eval('#heat rect.cell', (rects) => rects.map((r) => r.getAttribute('fill'))),
    nodes: await page.locator('#topology g.node').count(),
  };
}
