/**
 * Reads a study folder for reporting: the manifest, the finished runs and, on demand, a
 * run's event log. Read-only: a half-written last line is ignored here, not repaired.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import { ConfigError } from '../../config/errors.ts';
import type { Manifest, RunRecord } from '../../experiment/records.ts';
import { eventLogPath } from '../../experiment/runner.ts';
import { legacyCellFileName } from '../../experiment/sweep.ts';
import { checkRecords } from './record-check.ts';
import { parseEventLines } from './run-data.ts';
import { MANIFEST_FILE, readManifest, readStudyFile, runKey } from '../../experiment/store.ts';
import { readStudyRuns, type ShardProgress } from '../../experiment/study-runs.ts';

export interface StudyData {
  dir: string;
  manifest: Manifest;
  /** Finished runs, one per (cell, seed): a line written twice counts once (different repeats are refused: record-check.ts). */
  runs: RunRecord[];
  /** Runs whose islands failed (`error` set): listed, never counted in a statistic. */
  failed: RunRecord[];
  /** Bytes of a half-written last line of runs.jsonl (a study killed mid-write), left out. */
  droppedBytes: number;
  /** A study run in shards: each shard's progress (src/experiment/study-runs.ts); null for one process. */
  shards: ShardProgress[] | null;
}

export function readStudy(dir: string): StudyData {
  if (!existsSync(dir)) throw new ConfigError(`${dir}: no such folder; expected the --out folder of an experiment`);
  if (!statSync(dir).isDirectory()) throw new ConfigError(`${dir}: is a file, not a folder; expected the --out folder of an experiment`);
  const manifestFile = path.join(dir, MANIFEST_FILE);
  if (!existsSync(manifestFile)) throw new ConfigError(`${dir}: no ${MANIFEST_FILE}; expected the --out folder of an experiment`);
  const manifest = readManifest(manifestFile);
  const seen = new Set<string>();
  const { runs, where, droppedBytes, shards } = readStudyRuns(dir, manifest);
  checkRecords(manifest, runs, where);
  const all = runs.filter((run) => {
    const key = runKey(run.cell, run.seed);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { dir, manifest, runs: all.filter((r) => !r.error), failed: all.filter((r) => r.error), droppedBytes, shards };
}

/** A run's events, or null when the study was run without --events (or the run has no log). */
export function readEvents(study: StudyData, cell: string, seed: number): ArchipelagoEvent[] | null {
  const file = eventLogFile(study, cell, seed);
  if (file === null) return null;
  return parseEventLines(readStudyFile(file, 'an event log (JSON lines)'), file) as ArchipelagoEvent[];
}

/**
 * The run's event log: under its one-to-one name, or in a study made before those names,
 * under the old one when no other cell of the study shares it (else there is no telling
 * whose run the file holds, and the run is shown without a log).
 */
function eventLogFile(study: StudyData, cell: string, seed: number): string | null {
  const file = path.join(study.dir, eventLogPath(cell, seed));
  if (existsSync(file)) return file;
  const legacy = legacyCellFileName(cell);
  if (study.manifest.cells.some((c) => c.id !== cell && legacyCellFileName(c.id) === legacy)) return null;
  const old = path.join(study.dir, eventLogPath(cell, seed, legacyCellFileName));
  return existsSync(old) ? old : null;
}
