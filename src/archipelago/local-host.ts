import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { kernelModuleForThread, type KernelModule } from '../ga/kernel.ts';
import { decode, encode } from './codec.ts';
import {
  IN_PROCESS_REPORT,
  type ClosableLauncher,
  type LaunchedRun,
  type LaunchPlan,
  type LaunchReport,
  type LauncherCapabilities,
} from './launcher.ts';
import type { ControlMessage, IslandReport, IslandTask } from './messages.ts';
import { SharedMemoryCoordination } from './shared-memory-coordination.ts';
import { createPortMesh, type IslandEnd, type IslandPorts, type ThreadEnvelope } from './transport.ts';
import { threadBlocks, threadsFor } from './threads.ts';
import { islandWorkerFile } from './worker-path.ts';

/** One island to start: its task, its ends of its channels, and the host's end of its control channel. */
export interface IslandPlacement {
  task: IslandTask;
  ports: IslandPorts;
  control: MessagePort;
}

/** A promise and its settling functions (one island's report while its thread runs). */
interface Pending {
  promise: Promise<Uint8Array>;
  resolve(bytes: Uint8Array): void;
  reject(error: Error): void;
  settled: boolean;
}

function pending(): Pending {
  const p = { settled: false } as Pending;
  p.promise = new Promise<Uint8Array>((resolve, reject) => {
    p.resolve = (bytes) => ((p.settled = true), resolve(bytes));
    p.reject = (error) => ((p.settled = true), reject(error));
  });
  return p;
}

/**
 * This process's host: a piscina pool of worker threads that outlives runs. A run's islands
 * go to `threadsFor(islands, threads)` of them in contiguous blocks (`threadBlocks`); each
 * thread steps its islands in turn (island-thread.ts). Each run gets fresh shared memory,
 * fresh MessageChannels and fresh islands; a worker that failed or was terminated is
 * replaced by piscina before the next task needs it. One run at a time: a run needing more
 * workers than the pool has replaces the pool.
 */
export class LocalHost implements ClosableLauncher {
  readonly capabilities: LauncherCapabilities = { checkpoints: true };
  private pool: Piscina | null = null;
  private poolThreads = 0;
  private closing: Promise<void> | null = null;
  /** Compiled once here and handed to every paper-mode island, instead of once per worker. */
  private kernel: KernelModule | undefined;

  /**
   * `islands` > 0 starts the workers a run of that many islands uses now, so they boot while
   * the caller does other work. `threads`: the worker threads a run uses at most (default:
   * the cores; a run's own `threads` overrides it). `env` is the workers' environment
   * (default: this process's); a test gives one with a fault (test-fault.ts) instead of
   * putting it in a task. `islandNice`: how far below this process's main thread the island
   * threads run (thread-priority.ts; default 0, the same).
   */
  constructor(
    islands = 0,
    private readonly options: { env?: Readonly<Record<string, string>>; islandNice?: number; threads?: number } = {},
  ) {
    if (islands > 0) this.reserve(threadsFor(islands, options.threads));
  }

  /** Makes sure at least `threads` workers are up (a smaller pool is replaced by a larger one). */
  reserve(threads: number): void {
    if (this.closing) throw new Error('local host: closed');
    if (this.pool && this.poolThreads >= threads) return;
    void this.pool?.destroy();
    const worker = islandWorkerFile();
    // Every thread of a run must run at once (its islands meet the others at a start gate): one task per worker, none queued.
    this.pool = new Piscina({
      filename: worker.filename,
      ...(worker.execArgv ? { execArgv: worker.execArgv } : {}),
      ...(this.options.env ? { env: this.options.env } : {}),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 1,
    });
    this.poolThreads = threads;
  }

  report(): LaunchReport {
    return IN_PROCESS_REPORT;
  }

  launch(plan: LaunchPlan): LaunchedRun {
    const coordination = SharedMemoryCoordination.create(plan.tasks.length, true);
    const mesh = createPortMesh(plan.tasks);
    const placements = plan.tasks.map((task, island) => ({ task, ports: mesh.islands[island], control: mesh.controls[island] }));
    const started = this.start(placements, coordination, (bytes) => plan.onControl(decode<ControlMessage>(bytes)), plan.threads);
    return {
      coordination,
      reports: started.reports.map((report) => report.then((bytes) => decode<IslandReport>(bytes))),
      terminate: started.terminate,
      release: () => mesh.controls.forEach((control) => control.close()),
      threads: started.threads,
    };
  }

  /**
   * Starts islands on the pool over `coordination`, each with its ready-made ports, on
   * `threadsFor(placements.length, threads ?? the host's)` threads: what `launch` does for a
   * whole run, and what a cluster host does for its part of a run whose other islands are
   * elsewhere (src/cluster/launcher/island-relay.ts). `placements` are in ascending island id.
   * Reports stay encoded; each island's control messages reach `onControl` (encoded) before
   * its report settles.
   */
  start(
    placements: readonly IslandPlacement[],
    coordination: SharedMemoryCoordination,
    onControl: (bytes: Uint8Array) => void,
    threads: number | null = null,
  ): { reports: Promise<Uint8Array>[]; terminate(): void; threads: number } {
    const blocks = threadBlocks(placements.length, threadsFor(placements.length, threads ?? this.options.threads));
    this.reserve(blocks.length);
    if (placements.some(({ task }) => task.run.ga.mode === 'paper')) this.kernel ??= kernelModuleForThread();
    const ends = placements.map(({ control }) => {
      control.on('message', onControl);
      return pending();
    });
    const aborts = blocks.map((block) => this.startThread(block, placements, coordination, onControl, ends));
    return {
      reports: ends.map((end) => end.promise),
      terminate: () => aborts.forEach((abort, t) => blocks[t].some((k) => !ends[k].settled) && abort.abort()),
      threads: blocks.length,
    };
  }

  /**
   * One thread's task: the islands `block` (indices into `placements`). Each island's end
   * settles `ends[k]` as the thread posts it; when the thread ends (or dies), the islands it
   * did not report fail with its error. Returns the task's abort.
   */
  private startThread(
    block: readonly number[],
    placements: readonly IslandPlacement[],
    coordination: SharedMemoryCoordination,
    onControl: (bytes: Uint8Array) => void,
    ends: readonly Pending[],
  ): AbortController {
    // Messages posted just before an island ends may still be queued: read them before its report.
    const drain = (port: MessagePort) => {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) onControl(m.message as Uint8Array);
    };
    const results = new MessageChannel();
    const onEnd = (end: IslandEnd) => {
      const k = block[end.at];
      drain(placements[k].control);
      if ('report' in end) return ends[k].resolve(end.report);
      coordination.depart(placements[k].task.island); // it departed itself; a dead thread's islands could not
      ends[k].reject(new Error(end.error));
    };
    results.port1.on('message', onEnd);
    const finish = (thrown: unknown) => {
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      for (let m = receiveMessageOnPort(results.port1); m; m = receiveMessageOnPort(results.port1)) onEnd(m.message as IslandEnd);
      results.port1.close();
      for (const k of block) {
        if (ends[k].settled) continue;
        drain(placements[k].control);
        coordination.depart(placements[k].task.island); // a dead worker could not say so itself: nobody may wait for it
        ends[k].reject(error);
      }
    };
    const envelope: ThreadEnvelope = {
      islands: block.map((k) => ({ task: encode(placements[k].task), ports: placements[k].ports })),
      shared: coordination.sab,
      results: results.port2,
      ...(this.kernel ? { kernel: this.kernel } : {}),
      ...(this.options.islandNice ? { nice: this.options.islandNice } : {}),
    };
    const ports = block.flatMap((k) => {
      const { control, inPorts, outPorts } = placements[k].ports;
      return [control, ...inPorts, ...outPorts];
    });
    const abort = new AbortController();
    this.pool!.run(envelope, { transferList: [results.port2, ...ports], signal: abort.signal }).then(
      () => finish(new Error('its thread ended without its report')),
      finish,
    );
    return abort;
  }

  close(): Promise<void> {
    return (this.closing ??= this.pool ? this.pool.destroy() : Promise.resolve());
  }
}
