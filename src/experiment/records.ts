/**
 * What a study writes, as types: one `RunRecord` per line of runs.jsonl and the
 * `Manifest`. The report reads these and nothing else, so they are the study's data format.
 */
import os from 'node:os';
import type { RunConfig } from '../config/run-config.ts';
import { islandSummary, type IslandSummary } from '../archipelago/events.ts';
import { isRepeatable, type MigrationMode } from '../archipelago/migration-modes.ts';
import type { RunResult } from '../run/start-run.ts';
import type { SweepValue } from './sweep.ts';

export const MANIFEST_FORMAT = 'nqueens-islands/experiment-results@1';

/** Per-island counts of a run, as results record them. */
export type IslandRecord = IslandSummary;

export interface RunRecord {
  cell: string;
  values: Record<string, SweepValue>;
  seed: number;
  solved: boolean;
  /** Best fitness reached (0 when solved). */
  fitness: number;
  /** Search time: wall seconds from the moment every island iterates to the end of the run (the solution, or the limit). */
  seconds: number;
  /** Start-up before it: wall seconds from the launch to every island iterating (absent in studies of versions before 0.2). */
  startupSeconds?: number;
  /** The finder's iterations when solved; the most any island ran otherwise. */
  iterations: number;
  /** Over all islands. */
  evaluations: number;
  /** Island that found the solution; null when unsolved. */
  foundBy: number | null;
  stopLatencyMs: number | null;
  migrantsSent: number;
  migrantsAccepted: number;
  islands: IslandRecord[];
  /** 1-based, validated; null when unsolved. */
  solution: number[] | null;
  /**
   * Why the run cannot be trusted: an island's worker failed (message of the first failure),
   * even after one retry. Such runs are kept for the record and left out of every statistic.
   */
  error: string | null;
  /**
   * The run repeats bit for bit from its seed (sync or lagged migration); false for async,
   * where thread timing decides what arrives when (absent in studies of versions before 0.2).
   */
  repeatable?: boolean;
  /** ISO time the run finished. */
  finishedAt: string;
  /** Distributed studies: the name of the host that ran it (absent for a run on this machine). */
  host?: string;
}

export interface ManifestCell {
  id: string;
  values: Record<string, SweepValue>;
  baseline: string | null;
  /** Its runs repeat bit for bit from their seeds (not so with async migration). */
  repeatable?: boolean;
  /** Resolved run config; each run replaces its seed. */
  config: RunConfig;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  name: string;
  description: string | null;
  experiment: { file: string; sha256: string; text: string };
  keys: string[];
  seeds: number[];
  baseline: Record<string, SweepValue> | null;
  cells: ManifestCell[];
  /** Every cell is repeatable; false if any uses async migration (its comparisons then pair initial populations only). */
  repeatable?: boolean;
  /** Event logs were asked for (--events). */
  events: boolean;
  tool: { name: string; version: string };
  environment: { node: string; platform: string; arch: string; cpuModel: string; cores: number; totalMemoryBytes: number };
  startedAt: string;
  /** When the study was resumed, one entry per --resume. */
  resumedAt: string[];
}

/** The first island failure of a run, as `island 2: message`; null for a clean run. */
export function runError(result: RunResult): string | null {
  const failed = result.islands.find((i) => i.error !== undefined || i.stopReason === null);
  if (failed === undefined) return null;
  return `island ${failed.id}: ${failed.error?.message ?? 'worker failed'}`;
}

export function toRunRecord(cell: { id: string; values: Record<string, SweepValue> }, result: RunResult, mode: MigrationMode): RunRecord {
  const islands = result.islands.map(islandSummary);
  return {
    cell: cell.id,
    values: cell.values,
    seed: result.seed,
    solved: result.solved,
    fitness: result.fitness,
    seconds: result.seconds,
    startupSeconds: result.startupSeconds,
    iterations: result.iterations,
    evaluations: result.evaluations,
    foundBy: result.foundBy,
    stopLatencyMs: result.stopLatencyMs,
    migrantsSent: islands.reduce((sum, i) => sum + i.migrantsSent, 0),
    migrantsAccepted: islands.reduce((sum, i) => sum + i.migrantsAccepted, 0),
    islands,
    solution: result.solution,
    error: runError(result),
    repeatable: isRepeatable(mode),
    finishedAt: new Date().toISOString(),
  };
}

export function environment(): Manifest['environment'] {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: os.platform(),
    arch: os.arch(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    totalMemoryBytes: os.totalmem(),
  };
}

