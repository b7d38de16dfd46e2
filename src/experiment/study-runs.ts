/**
 * A study folder's records, whoever wrote them: runs.jsonl of a study run by one process, or
 * every shard's runs.shard-I-of-N.jsonl of a study run in shards (shard.ts), with each shard's
 * progress: how many of its slice's runs are recorded, so `report` and `experiment DIR --status`
 * can say which shards are missing or incomplete. Read-only: a half-written last line is left
 * out here, and cut off only by the shard that wrote it when it continues.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/errors.ts';
import { failureReason } from '../io/write-file.ts';
import type { Manifest, ManifestCell, RunRecord } from './records.ts';
import { LOCK_FILE, lockStatus } from './lock.ts';
import { shardLockFile } from './shard-folder.ts';
import { readRuns, runKey, RUNS_FILE } from './store.ts';
import { dealingOf, shardOfFile, shardRunsFile, shardSlice, type Shard } from './shard.ts';

export interface ShardProgress {
  shard: Shard;
  /** Runs in its slice. */
  planned: number;
  /** Of those, recorded in its file. */
  recorded: number;
  /** No records file yet: the shard has not started (or its task never ran). */
  missing: boolean;
  /** Bytes of a half-written last line (the shard was killed mid-write), left out. */
  droppedBytes: number;
}

export interface StudyRuns {
  /** Every record, in file order (shard 1's, then shard 2's, ...). */
  runs: RunRecord[];
  /** Where each record is, as `FILE:LINE` (a message names it so). */
  where: string[];
  droppedBytes: number;
  /** Per shard, for a study run in shards; null for one process. */
  shards: ShardProgress[] | null;
  /** Records files of a cut into another count, which this study does not read. */
  ignored: string[];
}

/** The study's runs in order, from its manifest: what each shard's slice is cut from. */
function manifestPlan(manifest: Manifest): { cell: ManifestCell; seed: number }[] {
  return manifest.seeds.flatMap((seed) => manifest.cells.map((cell) => ({ cell, seed })));
}

/** Reads the records of the study in `dir` (whose manifest is `manifest`). @throws ConfigError for a damaged file. */
export function readStudyRuns(dir: string, manifest: Manifest): StudyRuns {
  if (manifest.shards === undefined) {
    const file = path.join(dir, RUNS_FILE);
    const { runs, lines, droppedBytes } = readRuns(file);
    return { runs, where: lines.map((line) => `${file}:${line}`), droppedBytes, shards: null, ignored: [] };
  }
  const count = manifest.shards;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw new ConfigError(`${dir}: cannot read the folder (${failureReason(error)})`);
  }
  const ignored = names.filter((name) => shardOfFile(name) !== null && shardOfFile(name)!.count !== count).sort();
  const plan = manifestPlan(manifest);
  const runs: RunRecord[] = [];
  const where: string[] = [];
  let droppedBytes = 0;
  const shards: ShardProgress[] = [];
  for (let index = 1; index <= count; index++) {
    const shard = { index, count };
    const file = path.join(dir, shardRunsFile(shard));
    const slice = new Set(shardSlice(plan, shard, dealingOf(manifest)).map((run) => runKey(run.cell.id, run.seed)));
    const missing = !existsSync(file);
    const read = missing ? { runs: [], lines: [], droppedBytes: 0 } : readRuns(file);
    const recorded = new Set(read.runs.map((run) => runKey(run.cell, run.seed)).filter((key) => slice.has(key)));
    // Not push(...): a shard of 100,000s of runs would overflow the stack.
    read.runs.forEach((run, i) => {
      runs.push(run);
      where.push(`${file}:${read.lines[i]}`);
    });
    droppedBytes += read.droppedBytes;
    shards.push({ shard, planned: slice.size, recorded: recorded.size, missing, droppedBytes: read.droppedBytes });
  }
  return { runs, where, droppedBytes, shards, ignored };
}

/** The shards not done, as one line (`shard 2/3 missing; shard 3/3 incomplete: 4 of 7 runs`), or null when all are. */
export function shardGaps(shards: readonly ShardProgress[]): string | null {
  const gaps = shards
    .filter((s) => s.missing || s.recorded < s.planned)
    .map(({ shard, missing, recorded, planned }) =>
      missing
        ? `shard ${shard.index}/${shard.count} missing (no ${shardRunsFile(shard)})`
        : `shard ${shard.index}/${shard.count} incomplete: ${recorded} of ${planned} runs`,
    );
  return gaps.length === 0 ? null : gaps.join('; ');
}

/**
 * `experiment DIR --status`: the study's runs recorded of planned, and for a study run in
 * shards, one line per shard: complete, running (its lock's lease fresh), stopped (stale or
 * no lock: a dead or ended task, to start again) or missing (never started).
 */
export function studyStatus(dir: string, manifest: Manifest): string[] {
  const { runs, shards, ignored } = readStudyRuns(dir, manifest);
  const planned = manifest.seeds.length * manifest.cells.length;
  const recorded = new Set(runs.map((run) => runKey(run.cell, run.seed))).size;
  const how = shards === null ? 'one process' : `${shards.length} shard${shards.length === 1 ? '' : 's'}`;
  const whole = recorded < planned && shards === null ? `, ${lockStatus(dir, LOCK_FILE)}` : '';
  const lines = [`${manifest.name} in ${dir} (${how}): ${recorded} of ${planned} runs recorded${whole}`];
  for (const { shard, planned: slice, recorded: own, missing } of shards ?? []) {
    const state = missing
      ? `missing (no ${shardRunsFile(shard)}: never started)`
      : own < slice
        ? lockStatus(dir, shardLockFile(shard))
        : 'complete';
    lines.push(`shard ${shard.index}/${shard.count}: ${missing ? 0 : own} of ${slice} runs, ${state}`);
  }
  if (ignored.length > 0) lines.push(`not read (another shard count): ${ignored.join(', ')}`);
  return lines;
}
