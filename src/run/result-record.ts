/**
 * The record of one finished run: what `solve --json` prints, `--out` writes and the
 * library's `solve()` resolves to. Built only from a result whose solution the independent
 * validator has accepted.
 */
import { statSync } from 'node:fs';
import { extname } from 'node:path';
import { islandSummary, type IslandSummary } from '../archipelago/events.ts';
import type { BetweenPoint } from '../archipelago/observables/between.ts';
import type { Trajectory } from '../archipelago/trajectory.ts';
import { IN_PROCESS_REPORT, type DroppedCounts, type LaunchReport } from '../archipelago/launcher.ts';
import { isRepeatable } from '../archipelago/modes/registry.ts';
import type { StopReason } from '../archipelago/messages.ts';
import { toFileShape } from '../config/file-shape.ts';
import type { RunConfigInput } from '../config/schema.ts';
import { withoutSecrets } from '../config/nats-url.ts';
import { InputError } from '../io/errors.ts';
import { openOutput } from '../io/write-file.ts';
import { binaryRows, jsonChunks, rowLines } from '../problem/solution-file.ts';
import { validateSolution } from '../problem/validate.ts';
import type { Rows } from '../problem/genes.ts';
import { provenance, type Provenance } from '../provenance.ts';
import { islandSettingsOf, type IslandSettings } from './island-settings.ts';
import type { RunResult, SeededRunConfig } from './run-result.ts';

/**
 * How a run ended: solved, a limit, a signal (CLI), `stop()` (library), an island failure
 * under `onIslandError: fail`, every island failed under `continue`, or the NATS broker lost
 * (islands on other machines).
 */
export const ENDINGS = [
  'solved',
  'taken-over',
  'max-iterations',
  'max-evaluations',
  'time-limit',
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'stopped',
  'island-failed',
  'all-islands-failed',
  'broker-lost',
] as const;
export type Ending = (typeof ENDINGS)[number];

export interface IslandRecord extends IslandSummary, Partial<IslandSettings> {
  /** Islands on other machines: the name of the host that ran it. */
  host?: string;
  stopReason: StopReason | null;
  error?: { message: string; iteration: number };
}

export interface SolveRecord {
  n: number;
  solved: boolean;
  ended: Ending;
  /** 1-based solution (row of the queen in each column), validated; null when not solved. */
  solution: Rows | null;
  /** The paper's fitness of the best chromosome (0 when solved). */
  fitness: number;
  /** The finder's iterations; when unsolved, the most any island ran. */
  iterations: number;
  /** Over all islands; sync, solved: to the winning iteration (docs/experiments.md, "What is counted"). */
  evaluations: number;
  /** Sync, solved: what the islands evaluated after the winning iteration, running on to the barrier; null otherwise. */
  evaluationsAfterSolution: number | null;
  /** Search time: from every island iterating to the end. */
  seconds: number;
  /** Start-up before that (worker boot on a cold host, populations). */
  startupSeconds: number;
  seed: number;
  foundBy: number | null;
  foundAtIteration: number | null;
  stopLatencyMs: number | null;
  /** Takeover mode: each island's and the archipelago's takeover iteration (docs/takeover.md). */
  takeover?: RunResult['takeover'];
  /** When unsolved: the best chromosome found (1-based). */
  best?: Rows | null;
  /** Islands on other machines: the hosts that ran the run, by name. */
  hosts?: string[];
  /** Islands in this process: the worker threads they shared (placement, not in configHash; 0 for a board answered without a run). */
  threads?: number;
  /** Islands on other machines: bus messages the coordinator dropped (malformed, foreign, unauthenticated, failed checks) from joining the hosts to the run's end. */
  bus?: { dropped: DroppedCounts };
  islands: IslandRecord[];
  failures: { island: number; iteration: number; message: string }[];
  /** The between-island observables at each iteration every island sampled (docs/events.md; no matrices). */
  between: BetweenPoint[];
  /**
   * Best fitness by evaluations, from the islands' course logs (archipelago/trajectory.ts):
   * [evaluations of all islands through an iteration, best fitness] where it improved; the
   * first point counts every initial population, the last is the run's evaluations and
   * fitness. Repeated by the seed where `repeatable` is true; in async mode exact for the run.
   * For the report's fixed-budget curves and the IOHanalyzer export. Absent for a board
   * answered without a run.
   */
  trajectory?: Trajectory;
  /**
   * The run repeats bit for bit from `config` (sync or lagged migration: everything here but
   * the timings); false for async migration, where thread timing decides what arrives when.
   */
  repeatable: boolean;
  /** The fully resolved config, seed included: running it again repeats a sync or lagged run. */
  config: RunConfigInput;
  /** Tool, version, commit, the hash of `config`, Node, OS and CPU that made the record. */
  provenance: Provenance;
}

/** Why a run that was neither interrupted nor failed ended. */
export function endingOf(result: RunResult): Ending {
  if (result.solved) return 'solved';
  if (result.takeover && result.takeover.iteration !== null) return 'taken-over';
  // Under onIslandError: continue the run goes on without failed islands, until none is left.
  if (result.islands.length > 0 && result.islands.every((i) => i.error)) return 'all-islands-failed';
  if (result.islands.some((i) => i.stopReason === 'max-iterations')) return 'max-iterations';
  if (result.islands.some((i) => i.stopReason === 'max-evaluations')) return 'max-evaluations';
  return 'time-limit';
}

/** The run's record. @throws Error if the archipelago reported a solution the validator refuses (never printed). */
export function resultRecord(
  result: RunResult,
  config: SeededRunConfig,
  ended: Ending = endingOf(result),
  launch: LaunchReport = IN_PROCESS_REPORT,
): SolveRecord {
  const { placement, dropped } = launch;
  if (result.solved && (!result.solution || !validateSolution(result.solution, config.n).valid)) {
    throw new Error('the archipelago reported a solution that fails validation');
  }
  const shown = recordedConfig(config);
  // Islands that run settings of their own (islandGroups) name them; null when all are alike.
  const settings = islandSettingsOf(config);
  return {
    n: result.n,
    solved: result.solved,
    ended,
    solution: result.solution,
    fitness: result.fitness,
    iterations: result.iterations,
    evaluations: result.evaluations,
    evaluationsAfterSolution: result.evaluationsAfterSolution,
    seconds: result.seconds,
    startupSeconds: result.startupSeconds,
    seed: result.seed,
    foundBy: result.foundBy,
    foundAtIteration: result.foundAtIteration,
    stopLatencyMs: result.stopLatencyMs,
    ...(result.takeover ? { takeover: result.takeover } : {}),
    ...(result.solved ? {} : { best: result.best }),
    // Islands on other machines (`placement`: each island's host name).
    // The placement it ran with: the hosts, or this process's threads (whether or not `threads` was given).
    ...(placement ? { hosts: [...new Set(placement)] } : result.threads !== null ? { threads: result.threads } : {}),
    ...(dropped ? { bus: { dropped: { ...dropped } } } : {}),
    islands: result.islands.map((i) => ({
      ...islandSummary(i),
      ...(settings ? settings[i.id] : {}),
      ...(placement ? { host: placement[i.id] } : {}),
      stopReason: i.stopReason,
      ...(i.error ? { error: i.error } : {}),
    })),
    failures: result.islands.flatMap((i) => (i.error ? [{ island: i.id, iteration: i.error.iteration, message: i.error.message }] : [])),
    between: result.between ?? [],
    ...(result.trajectory ? { trajectory: result.trajectory } : {}),
    repeatable: isRepeatable(config.migration.mode),
    config: shown,
    provenance: provenance(shown),
  };
}

/**
 * What a study's record (experiment/records.ts) takes from this one, unchanged: every field of
 * the run itself. A study's record is this record's run fields plus its cell's (cell, values),
 * its islands' counters and totals, and when it finished; one builder, `resultRecord`, makes both.
 */
export const RUN_FIELDS = [
  'seed',
  'solved',
  'fitness',
  'seconds',
  'startupSeconds',
  'iterations',
  'evaluations',
  'evaluationsAfterSolution',
  'ended',
  'foundBy',
  'stopLatencyMs',
  'between',
  'trajectory',
  'takeover',
  'threads',
  'solution',
  'repeatable',
  'provenance',
] as const satisfies readonly (keyof SolveRecord)[];

export type RunFields = Pick<SolveRecord, (typeof RUN_FIELDS)[number]>;

/** The run fields of a record, in RUN_FIELDS order; an optional field absent stays absent. */
export function runFields(record: SolveRecord): RunFields {
  const fields: Partial<Record<keyof RunFields, unknown>> = {};
  for (const key of RUN_FIELDS) if (record[key] !== undefined) fields[key] = record[key];
  return fields as RunFields;
}

/**
 * The record as the file `file` holds it, in chunks (never one string: docs/large-n.md): the
 * solution, or the best so far, one row per line for .txt, or as .bin (src/problem/solution-file.ts),
 * else the JSON record. Null when a .txt or .bin has no rows to hold (no island reported a
 * chromosome): an empty file would look like a result.
 */
export function recordChunks(file: string, record: SolveRecord): Iterable<string | Uint8Array> | null {
  const ext = extname(file).toLowerCase();
  if (ext !== '.txt' && ext !== '.bin') return withNewline(jsonChunks(record));
  const rows = record.solution ?? record.best;
  if (!rows) return null;
  return ext === '.txt' ? rowLines(rows) : binaryRows(rows);
}

/** The chunks, then a newline (a JSON record is one line). */
export function* withNewline(chunks: Iterable<string>): Generator<string> {
  yield* chunks;
  yield '\n';
}

/** What a result file's extension makes of the record; a file without one (or a device) takes the JSON record. */
const RECORD_FORMATS: Readonly<Record<string, string>> = {
  '': 'JSON',
  '.json': 'JSON',
  '.jsonl': 'JSON',
  '.txt': 'rows',
  '.bin': 'binary rows',
};

/** An existing FIFO or device (whatever its name): it takes the JSON record. */
function isStream(file: string): boolean {
  try {
    return !statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * A result file must be one of the formats the record is written in, by its extension:
 * `--out r.csv` is refused before the run (not filled with JSON).
 * @throws InputError naming `flag` and the formats known.
 */
export function checkRecordFormat(flag: string, file: string): void {
  const ext = extname(file).toLowerCase();
  if (RECORD_FORMATS[ext] !== undefined || isStream(file)) return;
  throw new InputError(
    `${flag} ${file}: no result format for ${ext}; expected .json (the JSON record, also .jsonl, no extension or a FIFO or device) or .txt (the solution, one row per line) or .bin (the solution as 32-bit rows, docs/large-n.md)`,
  );
}

/** Saves the record (the `output.file` key, `--out`), whole or not at all; returns false when there was nothing to save (see recordChunks). */
export function writeRecord(file: string, record: SolveRecord): boolean {
  const chunks = recordChunks(file, record);
  if (chunks === null) return false;
  const output = openOutput(file);
  try {
    for (const chunk of chunks) output.write(chunk);
  } catch (error) {
    output.abort();
    throw error;
  }
  output.commit();
  return true;
}

/** The config as a record or trace shows it (and its provenance hashes): the file shape, a `cluster.nats` password or token replaced by ***. */
export function recordedConfig(config: SeededRunConfig): RunConfigInput {
  return withoutSecrets(toFileShape(config));
}
