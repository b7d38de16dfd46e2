/**
 * The live view's server against hostile and heavy use (issue 47 item 1, issue 48): any request
 * target gets an answer and the run goes on; the token cookie belongs to one server (port);
 * a stream of snapshots above 1 MB reaches a page that reads slowly without being dropped.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { resolveConfig, serveRun as serveLibraryRun, startRun } from '../src/index.ts';
import { serveRun } from '../src/serve/serve.ts';
import { CLI } from './cli-helpers.ts';
import { readViews, servedUrl } from './live-stream.ts';

/** The status code a raw request line `GET target HTTP/1.1` gets (fetch would normalise the target). */
function rawStatus(port: number, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    });
    let reply = '';
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

/** Targets no URL parser takes (each killed 0.8.0's server before its checks), and one the HTTP parser refuses. */
const BAD_TARGETS = ['//[', '//[::1', '//[x]/', '//a:b@[', '//host:99999/', '//host:port/', 'http://[', '//%', '//a%zz/', '//[1::2::3]/'];

describe('a served run survives any request', () => {
  it('answers 400 to every target that is not a URL path, and the run goes on to its result', async () => {
    const child = spawn(process.execPath, [CLI, 'solve', '-n', '3000', '--islands', '2', '--seed', '1', '--json', '--serve', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const url = new URL(await servedUrl(child));
    const port = Number(url.port);
    const statuses = [];
    for (const target of BAD_TARGETS) statuses.push([target, await rawStatus(port, target)]);
    assert.deepEqual(
      statuses,
      BAD_TARGETS.map((t) => [t, 400]),
    );
    assert.equal(await rawStatus(port, '/a b'), 400, "a target the HTTP parser refuses: 400 from the parser's guard");
    assert.equal(await rawStatus(port, '/'), 200, 'still serving');
    assert.equal(child.exitCode, null, 'the run is still going');
    child.kill('SIGINT');
    assert.equal(await closed, 130, 'stopped by the signal, not by a request');
    assert.equal((JSON.parse(stdout) as { ended: string }).ended, 'SIGINT');
  });
});

describe('the token cookie', () => {
  it('is named for its server: two servers on one address each keep their own', async () => {
    const config = resolveConfig({ n: 12, islands: 2, seed: 1 });
    const [a, b] = [await serveRun(config, { port: 0, host: '127.0.0.2' }), await serveRun(config, { port: 0, host: '127.0.0.2' })];
    try {
      const cookies = [];
      for (const server of [a, b]) {
        const res = await fetch(server.url);
        assert.equal(res.status, 200);
        cookies.push((res.headers.get('set-cookie') ?? '').split(';')[0]);
      }
      const [nameA, nameB] = cookies.map((c) => c.split('=')[0]);
      assert.notEqual(nameA, nameB, 'a cookie per port');
      assert.equal(nameA, `nqi-token-${new URL(a.url).port}`);
      // A browser sends both cookies to both (cookies ignore ports): each server finds its own.
      const both = cookies.join('; ');
      for (const server of [a, b]) {
        const { origin } = new URL(server.url);
        assert.equal((await fetch(`${origin}/app.js`, { headers: { cookie: both } })).status, 200);
      }
      const { origin } = new URL(a.url);
      assert.equal((await fetch(`${origin}/app.js`, { headers: { cookie: cookies.find((c) => c.startsWith(nameB))! } })).status, 403);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('the library', () => {
  it('serves a run started with startRun, every event from the first', async () => {
    const handle = startRun({ n: 30, islands: 2, topology: { kind: 'ring' }, migration: { mode: 'sync' }, seed: 3 });
    const server = await serveLibraryRun(handle, { port: 0 });
    const record = await handle.result;
    const views = await readViews(server.url);
    const done = views.at(-1)!.done as { evaluations: number };
    assert.equal(done.evaluations, record.evaluations, 'the view ends with the run');
    assert.ok(views[0].started !== undefined, 'the start was seen: no event missed');
    await server.close();
  });
});
