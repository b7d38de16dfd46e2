import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { kernelModuleForThread, type KernelModule } from '../ga/kernel.ts';
import { decode, encode } from './codec.ts';
import {
  IN_PROCESS_REPORT,
  type Host,
  type LaunchedRun,
  type LaunchPlan,
  type LaunchReport,
  type LauncherCapabilities,
} from './launcher.ts';
import type { ControlMessage, IslandReport, IslandTask } from './messages.ts';
import { SharedMemoryCoordination } from './shared-memory-coordination.ts';
import { createPortMesh, type IslandEnvelope, type IslandPorts } from './transport.ts';
import { islandWorkerFile } from './worker-path.ts';

/** One island to start: its task, its ends of its channels, and the host's end of its control channel. */
export interface IslandPlacement {
  task: IslandTask;
  ports: IslandPorts;
  control: MessagePort;
}

/**
 * This process's host: a piscina pool of island workers that outlives runs. Each run gets
 * fresh shared memory, fresh MessageChannels and a fresh island in every worker; a worker
 * that failed or was terminated is replaced by piscina before the next task needs it.
 * One run at a time: a run needing more workers than the pool has replaces the pool.
 */
export class LocalHost implements Host {
  readonly capabilities: LauncherCapabilities = { checkpoints: true };
  private pool: Piscina | null = null;
  private threads = 0;
  private closing: Promise<void> | null = null;
  /** Compiled once here and handed to every paper-mode island, instead of once per worker. */
  private kernel: KernelModule | undefined;

  /**
   * `threads` > 0 starts that many workers now, so they boot while the caller does other work.
   * `env` is the workers' environment (default: this process's); a test gives one with a
   * fault (test-fault.ts) instead of putting it in a task. `islandNice`: how far below this
   * process's main thread the island threads run (thread-priority.ts; default 0, the same).
   */
  constructor(
    threads = 0,
    private readonly options: { env?: Readonly<Record<string, string>>; islandNice?: number } = {},
  ) {
    if (threads > 0) this.reserve(threads);
  }

  /** Makes sure at least `threads` workers are up (a smaller pool is replaced by a larger one). */
  reserve(threads: number): void {
    if (this.closing) throw new Error('local host: closed');
    if (this.pool && this.threads >= threads) return;
    void this.pool?.destroy();
    const worker = islandWorkerFile();
    // Every island of a run must run at once (they meet at a start gate): one task per worker, none queued.
    this.pool = new Piscina({
      filename: worker.filename,
      ...(worker.execArgv ? { execArgv: worker.execArgv } : {}),
      ...(this.options.env ? { env: this.options.env } : {}),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 1,
    });
    this.threads = threads;
  }

  report(): LaunchReport {
    return IN_PROCESS_REPORT;
  }

  launch(plan: LaunchPlan): LaunchedRun {
    const coordination = SharedMemoryCoordination.create(plan.tasks.length);
    const mesh = createPortMesh(plan.tasks);
    const placements = plan.tasks.map((task, island) => ({ task, ports: mesh.islands[island], control: mesh.controls[island] }));
    const started = this.start(placements, coordination, (bytes) => plan.onControl(decode<ControlMessage>(bytes)));
    return {
      coordination,
      reports: started.reports.map((report) => report.then((bytes) => decode<IslandReport>(bytes))),
      terminate: started.terminate,
      release: () => mesh.controls.forEach((control) => control.close()),
    };
  }

  /**
   * Starts islands on the pool over `coordination`, each with its ready-made ports: what
   * `launch` does for a whole run, and what a cluster host does for its part of a run whose
   * other islands are elsewhere (src/cluster/island-relay.ts). Reports stay encoded; each
   * island's control messages reach `onControl` (encoded) before its report settles.
   */
  start(
    placements: readonly IslandPlacement[],
    coordination: SharedMemoryCoordination,
    onControl: (bytes: Uint8Array) => void,
  ): { reports: Promise<Uint8Array>[]; terminate(): void } {
    this.reserve(placements.length);
    const pool = this.pool!;
    if (placements.some(({ task }) => task.run.ga.mode === 'paper')) this.kernel ??= kernelModuleForThread();
    // Messages posted just before a task ends may still be queued: read them before its report.
    const drain = (port: MessagePort) => {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) onControl(m.message as Uint8Array);
    };
    const aborts = placements.map(() => new AbortController());
    const settled = placements.map(() => false);
    const reports = placements.map(({ task, ports, control }, k) => {
      control.on('message', onControl);
      const envelope: IslandEnvelope = {
        task: encode(task),
        shared: coordination.sab,
        ports,
        ...(this.kernel ? { kernel: this.kernel } : {}),
        ...(this.options.islandNice ? { nice: this.options.islandNice } : {}),
      };
      return pool.run(envelope, { transferList: [ports.control, ...ports.inPorts, ...ports.outPorts], signal: aborts[k].signal }).then(
        (bytes: Uint8Array) => {
          settled[k] = true;
          drain(control);
          return bytes;
        },
        (error: unknown) => {
          settled[k] = true;
          drain(control);
          coordination.depart(task.island); // a dead worker could not say so itself: nobody may wait for it
          throw error;
        },
      );
    });
    return { reports, terminate: () => aborts.forEach((abort, k) => settled[k] || abort.abort()) };
  }

  close(): Promise<void> {
    return (this.closing ??= this.pool ? this.pool.destroy() : Promise.resolve());
  }
}
