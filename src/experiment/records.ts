/**
 * What a study writes, as types: one `RunRecord` per line of runs.jsonl and the
 * `Manifest`. The report reads these and nothing else, so they are the study's data format.
 */
import { MANIFEST_FORMAT_STEM } from '../io/study-records.ts';
import os from 'node:os';
import type { MigrationConfig, RunConfig } from '../config/run-config.ts';
import { toFileShape } from '../config/file-shape.ts';
import type { MigrationPolicies } from '../config/migration-policies.ts';
import { combineMeasures, type Measures } from '../archipelago/island-counters.ts';
import { islandSummary, type IslandSummary } from '../archipelago/events.ts';
import type { TakeoverResult } from '../ga/modes/takeover-coordinator.ts';
import type { BetweenPoint } from '../archipelago/observables/between.ts';
import { runFields, type Ending, type SolveRecord } from '../run/result-record.ts';
import type { MachineProvenance, Provenance } from '../provenance.ts';
import type { SweepValue } from './sweep.ts';
import type { Trajectory } from '../archipelago/trajectory.ts';

export const MANIFEST_FORMAT = `${MANIFEST_FORMAT_STEM}1`;

/** Per-island counts of a run, as results record them. */
export type IslandRecord = IslandSummary;

/**
 * A line of runs.jsonl, with its measures totalled over its islands (island-counters.ts): a
 * record of an older version may lack any but the two counted since the first.
 */
export interface RunRecord extends Partial<Measures> {
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
  /** Over all islands; sync, solved: to the winning iteration (docs/experiments.md, "What is counted"). */
  evaluations: number;
  /** Sync, solved: what the islands evaluated after the winning iteration, running on to the barrier; null otherwise (and in studies before 0.2). */
  evaluationsAfterSolution: number | null;
  /** Why the run ended: solved, or the limit that stopped it (absent in studies before 0.2). */
  ended?: Ending;
  /** Island that found the solution; null when unsolved. */
  foundBy: number | null;
  stopLatencyMs: number | null;
  migrantsSent: number;
  migrantsAccepted: number;
  /** The between-island observables at each iteration every island sampled (docs/events.md, `between`; no matrices). */
  between?: BetweenPoint[];
  /** Takeover mode only: each island's and the archipelago's takeover iteration. */
  takeover?: TakeoverResult;
  islands: IslandRecord[];
  /** 1-based, validated; null when unsolved. */
  solution: number[] | null;
  /**
   * Why the run cannot be trusted: an island's worker failed (message of the first failure),
   * even after one retry. Such runs are kept for the record and left out of every statistic.
   */
  error: string | null;
  /**
   * The run repeats bit for bit from its seed, its trajectory and observables included
   * (sync or lagged migration); false for async, where thread timing decides what arrives
   * when: its trajectory is then exact for the run but not repeated by the seed (absent in
   * studies of versions before 0.2).
   */
  repeatable?: boolean;
  /** ISO time the run finished. */
  finishedAt: string;
  /** Distributed studies: the name of the host that ran it (absent for a run on this machine). */
  host?: string;
  /** The worker threads the run's islands shared on the machine that ran it (placement, not in configHash; absent in older studies). */
  threads?: number;
  /**
   * Best fitness by evaluations, from the islands' course logs (archipelago/trajectory.ts):
   * [evaluations of all islands through an iteration, best fitness] where it improved; the
   * first point counts every initial population, the last is the run's evaluations and
   * fitness. Repeated by the seed where `repeatable` is true; in async mode exact for the run.
   * For the report's fixed-budget curves and the IOHanalyzer export. Absent in studies of
   * versions before 0.2 (0.2 to 0.4.3 sampled it on the progress clock).
   */
  trajectory?: Trajectory;
  /**
   * What made the record: tool, version, commit, machine (of the host that ran it), and
   * `configHash`, the sha256 of the run's resolved config with its seed (`solve` with that
   * config prints the same hash). Absent in studies of versions before 0.2.
   */
  provenance?: Provenance;
}

/**
 * A cell's resolved run config as a manifest holds it: in the file shape, every key set
 * (`config print`'s form: migration policies by name, a hybrid GA's operators as flat keys),
 * so `solve --config` reads it and, with a run's seed, gives that run's configHash. Studies of
 * versions before 0.5 hold the policies as resolved mappings, hence the union.
 */
export type CellConfig = Omit<RunConfig, 'migration'> & {
  migration: Omit<MigrationConfig, keyof MigrationPolicies> & {
    emigrantSelection: string | MigrationPolicies['emigrantSelection'];
    replacement: string | MigrationPolicies['replacement'];
  };
};

/** A resolved config as a manifest holds it. */
export function cellConfig(config: RunConfig): CellConfig {
  return toFileShape(config) as CellConfig;
}

export interface ManifestCell {
  id: string;
  values: Record<string, SweepValue>;
  baseline: string | null;
  /** Its runs repeat bit for bit from their seeds (not so with async migration). */
  repeatable?: boolean;
  /** Resolved run config (file shape, see CellConfig); each run replaces its seed. */
  config: CellConfig;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  name: string;
  description: string | null;
  /**
   * The experiment file (path, exact text, sha256), every file the study read with its sha256
   * (`inputs`: the experiment file, then its base file) and the study hash over them
   * (`studySha256`); the last two are absent in studies of versions before 0.2.
   */
  experiment: { file: string; sha256: string; text: string; inputs?: { file: string; sha256: string }[]; studySha256?: string };
  keys: string[];
  seeds: number[];
  baseline: Record<string, SweepValue> | null;
  cells: ManifestCell[];
  /** Every cell is repeatable; false if any uses async migration (its comparisons then pair initial populations only). */
  repeatable?: boolean;
  /** Event logs were asked for (--events). */
  events: boolean;
  tool: { name: string; version: string };
  /** The build and machine that started the study (each run record has its own, with its config's hash). Absent before 0.2. */
  provenance?: MachineProvenance;
  environment: { node: string; platform: string; arch: string; cpuModel: string; cores: number; totalMemoryBytes: number };
  startedAt: string;
  /** When the study was resumed, one entry per --resume. */
  resumedAt: string[];
  /** A build with uncommitted changes made the study: its build time (manifest.ts `buildStamp`), which resumes must share. */
  buildStamp?: string | null;
  /** A study run in shards (shard.ts): their count; each writes runs.shard-I-of-N.jsonl. Absent for one process. */
  shards?: number;
  /** How the shards' runs were dealt: 'seeds', whole seeds (every cell of a seed on one shard, since 0.9); absent: run by run, the older way (shard.ts). */
  shardDealing?: 'seeds';
  /** Resumes by another build, accepted with --mixed-builds: when, how it differed, and the build. */
  mixedBuilds?: { at: string; differs: string; provenance: MachineProvenance }[];
}

/** The first island failure of a run, as `island 2: message`; null for a clean run. */
export function runError(record: SolveRecord): string | null {
  const failed = record.islands.find((i) => i.error !== undefined || i.stopReason === null);
  if (failed === undefined) return null;
  return `island ${failed.id}: ${failed.error?.message ?? 'worker failed'}`;
}

/**
 * The record of one run of `cell`: the run pipeline's record (`record`, run/result-record.ts)
 * with its cell, its islands' counters and their totals, its failure and when it finished.
 */
export function toRunRecord(cell: { id: string; values: Record<string, SweepValue> }, record: SolveRecord): RunRecord {
  const islands = record.islands.map(islandSummary);
  return {
    cell: cell.id,
    values: cell.values,
    ...runFields(record),
    ...combineMeasures(islands),
    islands,
    error: runError(record),
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
