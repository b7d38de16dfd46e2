import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { Observable, Subject } from 'rxjs';
import { toOneBased, type Genes } from '../problem/genes.ts';
import { validateSolution } from '../problem/validate.ts';
import { decode, encode } from './codec.ts';
import { IslandFailedError } from './errors.ts';
import type { ArchipelagoEvent, ArchipelagoResult, IslandResult } from './events.ts';
import { wallClock } from './island-runner.ts';
import { MIGRATION_RECORD, type ControlMessage, type IslandReport, type IslandSnapshot, type IslandTask } from './messages.ts';
import { checkOptions, DEFAULT_PROGRESS_INTERVAL_MS, STOP_GRACE_MS, type ArchipelagoOptions } from './options.ts';
import { createSharedState, RUNNING, SharedState } from './shared-state.ts';
import { buildTopology } from './topology.ts';
import { createPortMesh, type IslandEnvelope } from './transport.ts';
import { islandWorkerFile } from './worker-path.ts';

export type { ArchipelagoOptions, MigrationOptions } from './options.ts';
export type * from './events.ts';

export interface Archipelago {
  /** Every event of the run, ending with `done`. Subscribe right after starting (it is not replayed). */
  events$: Observable<ArchipelagoEvent>;
  /** Resolves when every island has stopped; rejects with IslandFailedError under `onIslandError: 'fail'`. */
  result: Promise<ArchipelagoResult>;
  /** Asks every island to stop (idempotent). */
  stop(): void;
}

interface Failure {
  message: string;
  iteration: number;
}

/** The run's solution: who found it, after how many iterations, the validated 1-based tuple, when (wall ms). */
interface Winner {
  island: number;
  iteration: number;
  solution: number[];
  foundAt: number;
}

/**
 * Starts the archipelago: one long-running piscina task per island (pool sized to the
 * islands, so none waits in the queue), one MessageChannel per directed topology edge, the
 * shared stop, and one merged event stream. Throws at once on bad options.
 */
export function startArchipelago(options: ArchipelagoOptions): Archipelago {
  checkOptions(options);
  const { islands, seed } = options;
  const n = options.evolver.params.n;
  const edges = buildTopology(options.topology, islands, seed);
  const sab = createSharedState(islands);
  const shared = new SharedState(sab, islands);
  const mesh = createPortMesh(islands, edges);
  const events = new Subject<ArchipelagoEvent>();
  const worker = islandWorkerFile();
  const pool = new Piscina({
    filename: worker.filename,
    ...(worker.execArgv ? { execArgv: worker.execArgv } : {}),
    minThreads: islands,
    maxThreads: islands,
    idleTimeout: Infinity,
    concurrentTasksPerWorker: 1,
  });
  const startedAt = wallClock();
  const seconds = () => (wallClock() - startedAt) / 1000;
  const sync = options.migration.mode === 'sync';

  const reports: (IslandReport | null)[] = new Array(islands).fill(null);
  const failures: (Failure | null)[] = new Array(islands).fill(null);
  let fatal: IslandFailedError | null = null;
  /** Async: the claimer's validated solution, as soon as its message arrives. */
  let claimed: Winner | null = null;
  let invalidClaim = false;
  let haltedAt: number | null = null;
  let terminating = false;
  let finished = false;
  let graceTimer: NodeJS.Timeout | undefined;
  let destroying: Promise<void> | null = null;
  const destroyPool = () => (destroying ??= pool.destroy());

  const emit = (event: ArchipelagoEvent) => events.next(event);

  // Islands stop by themselves within milliseconds; terminate workers only if one does not.
  const startGrace = () => {
    if (graceTimer || finished) return;
    graceTimer = setTimeout(() => {
      terminating = true;
      void destroyPool();
    }, STOP_GRACE_MS);
  };

  const halt = () => {
    if (finished) return;
    if (shared.halt()) haltedAt = wallClock();
    startGrace();
  };

  const timeLimit = options.timeLimitMs !== undefined ? setTimeout(halt, options.timeLimitMs) : undefined;

  let startedIslands = 0;
  // Checkpoints: one request at a time; a request is answered by every island (sync: at the
  // same epoch barrier) and becomes one `checkpoint` event. After an island has failed, no
  // request could complete, so none is made.
  let request = { generation: 0, snapshots: [] as (IslandSnapshot | null)[], answered: islands };
  const requestCheckpoint = () => {
    if (startedIslands < islands || request.answered < islands || failures.some((f) => f !== null) || shared.stopState() !== RUNNING) return;
    request = { generation: shared.requestCheckpoint(), snapshots: new Array(islands).fill(null), answered: 0 };
  };
  const checkpointTimer = options.checkpointEveryMs !== undefined ? setInterval(requestCheckpoint, options.checkpointEveryMs) : undefined;

  const emitMigrations = (records: Int32Array) => {
    for (let at = 0; at + MIGRATION_RECORD <= records.length; at += MIGRATION_RECORD) {
      emit({
        type: 'migration',
        from: records[at],
        to: records[at + 1],
        epoch: sync ? records[at + 2] : null,
        iteration: records[at + 3],
        sent: records[at + 4],
        accepted: records[at + 5],
      });
    }
  };

  const validated = (island: number, genes: Genes): number[] | null => {
    const tuple = toOneBased(genes);
    const check = validateSolution(tuple, n);
    if (check.valid) return tuple;
    emit({ type: 'island-error', island, iteration: shared.iterations(island), message: `reported an invalid solution: ${check.reason}`, fatal: false });
    return null;
  };

  const onControl = (bytes: Uint8Array) => {
    const message = decode<ControlMessage>(bytes);
    if (message.type === 'snapshot') {
      const { generation, snapshot } = message;
      if (generation !== request.generation || request.snapshots[snapshot.island]) return;
      request.snapshots[snapshot.island] = snapshot;
      if (++request.answered === islands) {
        const snapshots = request.snapshots as IslandSnapshot[];
        emit({ type: 'checkpoint', mode: options.migration.mode, epoch: sync ? snapshots[0].epoch : null, islands: snapshots, seconds: seconds() });
      }
    } else if (message.type === 'started') {
      if (++startedIslands === islands) emit({ type: 'started', islands, seconds: seconds() });
    } else if (message.type === 'progress') {
      emitMigrations(message.migrations);
      const { type: _t, migrations: _m, time, ...stats } = message;
      emit({ type: 'progress', ...stats, seconds: (time - startedAt) / 1000 });
    } else if (message.type === 'solution' && !claimed && !invalidClaim) {
      const solution = validated(message.island, message.genes);
      if (!solution) {
        invalidClaim = true;
        return;
      }
      claimed = { island: message.island, iteration: message.iteration, solution, foundAt: message.foundAt };
      emit({ type: 'solution', island: message.island, iteration: message.iteration, solution, seconds: (message.foundAt - startedAt) / 1000 });
      startGrace();
    }
  };

  for (const control of mesh.controls) control.on('message', onControl);
  // Messages posted just before a task ends may still be queued: read them before its report.
  const drainControl = (port: MessagePort) => {
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) onControl(m.message as Uint8Array);
  };

  const tasks = mesh.islands.map((wiring, island) => {
    const task: IslandTask = {
      type: 'task',
      island,
      islands,
      seed,
      evolver: options.evolver,
      migration: options.migration,
      maxIterations: options.maxIterations ?? Infinity,
      progressIntervalMs: options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
      sources: wiring.sources,
      targets: wiring.targets,
      testFault: options.testFault ?? null,
      snapshot: options.resume?.[island] ?? null,
    };
    const envelope: IslandEnvelope = { task: encode(task), shared: sab, ports: wiring.ports };
    const { control, inPorts, outPorts } = wiring.ports;
    return pool.run(envelope, { transferList: [control, ...inPorts, ...outPorts] }).then(
      (bytes: Uint8Array) => {
        drainControl(mesh.controls[island]);
        const report = decode<IslandReport>(bytes);
        reports[island] = report;
        emitMigrations(report.migrations);
        if (report.stopReason === 'solved' && !sync) startGrace(); // the others are stopping now
      },
      (error: unknown) => {
        drainControl(mesh.controls[island]);
        shared.depart(island); // a dead worker could not say so itself: nobody may wait for it
        const iteration = shared.iterations(island);
        const reason = terminating
          ? `did not stop within ${STOP_GRACE_MS} ms of the stop and was terminated`
          : error instanceof Error ? error.message : String(error);
        failures[island] = { message: reason, iteration };
        const isFatal = options.onIslandError === 'fail' && !terminating;
        emit({ type: 'island-error', island, iteration, message: reason, fatal: isFatal });
        if (isFatal && !fatal) {
          fatal = new IslandFailedError(island, iteration, reason);
          halt();
        }
      },
    );
  });

  // allSettled: even if handling one island's end throws (a bug), the timers, ports and
  // pool are still cleaned up before the error is passed on, so the process cannot hang.
  const result = Promise.allSettled(tasks).then(async (outcomes) => {
    finished = true;
    if (timeLimit) clearTimeout(timeLimit);
    if (checkpointTimer) clearInterval(checkpointTimer);
    if (graceTimer) clearTimeout(graceTimer);
    for (const control of mesh.controls) control.close();
    await destroyPool();
    const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (broken) {
      events.complete();
      throw broken.reason;
    }
    const res = buildResult();
    if (res.solved && sync) {
      emit({ type: 'solution', island: res.foundBy!, iteration: res.foundAtIteration!, solution: res.solution!, seconds: (reports[res.foundBy!]!.foundAt - startedAt) / 1000 });
    }
    emit({ type: 'done', result: res });
    events.complete();
    if (fatal) {
      fatal.result = res;
      throw fatal;
    }
    return res;
  });
  result.catch(() => {}); // rejections belong to whoever awaits `result`; never an unhandled one

  function buildResult(): ArchipelagoResult {
    let winner: Winner | null = null;
    if (sync) {
      // The finder with the smallest (iteration found, island id): fixed by the seed alone.
      let best: IslandReport | null = null;
      for (const r of reports) {
        if (r?.solution && (!best || r.foundAtIteration < best.foundAtIteration)) best = r;
      }
      const solution = best ? validated(best.island, best.solution!) : null;
      if (best && solution) winner = { island: best.island, iteration: best.foundAtIteration, solution, foundAt: best.foundAt };
    } else {
      winner = claimed;
    }
    const islandResults: IslandResult[] = [];
    let evaluations = 0;
    let bestReport: IslandReport | null = null;
    let latestStop = -Infinity;
    for (let i = 0; i < islands; i++) {
      const r = reports[i];
      const failure = failures[i];
      if (r) {
        evaluations += r.evaluations;
        if (!bestReport || r.bestFitness < bestReport.bestFitness) bestReport = r;
        if (r.stopReason !== 'max-iterations' && r.stoppedAt > latestStop) latestStop = r.stoppedAt;
      }
      islandResults.push({
        id: i,
        iterations: r ? r.iterations : shared.iterations(i),
        evaluations: r ? r.evaluations : 0,
        bestFitness: r ? r.bestFitness : -1,
        migrantsSent: r ? r.migrantsSent : 0,
        migrantsAccepted: r ? r.migrantsAccepted : 0,
        seconds: r ? (r.stoppedAt - r.startedAt) / 1000 : 0,
        stopReason: r ? r.stopReason : null,
        ...(failure ? { error: failure } : {}),
      });
    }
    const stopClaimedAt = winner ? winner.foundAt : haltedAt;
    const stopLatencyMs = stopClaimedAt !== null && latestStop > -Infinity ? Math.max(0, latestStop - stopClaimedAt) : null;
    const solved = winner !== null;
    return {
      solved,
      solution: winner ? winner.solution : null,
      fitness: solved ? 0 : bestReport ? bestReport.bestFitness : -1,
      best: winner ? winner.solution : bestReport ? toOneBased(bestReport.best) : null,
      foundBy: winner ? winner.island : null,
      foundAtIteration: winner ? winner.iteration : null,
      foundAtSeconds: winner ? (winner.foundAt - startedAt) / 1000 : null,
      seconds: seconds(),
      stopLatencyMs,
      evaluations,
      islands: islandResults,
      edges: edges.length,
    };
  }

  return { events$: events.asObservable(), result, stop: halt };
}
