/**
 * The result folder of a study and its crash rules. `manifest.json` and event logs are
 * written whole or not at all (temp file + rename); `runs.jsonl` only ever grows by one
 * complete line per finished run, flushed to disk (fsync) before the next run starts. A
 * kill can therefore leave at most a half-written last line, which `readRuns` detects and
 * cuts off, so a resumed study neither loses nor repeats a finished run.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../io/write-file.ts';
import { ConfigError } from '../config/errors.ts';
import { MANIFEST_FORMAT, type Manifest, type RunRecord } from './records.ts';

export const MANIFEST_FILE = 'manifest.json';
export const RUNS_FILE = 'runs.jsonl';
export const EVENTS_DIR = 'events';

export { writeFileAtomic };

/** Appends one line and flushes it to disk before returning. */
export function appendLineSync(file: string, line: string): void {
  const fd = openSync(file, 'a');
  try {
    writeSync(fd, `${line}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface RunsFile {
  runs: RunRecord[];
  /** Bytes of a half-written last line that were found (and, with `repair`, cut off). */
  droppedBytes: number;
}

/**
 * Reads runs.jsonl. A last line without its newline is what a kill mid-write leaves: it is
 * dropped (and cut from the file when `repair` is set). A complete line that is not JSON is
 * damage no kill can cause, and an error.
 */
export function readRuns(file: string, repair = false): RunsFile {
  if (!existsSync(file)) return { runs: [], droppedBytes: 0 };
  const text = readFileSync(file, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  const droppedBytes = Buffer.byteLength(text.slice(end));
  if (droppedBytes > 0 && repair) truncateSync(file, Buffer.byteLength(text.slice(0, end)));
  const runs: RunRecord[] = [];
  text
    .slice(0, end)
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        runs.push(JSON.parse(line) as RunRecord);
      } catch {
        throw new ConfigError(`${file}:${i + 1}: not a JSON line; the folder is damaged (move the line away to resume)`);
      }
    });
  return { runs, droppedBytes };
}

/**
 * Reads manifest.json: JSON, a mapping, of this tool's results format.
 * @throws ConfigError naming the file otherwise (the folder is damaged or not a study).
 */
export function readManifest(file: string): Manifest {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new ConfigError(`${file}: not readable JSON; the folder is damaged`);
  }
  const format = manifest !== null && typeof manifest === 'object' ? (manifest as { format?: unknown }).format : undefined;
  if (format !== MANIFEST_FORMAT) throw new ConfigError(`${file}: format ${JSON.stringify(format)}, expected ${MANIFEST_FORMAT}`);
  return manifest as Manifest;
}

/** Key of a run in a study: one per (cell, seed). */
export function runKey(cell: string, seed: number): string {
  return `${cell}\u0000${seed}`;
}

/** Makes `dir` ready for a new study (missing or empty) or checks it holds one to resume. */
export function prepareFolder(dir: string, resume: boolean): 'new' | 'resume' {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new ConfigError(`--out ${dir}: is a file; expected a folder`);
  const entries = existsSync(dir) ? readdirSync(dir) : [];
  if (entries.length === 0) {
    mkdirSync(dir, { recursive: true });
    return 'new';
  }
  if (!resume) throw new ConfigError(`--out ${dir}: folder is not empty; add --resume to continue the study in it, or choose another --out`);
  if (!existsSync(path.join(dir, MANIFEST_FILE))) {
    throw new ConfigError(`--out ${dir}: no ${MANIFEST_FILE}, so not a study folder; --resume needs the folder of an interrupted study`);
  }
  return 'resume';
}
