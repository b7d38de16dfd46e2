/**
 * Studies across machines, for real: a nats-server on a loopback port, `host` processes of
 * the built CLI, and the coordinator (in this process, or the CLI). Hosts are killed with
 * SIGKILL and SIGTERM mid-run; the broker is killed mid-study. Every wait is for an event
 * (a line on stderr, a message, a hook), never a timer.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { BUS_FORMAT } from '../src/cluster/bus/messages.ts';
import { writeFrame } from '../src/cluster/bus/frame.ts';
import { runStudyOnCluster } from '../src/cluster/study/study.ts';
import { ConfigError } from '../src/config/errors.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import type { RunRecord } from '../src/experiment/records.ts';
import { readRuns, runKey } from '../src/experiment/store.ts';
import { eventLogPath, runStudy } from '../src/experiment/runner.ts';
import { IDLE_ISLANDS, repeatablePart, SYNC_LAGGED_STUDY } from './helpers.ts';
import { toolInfo } from '../src/package-info.ts';
import { CLI, isOneLineError, spawnCli } from './cli-helpers.ts';
import { spawn } from 'node:child_process';
import { startLocalBroker } from '../src/cluster/local-broker.ts';
import { localCluster, nats, SHORT_RECONNECT, within } from './nats-server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-cluster-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { availableParallelism: 2, totalMemory: 8e9 };

/** An experiment file in the temp folder. */
function experimentFile(name: string, text: string): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

/** Quick runs (N = 8 solves in milliseconds) and, with `slow`, runs that end at a 1 s time limit unsolved. */
function study(name: string, slowRepeats = 0) {
  const n = slowRepeats > 0 ? '[8, 3000]' : '[8, 10]';
  const file = experimentFile(
    name,
    `base: { overrides: { islands: 1, ga: { populationSize: 40 }, limits: { timeLimit: 1 } } }\nsweep:\n  n: ${n}\nrepeats: ${Math.max(2, slowRepeats)}\nseed: 5\n`,
  );
  return loadExperiment(file, env);
}

/** Every planned run is in runs.jsonl exactly once; returns the records by key. */
function assertEachRunOnce(out: string, experiment: ReturnType<typeof study>): Map<string, RunRecord> {
  const { runs } = readRuns(path.join(out, 'runs.jsonl'));
  const keys = runs.map((r) => runKey(r.cell, r.seed));
  assert.equal(new Set(keys).size, keys.length, `no run twice: ${keys.join(' ')}`);
  const expected = experiment.cells.flatMap((c) => experiment.seeds.map((s) => runKey(c.id, s)));
  assert.deepEqual([...keys].sort(), expected.sort(), 'no run lost');
  return new Map(runs.map((r) => [runKey(r.cell, r.seed), r]));
}

// One describe, so a machine without nats-server shows one skip line.
// Bounded: a study that never ends fails the test instead of hanging the suite.
describe('across machines on NATS', { skip: nats.skip, timeout: 300_000 }, () => {
  const cluster = localCluster('t');

  describe('hosts and studies on a real nats-server', () => {
    const freshPrefix = cluster.freshPrefix;
    const startHosts = async (prefix: string, names: string[]) => (await cluster.startHosts(names, { prefix })).hosts;

    it('spreads a study over two host processes: every run once, each record naming its host', async () => {
      const prefix = freshPrefix();
      await startHosts(prefix, ['alpha', 'beta']);
      const experiment = study('two-hosts');
      const out = path.join(dir, 'two-hosts');
      const seen: string[][] = [];
      const outcome = await runStudyOnCluster(experiment, {
        outDir: out,
        resume: false,
        events: true,
        nats: cluster.server.url,
        hosts: 2,
        prefix,
        hooks: { onHosts: (list) => seen.push(list.map((h) => h.name)) },
      });
      assert.deepEqual([outcome.completed, outcome.interrupted, outcome.stoppedBy], [4, false, null]);
      const records = assertEachRunOnce(out, experiment);
      for (const record of records.values()) {
        assert.ok(['alpha', 'beta'].includes(record.host!), `host ${record.host}`);
        assert.equal(record.solved, true);
      }
      assert.ok(seen.flat().length > 0, 'the progress display was told about the hosts');
    });

    /**
     * A study of quick and slow runs on two hosts, one of which gets `signal` as soon as the
     * coordinator sees it start a slow run (the display's hook: an event, not a timer). The slow
     * runs only have to take their second, asleep (IDLE_ISLANDS).
     */
    async function studySignallingAHost(name: string, names: [string, string], signal: NodeJS.Signals, ackWaitMs: number) {
      const prefix = freshPrefix();
      const { hosts: started } = await cluster.startHosts(names, { prefix, env: IDLE_ISLANDS });
      const experiment = study(name, 2);
      const out = path.join(dir, name);
      let victim: { host: string; run: string } | null = null;
      const outcome = await runStudyOnCluster(experiment, {
        outDir: out,
        resume: false,
        events: false,
        nats: cluster.server.url,
        hosts: 2,
        prefix,
        ackWaitMs,
        hooks: {
          onHosts(list) {
            const busy = victim ? undefined : list.find((h) => h.current?.startsWith('n=3000'));
            if (!busy) return;
            victim = { host: busy.name, run: busy.current! };
            started.get(busy.name)!.child.kill(signal);
          },
        },
      });
      assert.ok(victim, `a host got ${signal} during a slow run`);
      const { host, run } = victim as { host: string; run: string };
      assert.deepEqual([outcome.completed, outcome.interrupted], [4, false]);
      return { host, run, signalled: started.get(host)!, records: assertEachRunOnce(out, experiment) };
    }

    it('a host SIGKILLed mid-run: the broker redelivers its run after the ack deadline, recorded once, by the other host', async () => {
      const { host, run, signalled, records } = await studySignallingAHost('killed', ['k1', 'k2'], 'SIGKILL', 1500);
      const [, cell, seed] = /^(\S+) seed (\d+)$/.exec(run)!;
      const survivor = host === 'k1' ? 'k2' : 'k1';
      assert.equal(records.get(runKey(cell, Number(seed)))!.host, survivor, 'the killed run was run again by the survivor');
      assert.equal((await signalled.exited).signal, 'SIGKILL');
    });

    it('a host stopped with SIGTERM mid-run gives its run back at once and leaves cleanly (exit 0)', async () => {
      // An ack deadline far beyond the test's: only the host's own give-back lets the study finish.
      const { signalled: leaving } = await studySignallingAHost('terminated', ['t1', 't2'], 'SIGTERM', 600_000);
      const exit = await leaving.exited;
      assert.equal(exit.code, 0, leaving.stderr());
      assert.match(leaving.stderr(), /SIGTERM: leaving; its run of study \S+ goes back to the queue\n.*host t\d left after \d+ runs?/);
    });

    it('a study of sync and lagged cells (3 islands) on two host processes: the records and event logs of the same study on this machine', async () => {
      const prefix = freshPrefix();
      await startHosts(prefix, ['exact1', 'exact2']);
      const file = experimentFile('exact', SYNC_LAGGED_STUDY);
      const experiment = loadExperiment(file, env);
      const here = path.join(dir, 'exact-here');
      const spread = path.join(dir, 'exact-hosts');
      await runStudy(experiment, { outDir: here, resume: false, events: true });
      const outcome = await runStudyOnCluster(experiment, {
        outDir: spread,
        resume: false,
        events: true,
        nats: cluster.server.url,
        hosts: 2,
        prefix,
      });
      assert.deepEqual([outcome.completed, outcome.interrupted], [6, false]);
      const records = (out: string) =>
        readRuns(path.join(out, 'runs.jsonl')).runs.sort((x, y) => x.cell.localeCompare(y.cell) || x.seed - y.seed);
      const [local, hosted] = [records(here), records(spread)];
      assert.ok(hosted.every((r) => r.host === 'exact1' || r.host === 'exact2'));
      // All but timings and the host: trajectories, between series, takeover and island counts included.
      assert.deepEqual(repeatablePart(hosted), repeatablePart(local));
      const summary = JSON.stringify(local.map((r) => [r.cell, r.seed, r.solved, r.trajectory?.length, r.between?.length]));
      assert.ok(
        local.every((r) => r.trajectory!.length >= 2 && r.between!.length >= 3),
        summary,
      );
      // Both ends of the record: solved runs (cut at the winning iteration) and runs that reached the limit.
      assert.ok(local.some((r) => r.solved) && local.some((r) => !r.solved), summary);
      // The event logs keep the same migrations, survival checks and between samples (their order and clock aside).
      const kept = (out: string, r: RunRecord) =>
        readFileSync(path.join(out, eventLogPath(r.cell, r.seed)), 'utf8')
          .split('\n')
          .filter((line) => /"type":"(migration|survival|between)"/.test(line))
          .map((line) => JSON.stringify({ ...JSON.parse(line), seconds: undefined }))
          .sort();
      for (const r of local) assert.deepEqual(kept(spread, r), kept(here, r), `${r.cell} seed ${r.seed}`);
    });

    it('--resume after an interrupted distributed study: nothing lost, nothing repeated', async () => {
      const prefix = freshPrefix();
      await startHosts(prefix, ['r1']);
      const experiment = study('resumed');
      const out = path.join(dir, 'resumed');
      const controller = new AbortController();
      const first = await runStudyOnCluster(experiment, {
        outDir: out,
        resume: false,
        events: false,
        nats: cluster.server.url,
        hosts: 1,
        prefix,
        signal: controller.signal,
        hooks: { onRunEnd: () => controller.abort() },
      });
      assert.equal(first.stoppedBy, 'signal');
      assert.ok(first.interrupted && first.completed >= 1 && first.completed < 4, `completed ${first.completed}`);
      const second = await runStudyOnCluster(experiment, {
        outDir: out,
        resume: true,
        events: false,
        nats: cluster.server.url,
        hosts: 1,
        prefix,
      });
      assert.deepEqual([second.skipped + second.completed, second.interrupted], [4, false]);
      assert.equal(second.skipped, first.completed);
      assertEachRunOnce(out, experiment);
    });

    it('refuses a host of another version by name, drops malformed messages, and ignores other prefixes', async () => {
      const prefix = freshPrefix();
      await startHosts('elsewhere', ['foreign-prefix']);
      const raw = await connect({ servers: cluster.server.url.replace('nats://', '') });
      const packr = new Packr({ moreTypes: true });
      const lines: string[] = [];
      const experiment = study('refused');
      const out = path.join(dir, 'refused');
      // The coordinator's discover call is the moment it listens: answer it with an old host and garbage, then start a real one.
      let real: Promise<unknown> | null = null;
      raw.subscribe(`${prefix}.hosts.discover`, {
        callback: () => {
          raw.publish(
            `${prefix}.hosts.heartbeat`,
            writeFrame({
              tool: '0.0.1',
              from: 'old1',
              seq: 1,
              scope: '',
              body: packr.pack({ type: 'host', id: 'old1', name: 'old-host', islands: 4, busy: false }),
            }),
          );
          raw.publish(`${prefix}.hosts.heartbeat`, new Uint8Array([1, 2, 3]));
          raw.publish(`${prefix}.hosts.heartbeat`, packr.pack({ format: BUS_FORMAT, tool: 'x', body: null }));
          real ??= startHosts(prefix, ['current']);
        },
      });
      await raw.flush();
      const outcome = await runStudyOnCluster(experiment, {
        outDir: out,
        resume: false,
        events: false,
        nats: cluster.server.url,
        hosts: 1,
        prefix,
        log: (l) => lines.push(l),
      });
      await raw.close();
      assert.equal(outcome.completed, 4);
      const records = assertEachRunOnce(out, experiment);
      assert.deepEqual([...new Set([...records.values()].map((r) => r.host))], ['current']);
      const refusals = lines.filter((l) => l.startsWith('refused host'));
      assert.deepEqual(refusals, [
        `refused host old-host: it runs nqueens-islands 0.0.1 (bus format ${BUS_FORMAT}); this coordinator runs nqueens-islands ${toolInfo().version} (bus format ${BUS_FORMAT})`,
      ]);
      assert.ok(outcome.dropped >= 3, `dropped ${outcome.dropped}`);
    });

    it('too few hosts within --wait: one line naming the count and the broker, nothing written', async () => {
      const out = path.join(dir, 'too-few');
      await assert.rejects(
        runStudyOnCluster(study('too-few'), {
          outDir: out,
          resume: false,
          events: false,
          nats: cluster.server.url,
          hosts: 1,
          prefix: freshPrefix(),
          waitMs: 300,
        }),
        (e: unknown) =>
          e instanceof ConfigError && /^--hosts 1: only 0 idle hosts answered on nats:\/\/127\.0\.0\.1:\d+ within 0\.3 s/.test(e.message),
      );
      assert.equal(existsSync(out), false);
    });

    it('--out is checked before the wait for hosts: a folder that is not empty is refused at once', async () => {
      const out = path.join(dir, 'full');
      mkdirSync(out);
      writeFileSync(path.join(out, 'notes.txt'), 'mine\n');
      const options = {
        outDir: out,
        resume: false,
        events: false,
        nats: cluster.server.url,
        hosts: 1,
        prefix: freshPrefix(),
        waitMs: 60_000,
      };
      await within(
        20,
        'the refusal of --out',
        assert.rejects(
          runStudyOnCluster(study('full'), options),
          (e: unknown) => e instanceof ConfigError && /^--out .*full: folder is not empty/.test(e.message),
        ),
      );
      assert.deepEqual(readdirSync(out), ['notes.txt']);
    });

    it('a study without the cluster key facing keyed hosts gives up with the hint, as solve does (not a wait for ever)', async () => {
      const prefix = freshPrefix();
      await cluster.startHosts(['keyed'], { prefix, env: { NQI_CLUSTER_KEY: 'a-cluster-key-of-the-lab-0123' } });
      const out = path.join(dir, 'keyless');
      const run = spawnCli([
        'experiment',
        experimentFile('keyless', 'base: { overrides: { n: 8, islands: 1 } }\nrepeats: 2\nseed: 3\n'),
        '--out',
        out,
        '--nats',
        cluster.server.url,
        '--nats-prefix',
        prefix,
        '--hosts',
        '1',
      ]);
      const exit = await within(60, 'the study to give up', run.exited);
      assert.equal(exit.code, 3, run.stderr());
      assert.match(
        run.stderr(),
        /no invited host started a run within 10 s; the hosts sign their messages with a cluster key and this process has none, so they drop what it sends \(set NQI_CLUSTER_KEY or --cluster-key-file\): 0 of 2 runs are in .*; continue with: nqueens-islands experiment .* --resume --nats /,
      );
    });

    it('a host that cannot run a run (address space, ulimit -v) is not invited again; with no other host the study stops saying why', async () => {
      const prefix = freshPrefix();
      const quoted = [
        process.execPath,
        CLI,
        'host',
        '--nats',
        cluster.server.url,
        '--nats-prefix',
        prefix,
        '--name',
        'short',
        '--islands',
        '1',
      ];
      const host = spawn('bash', ['-c', `ulimit -v 4000000 && exec ${quoted.map((w) => `'${w}'`).join(' ')}`], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let hostLog = '';
      host.stderr.setEncoding('utf8').on('data', (chunk: string) => (hostLog += chunk));
      try {
        // 8 islands on 8 threads need about 7 GB of address space: more than the host's limit.
        const file = experimentFile('short', 'base: { overrides: { n: 30, islands: 8, threads: 8 } }\nrepeats: 2\nseed: 1\n');
        const run = spawnCli([
          'experiment',
          file,
          '--out',
          path.join(dir, 'short'),
          '--nats',
          cluster.server.url,
          '--nats-prefix',
          prefix,
          '--hosts',
          '1',
          '--wait',
          '60',
        ]);
        const exit = await within(60, 'the study to stop', run.exited);
        assert.equal(exit.code, 3, run.stderr());
        assert.equal(
          run.stderr().match(/host short cannot run base#\d: n: 30 needs about [\d.]+ GB of address space .*; it is not invited again\n/g)
            ?.length,
          1,
          run.stderr(),
        );
        assert.match(
          run.stderr(),
          /no host here can run the study's runs \(host short cannot run base#\d: .*\): 0 of 2 runs are in .*; continue with: /,
        );
        assert.equal(hostLog.match(/joined study/g)?.length, 1, hostLog);
      } finally {
        host.kill('SIGKILL');
      }
    });

    it('with --nats, the warning about sweep cells that cannot differ is said once', async () => {
      const prefix = freshPrefix();
      await startHosts(prefix, ['moot']);
      const file = experimentFile(
        'moot',
        'base: { overrides: { n: 8, islands: 1 } }\nsweep:\n  topology.kind: [ring, none]\nrepeats: 1\nseed: 3\n',
      );
      const run = spawnCli([
        'experiment',
        file,
        '--out',
        path.join(dir, 'moot'),
        '--nats',
        cluster.server.url,
        '--nats-prefix',
        prefix,
        '--hosts',
        '1',
      ]);
      assert.equal((await run.exited).code, 0, run.stderr());
      assert.equal(run.stderr().match(/cannot differ/g)?.length, 1, run.stderr());
    });
  });

  describe('NATS authentication and a lost broker', () => {
    it('a broker with a user and password: a host with them in the URL works, one without is refused in one line', async () => {
      const server = await startLocalBroker(nats.path(), { user: 'alice', password: 's3cret' });
      const url = server.url.replace('nats://', 'nats://alice:s3cret@');
      try {
        const { prefix, hosts } = await cluster.startHosts(['authed'], { url });
        const host = hosts.get('authed')!;
        await host.waitForStderr(/host authed ready: 1 island on nats:\/\/alice:\*\*\*@127\.0\.0\.1:\d+/);
        assert.ok(!host.stderr().includes('s3cret'), 'the password is never printed');
        const experiment = study('authed');
        const out = path.join(dir, 'authed');
        const outcome = await runStudyOnCluster(experiment, { outDir: out, resume: false, events: false, nats: url, hosts: 1, prefix });
        assert.equal(outcome.completed, 4);
        const anonymous = spawnCli(['host', '--nats', server.url]);
        const r = { ...(await anonymous.exited), stdout: anonymous.stdout(), stderr: anonymous.stderr() };
        assert.ok(isOneLineError(r), r.stderr);
        assert.match(r.stderr, /cannot connect to the NATS broker \(Authorization Violation\)/);
      } finally {
        await server.stop();
      }
    });

    it('the broker killed mid-study: the coordinator stops with exit 3 and the resume command, the host with exit 3', async () => {
      const server = await startLocalBroker(nats.path());
      try {
        // Both give up reconnecting after 1 s (SHORT_RECONNECT), not 5: the same ending, a shorter wait. The run
        // the host is on only has to be going when the broker dies: asleep (IDLE_ISLANDS).
        const { prefix, hosts } = await cluster.startHosts(['orphan'], { url: server.url, env: { ...SHORT_RECONNECT, ...IDLE_ISLANDS } });
        const host = hosts.get('orphan')!;
        const file = experimentFile(
          'broker-lost',
          'base: { overrides: { n: 3000, islands: 1, ga: { populationSize: 40 }, limits: { timeLimit: 1 } } }\nrepeats: 20\nseed: 1\n',
        );
        const out = path.join(dir, 'broker-lost');
        const coordinator = spawnCli(['experiment', file, '--out', out, '--nats', server.url, '--nats-prefix', prefix, '--hosts', '1'], {
          env: SHORT_RECONNECT,
        });
        await host.waitForStderr(/joined study/);
        await server.kill();
        const [c, h] = await Promise.all([coordinator.exited, host.exited]);
        assert.equal(c.code, 3, coordinator.stderr());
        assert.match(
          coordinator.stderr(),
          /lost the NATS broker nats:\/\/127\.0\.0\.1:\d+: \d+ of 20 runs are in .*; continue with: nqueens-islands experiment .* --resume --nats nats:\/\/127\.0\.0\.1:\d+ --nats-prefix \w+ --hosts 1\n/,
        );
        assert.equal(h.code, 3, host.stderr());
        assert.match(host.stderr(), /lost the NATS broker/);
      } finally {
        await server.stop();
      }
    });
  });
});
