import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { kernelModuleForThread, type KernelModule } from '../ga/kernel.ts';
import { decode, encode } from './codec.ts';
import type { Host, LaunchedRun, LaunchPlan } from './launcher.ts';
import type { ControlMessage, IslandReport, IslandTask } from './messages.ts';
import { SharedMemoryCoordination } from './shared-memory-coordination.ts';
import { createPortMesh, type IslandEnvelope } from './transport.ts';
import { islandWorkerFile } from './worker-path.ts';

/**
 * This process's host: a piscina pool of island workers that outlives runs. Each run gets
 * fresh shared memory, fresh MessageChannels and a fresh island in every worker; a worker
 * that failed or was terminated is replaced by piscina before the next task needs it.
 */
export class LocalHost implements Host {
  private pool: Piscina | null = null;
  private threads = 0;
  private closing: Promise<void> | null = null;
  /** Compiled once here and handed to every paper-mode island, instead of once per worker. */
  private kernel: KernelModule | undefined;

  /** `threads` > 0 starts that many workers now, so they boot while the caller does other work. */
  constructor(threads = 0) {
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
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 1,
    });
    this.threads = threads;
  }

  launch(plan: LaunchPlan): LaunchedRun {
    const islands = plan.tasks.length;
    this.reserve(islands);
    const pool = this.pool!;
    if (plan.tasks.some((t) => t.evolver.mode === 'paper')) this.kernel ??= kernelModuleForThread();
    const coordination = SharedMemoryCoordination.create(islands);
    const mesh = createPortMesh(plan.tasks);
    const onBytes = (bytes: Uint8Array) => plan.onControl(decode<ControlMessage>(bytes));
    // Messages posted just before a task ends may still be queued: read them before its report.
    const drain = (port: MessagePort) => {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) onBytes(m.message as Uint8Array);
    };
    const aborts = plan.tasks.map(() => new AbortController());
    const settled = plan.tasks.map(() => false);
    const reports = plan.tasks.map((task: IslandTask, island) => {
      const ports = mesh.islands[island];
      const control = mesh.controls[island];
      control.on('message', onBytes);
      const envelope: IslandEnvelope = { task: encode(task), shared: coordination.sab, ports, ...(this.kernel ? { kernel: this.kernel } : {}) };
      return pool.run(envelope, { transferList: [ports.control, ...ports.inPorts, ...ports.outPorts], signal: aborts[island].signal }).then(
        (bytes: Uint8Array) => {
          settled[island] = true;
          drain(control);
          return decode<IslandReport>(bytes);
        },
        (error: unknown) => {
          settled[island] = true;
          drain(control);
          coordination.depart(island); // a dead worker could not say so itself: nobody may wait for it
          throw error;
        },
      );
    });
    return {
      coordination,
      reports,
      terminate: () => aborts.forEach((abort, island) => settled[island] || abort.abort()),
      release: () => mesh.controls.forEach((control) => control.close()),
    };
  }

  close(): Promise<void> {
    return (this.closing ??= this.pool ? this.pool.destroy() : Promise.resolve());
  }
}
