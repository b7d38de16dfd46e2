/**
 * Across machines, measured on loopback: what a migrant costs over NATS against a
 * MessagePort, one run's islands on two host processes against the same islands in one
 * process, and a study's throughput on two host processes against one. Needs a
 * nats-server (found as the tests find it: NQI_NATS_SERVER, PATH, Debian's paths).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { connect } from '@nats-io/transport-node';
import { encode } from '../src/archipelago/codec.ts';
import { startLocalBroker } from '../src/cluster/local-broker.ts';
import type { runStudyOnCluster } from '../src/cluster/study/study.ts';
import type { loadExperiment } from '../src/experiment/load.ts';
import { findSystemTool } from '../test/system-tools.ts';
import { NATS_SERVER } from '../test/nats-server.ts';
import { statFields } from '../test/proc-stat.ts';

/**
 * A build whose cluster cases are measured: its dist/ folder (the bundle the
 * `nqueens-islands` bin points at, and the library the study coordinator is). Two builds
 * measured in one run (`--baseline-dist DIR`) alternate run by run, so load falls on both alike.
 */
export interface Build {
  label: string;
  dist: string;
  /** Flags its `host` processes get besides the bench's own (a host setting compared as if it were a build). */
  hostArgs?: readonly string[];
}

/** This build: the dist/ this script was compiled into. */
export const THIS_BUILD: Build = { label: 'this build', dist: fileURLToPath(new URL('..', import.meta.url)) };

const cliOf = (build: Build) => path.join(build.dist, 'bundle', 'nqueens-islands.cjs');

/** Every figure is measured as a cluster should run: each bus message signed (docs/distributed.md, Security model). */
const CLUSTER_KEY = 'bench-cluster-key-0123456789abcdef';
const env = { ...process.env, NQI_CLUSTER_KEY: CLUSTER_KEY };

/** nats-server's path, or why the section is skipped. */
export function natsServerPath(): { path: string } | { skip: string } {
  const tool = findSystemTool(NATS_SERVER);
  return tool.found ? { path: tool.path } : { skip: tool.skip };
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

/** One migrants message of `count` chromosomes of N genes, encoded as islands send it. */
function migrantBytes(n: number, count: number): Uint8Array {
  const genes = new Uint16Array(n * count);
  for (let i = 0; i < genes.length; i++) genes[i] = i % n;
  return encode({ type: 'migrants', from: 0, epoch: 1, iteration: 10, count, genes });
}

export interface RoundTrip {
  bytes: number;
  messagePortP50Ms: number;
  messagePortP99Ms: number;
  natsP50Ms: number;
  natsP99Ms: number;
}

/** Round trips of one migrants message: main thread ⇄ worker thread, and client ⇄ broker ⇄ client. */
export async function migrantRoundTrip(natsServer: string, n: number, count: number, trips: number): Promise<RoundTrip> {
  const bytes = migrantBytes(n, count);
  const echo = new Worker(
    "const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m, [m.buffer]));",
    { eval: true },
  );
  const port: number[] = [];
  for (let i = 0; i < trips; i++) {
    const copy = bytes.slice();
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      echo.once('message', () => resolve());
      echo.postMessage(copy, [copy.buffer]);
    });
    port.push(performance.now() - t0);
  }
  await echo.terminate();

  const broker = await startLocalBroker(natsServer);
  const servers = broker.url.replace('nats://', '');
  const a = await connect({ servers });
  const b = await connect({ servers });
  b.subscribe('bench.echo', {
    callback: (_e, msg) => {
      msg.respond(msg.data);
    },
  });
  await b.flush();
  const bus: number[] = [];
  for (let i = 0; i < trips; i++) {
    const t0 = performance.now();
    await a.request('bench.echo', bytes, { timeout: 5000 });
    bus.push(performance.now() - t0);
  }
  await a.close();
  await b.close();
  await broker.stop();
  return {
    bytes: bytes.length,
    messagePortP50Ms: percentile(port, 0.5),
    messagePortP99Ms: percentile(port, 0.99),
    natsP50Ms: percentile(bus, 0.5),
    natsP99Ms: percentile(bus, 0.99),
  };
}

export interface StudyThroughput {
  hosts: number;
  runs: number;
  seconds: number;
}

/**
 * Starts `count` host processes of the built CLI (1 island each) into `hosts` and resolves
 * when all are ready (the caller stops them, also when one failed to start).
 */
/** What each host process printed on stderr (its log: ready, left, dropped counts). */
const hostLogs = new WeakMap<ChildProcess, string>();

async function startHosts(build: Build, url: string, prefix: string, count: number, hosts: ChildProcess[]): Promise<void> {
  const started = hosts.length;
  for (let i = 0; i < count; i++) {
    hosts.push(
      spawn(
        process.execPath,
        [cliOf(build), 'host', '--nats', url, '--nats-prefix', prefix, '--islands', '1', '--name', `bench${i}`, ...(build.hostArgs ?? [])],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
          env,
        },
      ),
    );
  }
  await Promise.all(
    hosts.slice(started).map(
      (h) =>
        new Promise<void>((resolve, reject) => {
          let err = '';
          h.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
            err += chunk;
            hostLogs.set(h, err);
            if (err.includes(' ready: ')) resolve();
          });
          h.once('exit', () => reject(new Error(`host exited: ${err}`)));
        }),
    ),
  );
}

/** SIGTERM to each host still running; resolves when all have exited and their stderr is read to the end. */
async function stopHosts(hosts: ChildProcess[]): Promise<void> {
  const running = hosts.filter((p) => p.exitCode === null && p.signalCode === null);
  const closed = running.map((p) => new Promise((resolve) => p.once('close', resolve)));
  for (const p of running) p.kill('SIGTERM');
  await Promise.all(closed);
}

/**
 * The wall time of one study (1-island runs of `n` queens, `repeats` seeds × 2 cells) on
 * `hosts` host processes, coordinated in this process by `build`'s library.
 */
export async function studyThroughput(
  natsServer: string,
  hosts: number,
  n: number,
  repeats: number,
  build = THIS_BUILD,
): Promise<StudyThroughput> {
  const library = (file: string) => import(pathToFileURL(path.join(build.dist, 'src', file)).href);
  const { runStudyOnCluster: runStudy } = (await library('cluster/study/study.js')) as { runStudyOnCluster: typeof runStudyOnCluster };
  const { loadExperiment: load } = (await library('experiment/load.js')) as { loadExperiment: typeof loadExperiment };
  const dir = mkdtempSync(path.join(tmpdir(), 'nq-bench-cluster-'));
  const broker = await startLocalBroker(natsServer);
  const processes: ChildProcess[] = [];
  try {
    await startHosts(build, broker.url, 'bench', hosts, processes);
    const file = path.join(dir, 'study.yaml');
    writeFileSync(
      file,
      `base: { overrides: { n: ${n}, islands: 1, limits: { timeLimit: 60 } } }\nsweep:\n  topology.kind: [none, ring]\nrepeats: ${repeats}\nseed: 1\n`,
    );
    const experiment = load(file);
    const t0 = performance.now();
    const outcome = await runStudy(experiment, {
      outDir: path.join(dir, 'out'),
      resume: false,
      events: false,
      nats: broker.url,
      hosts,
      prefix: 'bench',
      clusterKey: CLUSTER_KEY,
    });
    return { hosts, runs: outcome.completed, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await stopHosts(processes);
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SolveTiming {
  seed: number;
  /** Whole command, process start to exit. */
  seconds: number;
  solved: boolean;
  stopLatencyMs: number | null;
  /**
   * An island did no iteration before the run ended: it stops at once, and the others had a
   * free core. 149011b had many (an island that never passed the start gate; fixed in 0.4.0),
   * which flatters its stop latency; the bench also gives the figure over runs without one.
   */
  idleIsland: boolean;
  iterations: number;
  evaluations: number;
  /**
   * CPU ms of every process the run used, while it ran: the solve process (in one process, all
   * of it; spread, the coordinator), and spread also both hosts and the broker. Less dependent
   * on the machine's load than wall time: per evaluation it is what the run costs.
   */
  cpuMs: number | null;
  /** Spread runs: CPU ms of the hosts' main threads (the relays, their NATS clients) during the run, all hosts together. */
  relayCpuMs: number | null;
  /** Spread runs: CPU ms of the host processes (every thread: islands, relay, GC) during the run, all hosts together. */
  hostsCpuMs: number | null;
  /** The record's search seconds (start gate to the last island's end). */
  searchSeconds: number;
  /** Spread runs: bus messages the coordinator dropped (its `N bus messages dropped (...)` line), 0 if none. */
  dropped: number;
}

/** Clock ticks per second of /proc's CPU times. */
const TICKS = (() => {
  try {
    return Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  } catch {
    return 100;
  }
})();

const ticksToMs = (a: string, b: string) => ((Number(a) + Number(b)) * 1000) / TICKS;

/** CPU ms (user + system) of a process's main thread so far; null where there is no /proc. */
function mainThreadCpuMs(pid: number): number | null {
  const f = statFields(`/proc/${pid}/task/${pid}/stat`);
  return f && ticksToMs(f[11], f[12]);
}

/** CPU ms of a whole process (every thread) so far. */
function processCpuMs(pid: number): number | null {
  const f = statFields(`/proc/${pid}/stat`);
  return f && ticksToMs(f[11], f[12]);
}

/** CPU ms of this process's children that have exited and been waited for (a spawnSync child once it returns). */
function exitedChildrenCpuMs(): number | null {
  const f = statFields('/proc/self/stat');
  return f && ticksToMs(f[13], f[14]);
}

/** This process's child nats-server (the broker of the call), found by parent pid and name. */
function brokerPid(): number | null {
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) === process.pid && stat.includes('(nats-server)')) return Number(entry);
    }
  } catch {
    // No /proc: no CPU figures.
  }
  return null;
}

const sum = (values: (number | null)[]) => (values.some((x) => x === null) ? null : (values as number[]).reduce((a, b) => a + b, 0));

/** The count in a `N bus messages dropped (...)` line (coordinators and hosts print it), 0 without one. */
export function droppedIn(log: string): number {
  return [...log.matchAll(/(\d+) bus messages? dropped/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

export interface BothWays {
  build: Build;
  /** Bus messages the build's hosts said they dropped when they left (after every run of the call). */
  hostsDropped: number;
  /** In one process, one entry per round and seed (round by round). */
  local: SolveTiming[];
  /** With the islands on `hosts` host processes of 1 island each, the same order. */
  spread: SolveTiming[];
}

/**
 * `solve --json` with `args` per seed, `rounds` times: in one process, and with its islands on
 * `hosts` host processes of 1 island each (started before timing, so their threads are warm),
 * for each build. Runs alternate: each seed runs in one process then spread, build after build,
 * the builds' order turning from one seed to the next.
 */
export async function solveBothWays(
  natsServer: string,
  args: string[],
  seeds: number[],
  hosts: number,
  builds: Build[] = [THIS_BUILD],
  rounds = 1,
): Promise<BothWays[]> {
  const broker = await startLocalBroker(natsServer);
  const processes: ChildProcess[] = [];
  const hostsOf = new Map<Build, ChildProcess[]>();
  const relayCpu = (build: Build) => sum((hostsOf.get(build) ?? []).map((h) => mainThreadCpuMs(h.pid!)));
  const hostsCpu = (build: Build) => sum((hostsOf.get(build) ?? []).map((h) => processCpuMs(h.pid!)));
  const brokerProcess = brokerPid();
  // The processes a run uses besides its own: the build's hosts and the broker (spread runs only).
  const othersCpu = (build: Build) =>
    sum([...(hostsOf.get(build) ?? []).map((h) => processCpuMs(h.pid!)), brokerProcess && processCpuMs(brokerProcess)]);
  const once = (build: Build, seed: number, extra: string[]): SolveTiming => {
    const spread = extra.length > 0;
    const cpu0 = spread ? relayCpu(build) : null;
    const hosts0 = spread ? hostsCpu(build) : null;
    const all0 = sum([exitedChildrenCpuMs(), spread ? othersCpu(build) : 0]);
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [cliOf(build), 'solve', '--json', '--quiet', '--seed', String(seed), ...args, ...extra], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      env,
    });
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = spread ? relayCpu(build) : null;
    const hosts1 = spread ? hostsCpu(build) : null;
    const all1 = sum([exitedChildrenCpuMs(), spread ? othersCpu(build) : 0]);
    if (r.status !== 0 && r.status !== 1) throw new Error(`solve (${build.label}) failed: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as {
      solved: boolean;
      seconds: number;
      stopLatencyMs: number | null;
      iterations: number;
      evaluations: number;
      islands: { iterations: number }[];
    };
    return {
      seed,
      seconds,
      solved: out.solved,
      stopLatencyMs: out.stopLatencyMs,
      idleIsland: out.islands.some((island) => island.iterations === 0),
      iterations: out.iterations,
      evaluations: out.evaluations,
      cpuMs: all0 === null || all1 === null ? null : all1 - all0,
      relayCpuMs: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
      hostsCpuMs: hosts0 === null || hosts1 === null ? null : hosts1 - hosts0,
      searchSeconds: out.seconds,
      dropped: droppedIn(r.stderr),
    };
  };
  try {
    // Each build's hosts under a prefix of their own: a coordinator sees only its own build's hosts.
    for (const [b, build] of builds.entries()) {
      await startHosts(build, broker.url, `solve${b}`, hosts, processes);
      hostsOf.set(build, processes.slice(-hosts));
    }
    const out = builds.map((build): BothWays => ({ build, hostsDropped: 0, local: [], spread: [] }));
    let turn = 0;
    for (let round = 0; round < rounds; round++) {
      for (const seed of seeds) {
        for (let k = 0; k < builds.length; k++) {
          const b = (turn + k) % builds.length;
          out[b].local.push(once(builds[b], seed, []));
          out[b].spread.push(once(builds[b], seed, ['--nats', broker.url, '--nats-prefix', `solve${b}`, '--hosts', String(hosts)]));
        }
        turn++;
      }
    }
    await stopHosts(processes);
    for (const w of out) w.hostsDropped = hostsOf.get(w.build)!.reduce((sum, h) => sum + droppedIn(hostLogs.get(h) ?? ''), 0);
    return out;
  } finally {
    await stopHosts(processes);
    await broker.stop();
  }
}
