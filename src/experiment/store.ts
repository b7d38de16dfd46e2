/**
 * The result folder of a study and its crash rules. `manifest.json` and event logs are
 * written whole or not at all (src/io/write-file.ts); `runs.jsonl` only ever grows by one
 * complete line per finished run, flushed to disk (fsync) before the next run starts. A
 * kill can therefore leave at most a half-written last line, which `readRuns` detects and
 * cuts off, so a resumed study neither loses nor repeats a finished run.
 */
import { constants as bufferLimits } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmdirSync,
  truncateSync,
} from 'node:fs';
import path from 'node:path';
import { InputError } from '../io/errors.ts';
import { isPlainObject, parseJsonText } from '../io/json-text.ts';
import { fileKind, readRegularFile } from '../io/read-file.ts';
import { checkFolderLinks, lstatOrNull, makeFolders } from '../io/output-target.ts';
import { appendLineSync, failureReason, writeFileAtomic } from '../io/write-file.ts';
import { ConfigError } from '../config/errors.ts';
import { EVENTS_DIR, MANIFEST_FILE } from '../io/study-records.ts';
import { checkFolderFlag, damagedFolder } from './errors.ts';
import { LOCK_FILE } from './lock.ts';
import { MANIFEST_FORMAT, type Manifest, type RunRecord } from './records.ts';
import { firstProblem, manifestSchema, runRecordSchema } from './record-schema.ts';

export { EVENTS_DIR, MANIFEST_FILE, RUNS_FILE } from '../io/study-records.ts';

export { appendLineSync, writeFileAtomic };

export interface RunsFile {
  runs: RunRecord[];
  /** Each record's line number in the file (1-based; blank lines are skipped). */
  lines: number[];
  /** Bytes of a half-written last line that were found (and, with `repair`, cut off). */
  droppedBytes: number;
}

/** A study file's text: a regular file, as large as a string may be. @throws ConfigError naming it. */
export function readStudyFile(file: string, expected: string): string {
  try {
    return readRegularFile(file, { name: file, expected, maxBytes: bufferLimits.MAX_STRING_LENGTH }).toString('utf8');
  } catch (error) {
    throw error instanceof InputError ? damagedFolder(error.message) : error;
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

/** The longest line read: a string's limit (a UTF-8 byte is at most one character). */
const MAX_LINE_BYTES = bufferLimits.MAX_STRING_LENGTH;

/** Bytes read from runs.jsonl at a time: the file is read line by line, never whole, so its size has no cap. */
const CHUNK_BYTES = 8 << 20;

/**
 * Calls `line` with each complete line of `file` (text, without its newline, 1-based
 * number); returns the bytes of complete lines and the text of a last line without its newline.
 * Lines are cut at the byte 0x0A, which is never part of a longer UTF-8 character.
 * @throws ConfigError naming the file when it cannot be read or is not a regular file.
 */
function forEachLine(file: string, line: (text: string, number: number) => void): { complete: number; number: number; torn: Buffer } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw damagedFolder(`${file}: cannot read the file (${failureReason(error)})`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw damagedFolder(`${file}: is ${fileKind(stats)}; expected a file of run records (JSON lines)`);
    // The start of a line not yet ended, in pieces (never copied whole per chunk: a long line costs its length once).
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let complete = 0;
    let number = 0;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      let got: number;
      try {
        got = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      } catch (error) {
        throw damagedFolder(`${file}: cannot read the file (${failureReason(error)})`);
      }
      if (got === 0) break;
      const bytes = chunk.subarray(0, got);
      let from = 0;
      for (let at = bytes.indexOf(0x0a, from); at !== -1; at = bytes.indexOf(0x0a, from)) {
        const text =
          pendingBytes === 0 ? bytes.toString('utf8', from, at) : Buffer.concat([...pending, bytes.subarray(0, at)]).toString('utf8');
        line(text, ++number);
        complete += pendingBytes + at + 1 - from;
        [pending, pendingBytes, from] = [[], 0, at + 1];
      }
      pending.push(Buffer.from(bytes.subarray(from)));
      pendingBytes += got - from;
      // No string holds a longer line (and no record is one): damage, said before memory fills.
      if (pendingBytes > MAX_LINE_BYTES)
        throw damagedFolder(`${file}:${number + 1}: a line longer than ${MAX_LINE_BYTES} bytes, which no run record is`);
    }
    const rest = Buffer.concat(pending);
    return { complete, number, torn: rest };
  } finally {
    closeSync(fd);
  }
}

/** What a line of runs.jsonl holds: a run record, or why it is none (`not a JSON line (...)`, `not a run record (key: ...)`). */
function recordOf(line: string): { record: RunRecord } | { why: string } {
  let value: unknown;
  try {
    value = parseJsonText(line);
  } catch (error) {
    return { why: `not a JSON line (${(error as Error).message})` };
  }
  const record = runRecordSchema.safeParse(value);
  // Its provenance is checked as an object only: the reader takes nothing else of it.
  return record.success ? { record: record.data as RunRecord } : { why: `not a run record (${firstProblem(record.error)})` };
}

/**
 * A last line without its newline that is one whole JSON object: a write cut right before
 * its newline (no shorter cut of an object's text parses). It is a line like any other, and
 * `repair` finishes it with its newline; anything else there is a half-written line.
 */
function wholeLastLine(torn: Buffer): string | null {
  if (torn.length === 0) return null;
  const text = torn.toString('utf8');
  try {
    // The syntax alone: whether it is a good record (no key twice, ...) is the line's check.
    return isPlainObject(JSON.parse(text)) ? text : null;
  } catch {
    return null;
  }
}

/**
 * Reads runs.jsonl, line by line (a study of any size can be reported and resumed). A last
 * line without its newline is what a kill mid-write leaves: it is dropped (and cut from the
 * file when `repair` is set), unless it is one whole JSON object (a cut right before the
 * newline), which is read as a line (and `repair` adds its newline). A complete line that is
 * not JSON, or not a run record, is damage no kill can cause: an error naming the file, the
 * line and the key, or with `bad`, handed to it (`--resume` sets such lines aside).
 */
export function readRuns(file: string, repair = false, bad?: (line: number, why: string) => void): RunsFile {
  if (!present(file)) return { runs: [], lines: [], droppedBytes: 0 };
  const runs: RunRecord[] = [];
  const lines: number[] = [];
  const take = (line: string, i: number) => {
    if (line.trim() === '') return;
    const read = recordOf(line);
    if ('record' in read) {
      runs.push(read.record);
      lines.push(i);
    } else if (bad !== undefined) bad(i, read.why);
    else throw new ConfigError(`${file}:${i}: ${read.why}; the folder is damaged (experiment --resume sets such a line aside)`);
  };
  const { complete, number, torn } = forEachLine(file, take);
  const whole = wholeLastLine(torn);
  if (whole !== null) take(whole, number + 1);
  if (repair && whole !== null) appendLineSync(file, '');
  else if (repair && torn.length > 0) truncateSync(file, complete);
  return { runs, lines, droppedBytes: whole === null ? torn.length : 0 };
}

/** Where the records `--resume` sets aside from `runsFile` go: `runs.set-aside.jsonl` beside `runs.jsonl`. */
export function setAsideFile(runsFile: string): string {
  return runsFile.replace(/\.jsonl$/, '.set-aside.jsonl');
}

/**
 * Moves the records on `lines` (1-based) of a complete `runsFile` to its set-aside file, as
 * they were: appended there and flushed first, then `runsFile` rewritten whole without them
 * (a kill in between leaves them in both, and the next resume moves them again).
 */
export function setAsideLines(runsFile: string, lines: ReadonlySet<number>): void {
  const aside = setAsideFile(runsFile);
  // A link, folder or FIFO in its place is the folder's damage, named before anything moves (none yet: it is made).
  const stats = lstatOrNull(aside);
  if (stats !== null && !stats.isFile())
    throw damagedFolder(`${aside}: is ${fileKind(stats)}; expected a file of set-aside records, or none`);
  const kept: string[] = [];
  const moved: string[] = [];
  forEachLine(runsFile, (text, number) => (lines.has(number) ? moved : kept).push(text));
  appendLineSync(aside, moved.join('\n'));
  writeFileAtomic(runsFile, kept.map((line) => `${line}\n`).join(''));
}

/**
 * Reads manifest.json: JSON, a mapping, of this tool's results format.
 * @throws ConfigError naming the file otherwise (the folder is damaged or not a study).
 */
export function readManifest(file: string): Manifest {
  const text = readStudyFile(file, 'a study manifest (JSON)');
  let manifest: unknown;
  try {
    manifest = parseJsonText(text);
  } catch (error) {
    throw damagedFolder(`${file}: not readable JSON (${(error as Error).message})`);
  }
  const format = manifest !== null && typeof manifest === 'object' ? (manifest as { format?: unknown }).format : undefined;
  if (format !== MANIFEST_FORMAT) throw new ConfigError(`${file}: format ${JSON.stringify(format)}, expected ${MANIFEST_FORMAT}`);
  const checked = manifestSchema.safeParse(manifest);
  if (!checked.success) throw damagedFolder(`${file}: ${firstProblem(checked.error)}`);
  return checked.data as unknown as Manifest;
}

/**
 * Makes the study folder (and the folders above it) if needed, before the lock and the
 * first write: a folder that cannot be made is refused before any run starts (exit 2).
 * Returns the first folder made (to remove again should the study be refused), if any.
 */
export function makeStudyFolder(dir: string): string | undefined {
  checkFolderFlag('--out', dir);
  try {
    // The folder and those above it: no link another user planted in /tmp is followed (src/io/output-target.ts).
    checkFolderLinks(dir);
  } catch (error) {
    throw new ConfigError(`--out ${dir}: ${(error as Error).message}`);
  }
  try {
    return makeFolders(dir);
  } catch (error) {
    throw folderError(dir, 'cannot create the folder', whyNotWritable(dir) ?? error);
  }
}

/**
 * Checks, writing nothing, that `dir` can take the study: the --out checks of makeStudyFolder
 * and prepareFolder, and for a folder still to be made, that the nearest existing one takes
 * a new folder (one made and removed: /proc does not). For a caller that has work to do
 * first (a distributed study waits for its hosts). @throws ConfigError naming --out.
 */
export function checkStudyFolder(dir: string, resume: boolean, shard: boolean): void {
  checkFolderFlag('--out', dir);
  try {
    checkFolderLinks(dir);
  } catch (error) {
    throw new ConfigError(`--out ${dir}: ${(error as Error).message}`);
  }
  if (present(dir)) {
    // A shard's folder is shared: shard-folder.ts checks what it holds. A folder another writer
    // holds (its lock is there) is checked under the lock (runner.ts): here its manifest may be
    // half-written (several `experiment --resume` at once on a new folder).
    if (!shard && !existsSync(path.join(dir, LOCK_FILE))) prepareFolder(dir, resume);
    return;
  }
  let above = path.dirname(path.resolve(dir));
  while (!present(above) && path.dirname(above) !== above) above = path.dirname(above);
  // Random, not pid and time alone: two containers (both pid 1) start in one millisecond on a shared folder.
  const probe = path.join(above, `.nqueens-islands-probe.${process.pid}.${randomBytes(8).toString('hex')}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
  } catch (error) {
    throw folderError(dir, 'cannot create the folder', error);
  }
}

/**
 * Makes the study's events folder, or checks the one there: a real folder. A file, FIFO or
 * link in its place (a link would send the logs out of the study) is refused before any run.
 * @throws ConfigError naming it.
 */
export function makeEventsFolder(dir: string): void {
  const folder = path.join(dir, EVENTS_DIR);
  const stats = lstatOrNull(folder);
  if (stats?.isDirectory()) return;
  if (stats !== null) throw damagedFolder(`${folder}: is ${fileKind(stats)}; expected the folder of the study's event logs`);
  try {
    mkdirSync(folder);
  } catch (error) {
    // Another shard made it first.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && lstatSync(folder).isDirectory()) return;
    throw folderError(dir, `cannot create ${EVENTS_DIR}/`, error);
  }
}

/** Writes manifest.json, the study's first write: a folder that cannot take it is refused before any run starts. */
export function writeManifest(dir: string, manifest: Manifest): void {
  try {
    writeFileAtomic(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  } catch (error) {
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
  checkFolderFlag('--out', dir);
  let entries: string[] = [];
  try {
    // The study's own lock (src/experiment/lock.ts) is taken before this check.
    // Locks, and a lock's temporary file (its name with a dot before it) while another writer creates it.
    if (existsSync(dir)) entries = readdirSync(dir).filter((entry) => !entry.startsWith(LOCK_FILE) && !entry.startsWith(`.${LOCK_FILE}`));
  } catch (error) {
    throw folderError(dir, 'cannot read the folder', error);
  }
  // A new study's folder is made with its manifest (writeManifest).
  if (entries.length === 0) return 'new';
  if (!resume)
    throw new ConfigError(`--out ${dir}: folder is not empty; add --resume to continue the study in it, or choose another --out`);
  if (!existsSync(path.join(dir, MANIFEST_FILE))) {
    throw new ConfigError(`--out ${dir}: no ${MANIFEST_FILE}, so not a study folder; --resume needs the folder of an interrupted study`);
  }
  return 'resume';
}
