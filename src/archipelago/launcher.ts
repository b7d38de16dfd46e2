/**
 * The launcher: puts a run's islands on a host and gives each its ports (pagmo's island
 * execution backend). The archipelago builds the islands' tasks and reads what comes back;
 * where the islands run (this process's worker pool, hosts across a message bus) is the
 * launcher's business alone.
 */
import type { Coordination } from './coordination.ts';
import type { ControlMessage, IslandReport, IslandTask } from './messages.ts';

/** One run to launch: a task per island, in island order; each task's `sources`/`targets` are its edges. */
export interface LaunchPlan {
  tasks: readonly IslandTask[];
  /** Every message an island sends the coordinator, decoded; an island's messages arrive in order, all before its report settles. */
  onControl(message: ControlMessage): void;
  /**
   * Worker threads to run the islands on (a placement setting, no part of the run: sync and
   * lagged records are the same for any count). A local host's default is its own; hosts of
   * a cluster use theirs.
   */
  threads?: number | null;
}

/** A launched run, as the archipelago drives it. */
export interface LaunchedRun {
  /** The run's own coordination (fresh for every run). */
  readonly coordination: Coordination;
  /** One per island: its final report, or a rejection if it failed (worker threw or exited, host lost, terminated). */
  readonly reports: readonly Promise<IslandReport>[];
  /**
   * Ends the islands that have not stopped by themselves (after the stop's grace period)
   * and frees their places on the host; their reports reject. Idempotent.
   */
  terminate(): void;
  /** Once every report has settled: frees the run's channels and memory. The host stays up. */
  release(): void;
  /** The worker threads of this process the run's islands share; null when they run on other hosts. */
  readonly threads: number | null;
}

/**
 * What a launcher supports, so callers ask instead of downcasting. A launcher without
 * checkpoints says why (one clause, for the refusal the run pipeline prints).
 */
export type LauncherCapabilities = { readonly checkpoints: true } | { readonly checkpoints: false; readonly why: string };

/** Bus messages a launcher's coordinator dropped, by cause, named as the `... dropped (...)` line names them (src/cluster/bus/codec.ts `DropCounter`). */
export interface DroppedCounts {
  /** Did not decode, fit its schema, or broke its handler. */
  malformed: number;
  /** From another tool version or bus format. */
  foreign: number;
  /** No valid signature under a cluster key, a replay, or from a party not of its run. */
  unauthenticated: number;
  /** A claimed result (solution, best, report) that failed the independent checks. */
  invalid: number;
}

/** What only a launcher knows of the run it launched last; read once that run has ended. */
export interface LaunchReport {
  /** Launchers that put islands on named hosts: each island's host name (the record's `hosts`); else null. */
  placement: readonly string[] | null;
  /** Launchers that reach their hosts over a message broker: true once it was lost (the run ends `broker-lost`). */
  brokerLost: boolean;
  /** Launchers with a bus: the messages their coordinator dropped since it joined (the record's `bus.dropped`); else null. */
  dropped: DroppedCounts | null;
}

/** Islands in this process: no hosts to name, no broker to lose, no bus. */
export const IN_PROCESS_REPORT: LaunchReport = Object.freeze({ placement: null, brokerLost: false, dropped: null });

export interface Launcher {
  readonly capabilities: LauncherCapabilities;
  /**
   * Starts `plan.tasks.length` islands together. Before any report settles, a failed island
   * is marked departed in the run's coordination, so no barrier waits for it.
   */
  launch(plan: LaunchPlan): LaunchedRun;
  /** What only this launcher knows of its last run (placement, a lost broker, dropped messages). */
  report(): LaunchReport;
}

/**
 * A launcher that owns resources (threads, connections) across runs; `close` gives them back.
 * (Not a host: that word names a machine that offers islands, `ClusterHost`, or this one's threads, `LocalHost`.)
 */
export interface ClosableLauncher extends Launcher {
  close(): Promise<void>;
}

/** Islands on hosts elsewhere (`joinCluster` gives one): how many they offer, and the launcher that places them. */
export interface IslandHosts {
  /** Islands the hosts offer together (the run's default island count). */
  readonly islands: number;
  readonly launcher: Launcher;
}
