/**
 * `experiment --nats --serve` shows the runs going on at hosts (docs/live-view.md): a host
 * tells its run's progress (`run-progress`), the coordinator feeds it to the study's view, and
 * only the host that started a run may feed it, only with islands the run has. On a real
 * nats-server with a `host` process of the built CLI; the bounds of the message on its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Subject } from 'rxjs';
import type { ArchipelagoEvent } from '../src/archipelago/events.ts';
import { BUS_MESSAGES, MAX_PROGRESS_ISLANDS } from '../src/cluster/bus/messages.ts';
import type { BusEndpoint } from '../src/cluster/bus/endpoint.ts';
import { RunFeeds } from '../src/cluster/study/run-feeds.ts';
import type { PlannedRun } from '../src/experiment/runner.ts';
import { runExperiment, type RunRecord, type ViewServer } from '../src/index.ts';
import { readViews } from './live-stream.ts';
import { localCluster, nats, within } from './nats-server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-cluster-view-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** [island, iteration, evaluations, best, mean, diversity, sent, accepted, seconds] */
const sample = (island: number) => [island, 10, 400, 5, 9, 0.5, 0, 0, 1.5];

describe('run-progress: what a host may tell of its run', () => {
  const schema = BUS_MESSAGES['run-progress'].schema;
  const message = (islands: unknown[]) => ({ type: 'run-progress', session: 'abc', runId: 'cell#1', islands });

  it('is bounded: at most MAX_PROGRESS_ISLANDS islands, each nine numbers in range', () => {
    assert.ok(schema.safeParse(message([sample(0)])).success);
    const many = Array.from({ length: MAX_PROGRESS_ISLANDS + 1 }, (_, i) => sample(i));
    assert.equal(schema.safeParse(message(many)).success, false, 'too many islands');
    assert.equal(schema.safeParse(message([])).success, false, 'no island');
    assert.equal(schema.safeParse(message([[0, -1, 400, 5, 9, 0.5, 0, 0, 1]])).success, false, 'a negative iteration');
    assert.equal(schema.safeParse(message([[0, 10, 400, 5, 9, 2, 0, 0, 1]])).success, false, 'a diversity above 1');
    assert.equal(schema.safeParse(message([[0, 10, 400, 5, 9, 0.5, 0, 0]])).success, false, 'a number missing');
    assert.equal(schema.safeParse(message([[0, 10, 400, 'x', 9, 0.5, 0, 0, 1]])).success, false, 'not a number');
  });

  it("feeds a run's stream only from the host that started it, only with the run's islands", () => {
    let handle: ((message: unknown, from: string) => void) | null = null;
    const dropped = { malformed: 0, unauthenticated: 0 };
    const bus = { listen: (_s: string, _t: unknown, h: typeof handle) => (handle = h), dropped } as unknown as BusEndpoint;
    const streams: Subject<ArchipelagoEvent>[] = [];
    const feeds = new RunFeeds({ onRunEvents: (_run, events$) => streams.push(events$ as Subject<ArchipelagoEvent>) });
    feeds.listen(bus, 'progress', 'abc');
    const got: ArchipelagoEvent[] = [];
    feeds.started('cell#1', { cell: { config: { islands: 2 } } } as unknown as PlannedRun, 'host-a');
    streams[0].subscribe((e) => got.push(e));
    handle!(message([sample(0), sample(1), sample(7)]), 'host-a');
    assert.deepEqual(
      got.map((e) => e.type === 'progress' && [e.island, e.evaluations]),
      [
        [0, 400],
        [1, 400],
      ],
      'island 7 of a 2-island run left out',
    );
    handle!(message([sample(0)]), 'host-b');
    handle!({ ...message([sample(0)]), runId: 'cell#2' }, 'host-a');
    handle!({ ...message([sample(0)]), session: 'other' }, 'host-a');
    assert.equal(got.length, 2, 'nothing from another host, for another run or study');
    assert.deepEqual(dropped, { malformed: 1, unauthenticated: 2 });
    let completed = false;
    streams[0].subscribe({ complete: () => (completed = true) });
    feeds.hostGone('host-a');
    assert.ok(completed, 'the run is no longer going on once its host is gone');
  });
});

/** The first run the study's view shows going on. */
async function firstRunning(url: string): Promise<string> {
  const res = await fetch(`${url}events`);
  let text = '';
  for await (const chunk of res.body!) {
    text += Buffer.from(chunk as Uint8Array).toString();
    for (const frame of text.split('\n\n').filter((f) => f.startsWith('data: '))) {
      const running = (JSON.parse(frame.slice(6)) as { running: string[] }).running;
      // Leaving the loop cancels the body: the connection closes.
      if (running.length > 0) return running[0];
    }
    text = text.slice(text.lastIndexOf('\n\n') + 2);
  }
  throw new Error('the study ended with no run shown going on');
}

describe('experiment --nats --serve', { skip: nats.skip, timeout: 180_000 }, () => {
  const cluster = localCluster('sv');

  it("shows a run going on at a host with its islands' progress, then its end as recorded", async () => {
    const prefix = cluster.freshPrefix();
    await cluster.startHosts(['alpha'], { prefix, islands: 2 });
    const out = path.join(dir, 'at-hosts');
    let served: (view: ViewServer) => void = () => {};
    const view = new Promise<ViewServer>((resolve) => (served = resolve));
    // A run of 3 s (N = 3000 is not solved in that time): the host tells its progress every second.
    const study = runExperiment(
      { name: 'at-hosts', base: { overrides: { n: 3000, islands: 2, ga: { populationSize: 40 }, limits: { timeLimit: 3 } } }, seed: 5 },
      { out, cluster: { nats: cluster.server.url, hosts: 1, prefix }, serve: { port: 0, onServe: served } },
    );
    const { url } = await within(60, 'the view', view);
    const key = await within(60, 'a run going on at the host', firstRunning(url));
    const views = await within(60, "the run's end", readViews(url, key));
    const islands = views.flatMap((v) => v.islands as { id: number; evaluations: number; best: number }[]);
    assert.ok(
      islands.some((i) => i.id === 0 && i.evaluations > 0) && islands.some((i) => i.id === 1 && i.evaluations > 0),
      'both islands progressed, as the host told',
    );
    await study;
    const [record] = readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunRecord);
    assert.equal(record.host, 'alpha');
    const done = views.at(-1)!.done as { evaluations: number; solved: boolean };
    assert.deepEqual([done.evaluations, done.solved], [record.evaluations, record.solved], "the run's page ends as its record");
    const shown = islands.filter((i) => i.evaluations > 0);
    assert.ok(
      shown.every((i) => i.evaluations <= record.evaluations),
      'no island shows more evaluations than the run made',
    );
    await (await view).close();
  });
});
