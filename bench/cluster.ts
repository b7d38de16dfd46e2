/**
 * Across machines, measured on loopback: what a migrant costs over NATS against a
 * MessagePort, one run's islands on two host processes against the same islands in one
 * process, and a study's throughput on two host processes against one. Needs a
 * nats-server (found as the tests find it: NQI_NATS_SERVER, PATH, Debian's paths).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { connect } from '@nats-io/transport-node';
import { encode } from '../src/archipelago/codec.ts';
import { startLocalBroker } from '../src/cluster/local-broker.ts';
import { runStudyOnCluster } from '../src/cluster/study.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { findSystemTool } from '../test/system-tools.ts';
import { NATS_SERVER } from '../test/nats-server.ts';

/** The command users run: the bundle the `nqueens-islands` bin points at. */
const CLI = fileURLToPath(new URL('../bundle/nqueens-islands.cjs', import.meta.url));

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
async function startHosts(url: string, prefix: string, count: number, hosts: ChildProcess[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    hosts.push(
      spawn(process.execPath, [CLI, 'host', '--nats', url, '--nats-prefix', prefix, '--islands', '1', '--name', `bench${i}`], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env,
      }),
    );
  }
  await Promise.all(
    hosts.map(
      (h) =>
        new Promise<void>((resolve, reject) => {
          let err = '';
          h.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
            err += chunk;
            if (err.includes(' ready: ')) resolve();
          });
          h.once('exit', () => reject(new Error(`host exited: ${err}`)));
        }),
    ),
  );
}

/** SIGTERM to each host still running; resolves when all have exited. */
async function stopHosts(hosts: ChildProcess[]): Promise<void> {
  for (const p of hosts) p.kill('SIGTERM');
  await Promise.all(
    hosts.map((p) => new Promise((resolve) => (p.exitCode === null && p.signalCode === null ? p.once('exit', resolve) : resolve(null)))),
  );
}

/** The wall time of one study (1-island runs of `n` queens, `repeats` seeds × 2 cells) on `hosts` host processes. */
export async function studyThroughput(natsServer: string, hosts: number, n: number, repeats: number): Promise<StudyThroughput> {
  const dir = mkdtempSync(path.join(tmpdir(), 'nq-bench-cluster-'));
  const broker = await startLocalBroker(natsServer);
  const processes: ChildProcess[] = [];
  try {
    await startHosts(broker.url, 'bench', hosts, processes);
    const file = path.join(dir, 'study.yaml');
    writeFileSync(
      file,
      `base: { overrides: { n: ${n}, islands: 1, limits: { timeLimit: 60 } } }\nsweep:\n  topology.kind: [none, ring]\nrepeats: ${repeats}\nseed: 1\n`,
    );
    const experiment = loadExperiment(file);
    const t0 = performance.now();
    const outcome = await runStudyOnCluster(experiment, {
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
}

/** `solve --json` with `args` per seed: in one process, and with its islands on `hosts` host processes of 1 island each. */
export async function solveBothWays(
  natsServer: string,
  args: string[],
  seeds: number[],
  hosts: number,
): Promise<{ local: SolveTiming[]; spread: SolveTiming[] }> {
  const broker = await startLocalBroker(natsServer);
  const processes: ChildProcess[] = [];
  const once = (seed: number, extra: string[]): SolveTiming => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [CLI, 'solve', '--json', '--quiet', '--seed', String(seed), ...args, ...extra], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      env,
    });
    const seconds = (performance.now() - t0) / 1000;
    if (r.status !== 0 && r.status !== 1) throw new Error(`solve failed: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { solved: boolean; stopLatencyMs: number | null };
    return { seed, seconds, solved: out.solved, stopLatencyMs: out.stopLatencyMs };
  };
  try {
    await startHosts(broker.url, 'solve', hosts, processes);
    const local: SolveTiming[] = [];
    const spread: SolveTiming[] = [];
    // Alternating, so slow drifts of the machine fall on both alike.
    for (const seed of seeds) {
      local.push(once(seed, []));
      spread.push(once(seed, ['--nats', broker.url, '--nats-prefix', 'solve', '--hosts', String(hosts)]));
    }
    return { local, spread };
  } finally {
    await stopHosts(processes);
    await broker.stop();
  }
}
