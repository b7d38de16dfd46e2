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
import { runFields, type RunFields, type SolveRecord } from '../run/result-record.ts';
import type { MachineProvenance } from '../provenance.ts';
import type { SweepValue } from './sweep.ts';
import { RowArray } from '../problem/genes.ts';

export const MANIFEST_FORMAT = `${MANIFEST_FORMAT_STEM}1`;

/** Per-island counts of a run, as results record them. */
export type IslandRecord = IslandSummary;

/**
 * The run fields a line of runs.jsonl written by an older version may lack: `startupSeconds`,
 * `ended`, `repeatable`, `trajectory` and `provenance` came in 0.2 (0.2 to 0.4.3 sampled the
 * trajectory on the progress clock), `between` with the observables, `threads` later.
 * (`evaluationsAfterSolution` came in 0.2 too: the schema reads it as null then.)
 */
type LaterRunField = 'startupSeconds' | 'ended' | 'repeatable' | 'trajectory' | 'provenance' | 'between' | 'threads';

/**
 * A line of runs.jsonl: the run fields of the run's record (run/result-record.ts
 * `RUN_FIELDS`, where each is described), its cell's fields, its measures totalled over its
 * islands (island-counters.ts: a record of an older version may lack any but the two counted
 * since the first), its failure and when it finished.
 */
export interface RunRecord extends Omit<RunFields, LaterRunField>, Partial<Pick<RunFields, LaterRunField>>, Partial<Measures> {
  cell: string;
  values: Record<string, SweepValue>;
  migrantsSent: number;
  migrantsAccepted: number;
  islands: IslandRecord[];
  /**
   * Why the run cannot be trusted: an island's worker failed (message of the first failure),
   * even after one retry. Such runs are kept for the record and left out of every statistic.
   */
  error: string | null;
  /** ISO time the run finished. */
  finishedAt: string;
  /** Distributed studies: the name of the host that ran it (absent for a run on this machine). */
  host?: string;
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
    // A study's record is plain data, sent over the bus (msgpack) and read back from JSON: its rows are an array of numbers.
    ...(record.solution instanceof RowArray ? { solution: Array.from(record.solution) } : {}),
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
