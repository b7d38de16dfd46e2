/**
 * The result folder of a study and its crash rules. `manifest.json` and event logs are
 * written whole or not at all (temp file + rename); `runs.jsonl` only ever grows by one
 * complete line per finished run, flushed to disk (fsync) before the next run starts. A
 * kill can therefore leave at most a half-written last line, which `readRuns` detects and
 * cuts off, so a resumed study neither loses nor repeats a finished run.
 */
import { constants as bufferLimits } from 'node:buffer';
import { accessSync, closeSync, constants, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../io/input-error.ts';
import { fileKind, readRegularFile } from '../io/read-file.ts';
import { failureReason, writeFileAtomic } from '../io/write-file.ts';
import { ConfigError } from '../config/errors.ts';
import { MANIFEST_FORMAT, type Manifest, type RunRecord } from './records.ts';
import { firstProblem, manifestSchema, runRecordSchema } from './record-schema.ts';

export const MANIFEST_FILE = 'manifest.json';
export const RUNS_FILE = 'runs.jsonl';
export const EVENTS_DIR = 'events';

export { writeFileAtomic };

/** Appends one line and flushes it to disk before returning. */
export function appendLineSync(file: string, line: string): void {
  const fd = openSync(file, 'a');
  try {
    // A nearly full disk takes part of a write without an error: write on until it refuses.
    const bytes = Buffer.from(`${line}\n`);
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
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

/** A study file's text: a regular file, as large as a string may be. @throws ConfigError naming it. */
export function readStudyFile(file: string, expected: string): string {
  try {
    return readRegularFile(file, { name: file, expected, maxBytes: bufferLimits.MAX_STRING_LENGTH }).toString('utf8');
  } catch (error) {
    throw error instanceof InputError ? new ConfigError(`${error.message}; the folder is damaged`) : error;
  }
}

/** A file or folder exists at `file` (a dangling link counts: it is there, and wrong). */
function present(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads runs.jsonl. A last line without its newline is what a kill mid-write leaves: it is
 * dropped (and cut from the file when `repair` is set). A complete line that is not JSON,
 * or not a run record, is damage no kill can cause, and an error.
 */
export function readRuns(file: string, repair = false): RunsFile {
  if (!present(file)) return { runs: [], droppedBytes: 0 };
  const text = readStudyFile(file, 'a file of run records (JSON lines)');
  const end = text.lastIndexOf('\n') + 1;
  const droppedBytes = Buffer.byteLength(text.slice(end));
  if (droppedBytes > 0 && repair) truncateSync(file, Buffer.byteLength(text.slice(0, end)));
  const runs: RunRecord[] = [];
  text
    .slice(0, end)
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new ConfigError(`${file}:${i + 1}: not a JSON line; the folder is damaged (move the line away to resume)`);
      }
      const record = runRecordSchema.safeParse(value);
      if (!record.success) throw new ConfigError(`${file}:${i + 1}: not a run record (${firstProblem(record.error)}); the folder is damaged (move the line away to resume)`);
      runs.push(record.data);
    });
  return { runs, droppedBytes };
}

/**
 * Reads manifest.json: JSON, a mapping, of this tool's results format.
 * @throws ConfigError naming the file otherwise (the folder is damaged or not a study).
 */
export function readManifest(file: string): Manifest {
  const text = readStudyFile(file, 'a study manifest (JSON)');
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new ConfigError(`${file}: not readable JSON; the folder is damaged`);
  }
  const format = manifest !== null && typeof manifest === 'object' ? (manifest as { format?: unknown }).format : undefined;
  if (format !== MANIFEST_FORMAT) throw new ConfigError(`${file}: format ${JSON.stringify(format)}, expected ${MANIFEST_FORMAT}`);
  const checked = manifestSchema.safeParse(manifest);
  if (!checked.success) throw new ConfigError(`${file}: ${firstProblem(checked.error)}; the folder is damaged`);
  return checked.data as unknown as Manifest;
}

/**
 * Writes manifest.json, the study's first write, making the folder if needed: a folder
 * that cannot take it is refused before any run starts (exit 2), not after the first hour
 * of runs, and the folders made for it are removed again.
 */
export function writeManifest(dir: string, manifest: Manifest): void {
  let made: string | undefined;
  try {
    made = mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw folderError(dir, 'cannot create the folder', whyNotWritable(dir) ?? error);
  }
  try {
    writeFileAtomic(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  } catch (error) {
    if (made !== undefined) rmSync(made, { recursive: true, force: true });
    throw folderError(dir, `cannot write ${MANIFEST_FILE}`, error);
  }
}

/** Key of a run in a study: one per (cell, seed). */
export function runKey(cell: string, seed: number): string {
  return `${cell}\u0000${seed}`;
}

/** A file-system error as one line about the study folder: the folder is the user's input. */
function folderError(dir: string, what: string, error: unknown): ConfigError {
  return new ConfigError(`--out ${dir}: ${what} (${failureReason(error)}); expected a folder this user can write`);
}

/** Why the nearest existing folder above `dir` refuses writes (recursive mkdir reports ENOENT on a read-only file system). */
function whyNotWritable(dir: string): unknown {
  let folder = path.resolve(dir);
  while (!existsSync(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder);
  try {
    accessSync(folder, constants.W_OK);
    return null;
  } catch (error) {
    return error;
  }
}

/** Makes `dir` ready for a new study (missing or empty) or checks it holds one to resume. */
export function prepareFolder(dir: string, resume: boolean): 'new' | 'resume' {
  if (dir === '') throw new ConfigError('--out: expected a folder, got an empty string');
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new ConfigError(`--out ${dir}: is ${fileKind(statSync(dir))}; expected a folder`);
  let entries: string[] = [];
  try {
    if (existsSync(dir)) entries = readdirSync(dir);
  } catch (error) {
    throw folderError(dir, 'cannot read the folder', error);
  }
  // A new study's folder is made with its manifest (writeManifest).
  if (entries.length === 0) return 'new';
  if (!resume) throw new ConfigError(`--out ${dir}: folder is not empty; add --resume to continue the study in it, or choose another --out`);
  if (!existsSync(path.join(dir, MANIFEST_FILE))) {
    throw new ConfigError(`--out ${dir}: no ${MANIFEST_FILE}, so not a study folder; --resume needs the folder of an interrupted study`);
  }
  return 'resume';
}
