/**
 * Writing output files (results, checkpoints, reports, study files). A regular file is
 * written whole or not at all: the text goes to a temporary file beside it, is flushed and
 * renamed over it, so a crash mid-write never leaves a half-written file. Anything else
 * that already exists at the path is never replaced by that rename: a device (/dev/null,
 * /dev/stdout) or a FIFO (`--out >(jq .)`) is written directly, as a shell redirection
 * would; a directory or a socket is refused.
 */
import { accessSync, closeSync, constants, fsyncSync, lstatSync, openSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InputError } from './input-error.ts';
import { fileKind } from './read-file.ts';

/** Temporary files are `.<name>.<pid>.tmp` beside their target. */
const TEMP = /^\.(.+)\.(\d+)\.tmp$/;

function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** A device or a FIFO: written in place, never renamed over. */
function isStream(stats: Stats): boolean {
  return stats.isFIFO() || stats.isCharacterDevice() || stats.isBlockDevice();
}

/** The file a write lands in: a symbolic link's target, so the rename replaces the file and keeps the link. */
function landingPath(path: string): string {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      // A FIFO opened without blocking is full until its reader catches up.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/**
 * Writes a whole file: a regular (or new) file atomically, a device or FIFO directly.
 * @throws the file system's error (ENOSPC, EROFS, ENXIO for a FIFO nobody reads, ...).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const target = landingPath(path);
  const stats = statOrNull(target);
  if (stats !== null && isStream(stats)) {
    // Non-blocking: a FIFO without a reader fails at once (ENXIO) instead of hanging the run.
    const fd = openSync(target, constants.O_WRONLY | constants.O_NONBLOCK);
    try {
      writeAll(fd, data);
    } finally {
      closeSync(fd);
    }
    return;
  }
  const temp = tempPath(target);
  try {
    const fd = openSync(temp, 'w');
    try {
      writeAll(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temporary files that a killed writer left in `dir` (for the file `name` only, when
 * given): those of processes no longer running. A live writer's temp file is left alone.
 */
export function removeStaleTemps(dir: string, name?: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const match = TEMP.exec(entry);
    if (match === null || (name !== undefined && match[1] !== name)) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || !processAlive(pid)) rmSync(join(dir, entry), { force: true });
  }
}

/** Why a file-system call failed, in words: `read-only file system`, `no space left on the device`. */
export function failureReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EROFS' ? 'read-only file system'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'ENOSPC' ? 'no space left on the device'
    : code === 'EDQUOT' ? 'disk quota exceeded'
    : code === 'ENXIO' ? 'a FIFO nobody reads'
    : (code ?? (error as Error).message);
}

/** A failed write as `--out x.json: cannot be written (read-only file system)`. */
export function writeError(flag: string, path: string, error: unknown): string {
  return `${flag} ${path}: cannot be written (${failureReason(error)})`;
}

/**
 * An output flag (`--out`, `--checkpoint`, `--html`, `--csv`) must name a file this process
 * can write: checked before any work starts, so a bad path costs nothing. Also removes what
 * a killed earlier write of the same file left behind.
 * @throws InputError naming the flag.
 */
export function checkOutFile(flag: string, path: string): void {
  if (path === '') throw new InputError(`${flag}: expected a file name, got an empty string`);
  const target = landingPath(path);
  const stats = statOrNull(target);
  if (stats !== null && stats.isDirectory()) throw new InputError(`${flag} ${path}: is a directory, expected a file name`);
  if (stats !== null && !stats.isFile() && !isStream(stats)) throw new InputError(`${flag} ${path}: is ${fileKind(stats)}, expected a file name`);
  if (stats !== null && isStream(stats)) {
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      throw new InputError(writeError(flag, path, error));
    }
    return;
  }
  const folder = dirname(target);
  if (!statOrNull(folder)?.isDirectory()) throw new InputError(`${flag} ${path}: folder ${dirname(path)} does not exist`);
  try {
    // The rename needs the folder writable (access() also reports a read-only file system, even to root).
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw new InputError(writeError(flag, path, error));
  }
  removeStaleTemps(folder, basename(target));
}
