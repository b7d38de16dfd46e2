/**
 * A cluster study's work queue on a real nats-server (issue 39, classes 8 and 9): runs taken
 * from it by a party that is not a host are published again and recorded once; a lost host's
 * run goes back to the queue, said when its ack deadline passes; a coordinator without the
 * key that hears keyed hosts says why they will not answer it; a host whose study ends while it
 * sends a run's result stops asking and is free again. Waits are for hooks and lines.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { Subjects } from '../src/cluster/bus/connection.ts';
import { startHost } from '../src/cluster/host/host.ts';
import { runStudyOnCluster } from '../src/cluster/study/study.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { RESOLVED_CONFIG_VERSION } from '../src/config/resolved-schema.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { readRuns, runKey } from '../src/experiment/store.ts';
import { IDLE_ISLANDS } from './helpers.ts';
import { localCluster, nats, SHORT_HEARTBEAT, SHORT_HEARTBEAT_MS, within } from './nats-server.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'nq-queue-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Runs that end at a 1 s time limit unsolved (N = 3000): a queue that holds several for a while.
 * Their hosts get IDLE_ISLANDS: the runs only have to take their time, asleep.
 */
function slowStudy(name: string, repeats: number) {
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(
    file,
    `base: { overrides: { islands: 1, ga: { populationSize: 40 }, limits: { timeLimit: 1 } } }\nsweep:\n  n: [3000]\nrepeats: ${repeats}\nseed: 5\n`,
  );
  return loadExperiment(file, { availableParallelism: 2, totalMemory: 8e9 });
}

/** Every planned run is in runs.jsonl exactly once. */
function assertEachRunOnce(out: string, experiment: ReturnType<typeof slowStudy>): void {
  const keys = readRuns(path.join(out, 'runs.jsonl')).runs.map((r) => runKey(r.cell, r.seed));
  assert.equal(new Set(keys).size, keys.length, `no run twice: ${keys.join(' ')}`);
  assert.deepEqual([...keys].sort(), experiment.cells.flatMap((c) => experiment.seeds.map((s) => runKey(c.id, s))).sort());
}

describe("a cluster study's queue", { skip: nats.skip, timeout: 240_000 }, () => {
  const cluster = localCluster('q');

  it('runs taken and acked by a party that is not a host are published again (one line) and recorded once', async () => {
    const { prefix } = await cluster.startHosts(['thief-victim'], { env: IDLE_ISLANDS });
    const experiment = slowStudy('stolen', 4);
    const out = path.join(tmp, 'stolen');
    const raw = await connect({ servers: cluster.server.url.replace('nats://', '') });
    const lines: string[] = [];
    let theft: Promise<number> | null = null;
    const stolen = () => theft ?? Promise.resolve(0);
    try {
      const outcome = await runStudyOnCluster(experiment, {
        outDir: out,
        resume: false,
        events: false,
        nats: cluster.server.url,
        hosts: 1,
        prefix,
        log: (line) => lines.push(line),
        hooks: {
          // While the host runs its first run, the thief takes two waiting ones from the host's consumer and acks them.
          onRunStart() {
            theft ??= (async () => {
              const jsm = await jetstreamManager(raw);
              let taken = 0;
              for await (const name of jsm.streams.names()) {
                if (!name.startsWith(`${prefix}_study_`)) continue;
                const consumer = await jetstream(raw).consumers.get(name, 'hosts');
                for (let i = 0; i < 2; i++) {
                  const msg = await consumer.next({ expires: 2000 });
                  if (msg) {
                    msg.ack();
                    taken++;
                  }
                }
              }
              return taken;
            })();
          },
        },
      });
      assert.equal(await stolen(), 2, 'the thief took two runs');
      assert.deepEqual([outcome.completed, outcome.stoppedBy], [4, null]);
      const republished = lines.filter((l) => /missing from the study's queue .*: publishing them again/.test(l));
      assert.equal(republished.length, 1, lines.join('\n'));
      assert.match(republished[0], /^2 of the \d runs still to do are missing/);
      assertEachRunOnce(out, experiment);
    } finally {
      await raw.close();
    }
  });

  it("a lost host's run goes back to the queue when its ack deadline passes (said once, then), and the other host runs it", async () => {
    // Heartbeats of 0.5 s (SHORT_HEARTBEAT, the hosts' and this coordinator's), not 1 s: the host is lost after 1.5 s, not 3.
    const { prefix, hosts } = await cluster.startHosts(['lost1', 'lost2'], { env: { ...SHORT_HEARTBEAT, ...IDLE_ISLANDS } });
    const experiment = slowStudy('lost', 4);
    const out = path.join(tmp, 'lost');
    const lines: string[] = [];
    let victim: string | null = null;
    const outcome = await runStudyOnCluster(experiment, {
      outDir: out,
      resume: false,
      events: false,
      nats: cluster.server.url,
      hosts: 2,
      prefix,
      // Past the host's loss (3 missed heartbeats of 0.5 s, seen at the next look): the line waits for the deadline, not for the loss.
      ackWaitMs: 3000,
      heartbeatMs: SHORT_HEARTBEAT_MS,
      log: (line) => lines.push(line),
      hooks: {
        onHosts(list) {
          const busy = victim ? undefined : list.find((h) => h.current !== null);
          if (!busy) return;
          victim = busy.name;
          hosts.get(busy.name)!.child.kill('SIGKILL');
        },
      },
    });
    assert.ok(victim, 'a host was killed mid-run');
    assert.deepEqual([outcome.completed, outcome.stoppedBy], [4, null]);
    const lost = lines.findIndex((l) => l === `host ${victim} lost`);
    const back = lines.filter((l) => /^run n=3000 seed \d+ of a lost host went back to the queue \(its ack deadline passed\)$/.test(l));
    assert.ok(lost >= 0, lines.join('\n'));
    assert.equal(back.length, 1, lines.join('\n'));
    assert.ok(lines.indexOf(back[0]) > lost, 'said after the host was found lost, not at once with it');
    const records = readRuns(path.join(out, 'runs.jsonl')).runs;
    assert.ok(
      records.every((r) => r.host !== victim),
      'every run recorded by the survivor',
    );
    assertEachRunOnce(out, experiment);
  });

  it("a host that hears its study end while it sends a run's result stops asking and leaves the study, free for the next one", async () => {
    // This test is the study's coordinator: it queues one run, invites a host in this process, and
    // ends the study as soon as the host sends the run's result, which it never confirms (a
    // coordinator stopped by a signal). The host used to go on asking for its whole 30 s result
    // timeout, busy, so a study resumed at once found no idle host (cluster-study's --resume test).
    const prefix = cluster.freshPrefix();
    const lines: string[] = [];
    let onLine = () => {};
    const host = await startHost({
      nats: cluster.server.url,
      prefix,
      name: 'member',
      islands: 1,
      log(line) {
        lines.push(line);
        onLine();
      },
    });
    const raw = await connect({ servers: cluster.server.url.replace('nats://', '') });
    try {
      const subjects = new Subjects(prefix);
      const coordinator = new BusCodec('coord1', null);
      const session = '0123456789abcdef';
      const stream = subjects.studyStream(session);
      const jsm = await jetstreamManager(raw);
      await jsm.streams.add({
        name: stream,
        subjects: [subjects.study(session, 'runs')],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.Memory,
      });
      await jsm.consumers.add(stream, { durable_name: 'hosts', ack_policy: AckPolicy.Explicit, ack_wait: 60e9 });
      const runs = subjects.study(session, 'runs');
      const config = { ...resolveRunConfig({ n: 8, islands: 1 }, 'test', {}, { availableParallelism: 2, totalMemory: 8e9 }), seed: 1 };
      await jetstream(raw).publish(
        runs,
        coordinator.encode(runs, {
          type: 'run',
          session,
          runId: 'c#1',
          cell: { id: 'c', values: {} },
          configVersion: RESOLVED_CONFIG_VERSION,
          config,
          events: false,
        }),
      );
      const end = subjects.study(session, 'end');
      const resultSent = new Promise<void>((resolve) =>
        raw.subscribe(subjects.study(session, 'result'), {
          max: 1,
          callback: () => {
            raw.publish(end, coordinator.encode(end, { type: 'end', session }));
            resolve();
          },
        }),
      );
      const invite = subjects.invite(host.id);
      raw.publish(invite, coordinator.encode(invite, { type: 'invite', session, stream, consumer: 'hosts', ackWaitMs: 60_000 }));
      await within(60, "the host to send the run's result", resultSent);
      const left = new Promise<void>((resolve) => {
        onLine = () => lines.includes(`left study ${session}`) && resolve();
        onLine();
      });
      await within(60, 'the host to leave the study', left);
      assert.ok(lines.includes('result of c#1 not confirmed (the study ended)'), lines.join('\n'));
      assert.equal(host.busyWith, null);
    } finally {
      await host.stop();
      await raw.close();
    }
  });

  it('a coordinator without the key that hears keyed hosts says once why they will not answer it', async () => {
    const { prefix } = await cluster.startHosts(['keyed'], { env: { NQI_CLUSTER_KEY: 'the-cluster-key-of-the-queue-test-0123456' } });
    const lines: string[] = [];
    const stop = new AbortController();
    const outcome = await runStudyOnCluster(slowStudy('keyless', 1), {
      outDir: path.join(tmp, 'keyless'),
      resume: false,
      events: false,
      nats: cluster.server.url,
      hosts: 1,
      prefix,
      signal: stop.signal,
      log(line) {
        lines.push(line);
        if (/heard a signed message/.test(line)) stop.abort();
      },
    });
    const hints = lines.filter((l) => /heard a signed message/.test(l));
    assert.equal(hints.length, 1, lines.join('\n'));
    assert.match(
      hints[0],
      /; the hosts sign their messages with a cluster key and this process has none, so they drop what it sends \(set NQI_CLUSTER_KEY or --cluster-key-file\)$/,
    );
    assert.equal(outcome.completed, 0);
  });
});
