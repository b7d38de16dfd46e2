/**
 * Writing output files (results, checkpoints, traces, reports, study files), carefully:
 * where the write lands is decided first (src/io/output-target.ts: descriptors and devices
 * in place, links followed only when safe, read-only files refused). A regular file is
 * written whole or not at all: the bytes go to a new temporary file beside it, created
 * exclusively and without following links (O_CREAT | O_EXCL | O_NOFOLLOW) under a name
 * nobody can guess (random bytes), given the replaced file's mode (and owner, when this
 * process may set it), flushed and renamed over the file. A link or file planted at a
 * temporary name makes that open fail instead of redirecting the write.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fchownSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { OutputRefused } from './errors.ts';
import { fileKind } from './read-file.ts';
import { outputTarget, type OutputTarget } from './output-target.ts';

/** Temporary files are `.<name>.<pid>.<16 hex digits>.tmp` beside their target (the name cut to keep within 255 bytes). */
const TEMP = /^\.(.+)\.(\d+)\.[0-9a-f]{16}\.tmp$/;
const MAX_NAME_BYTES = 200;

/** The target's name as temporary names carry it: at most MAX_NAME_BYTES bytes. */
function tempStem(name: string): string {
  let stem = name;
  while (Buffer.byteLength(stem) > MAX_NAME_BYTES) stem = stem.slice(0, -1);
  return stem;
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length;) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      // A FIFO opened without blocking is full until its reader catches up.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/** Creates the temporary file beside `target`: exclusively, following no link, with the replaced file's mode and owner. */
export function createTemp(target: string, replaced: Stats | null): { fd: number; temp: string } {
  const temp = join(dirname(target), `.${tempStem(basename(target))}.${process.pid}.${randomBytes(8).toString('hex')}.tmp`);
  // A new file gets the usual 666 less the umask, as a shell redirection makes it.
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    replaced === null ? 0o666 : 0o600,
  );
  try {
    if (replaced !== null) {
      if (replaced.uid !== process.geteuid?.() || replaced.gid !== process.getegid?.()) {
        try {
          fchownSync(fd, replaced.uid, replaced.gid);
        } catch {
          // Only root may give a file away: the file becomes this user's, as with any editor's save.
        }
      }
      fchmodSync(fd, replaced.mode & 0o7777);
    }
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  return { fd, temp };
}

/** An output being written: chunks go in as they come; `commit()` puts the whole in place, `abort()` drops it. */
export interface OutputFile {
  write(data: string | Uint8Array): void;
  commit(): void;
  abort(): void;
}

/**
 * Opens `path` for writing as described above.
 * @throws OutputRefused (a directory, a read-only file, an unsafe link, ...) or the file system's error.
 */
export function openOutput(path: string): OutputFile {
  const target = outputTarget(path);
  if (target.kind === 'descriptor') return inPlace(target.fd, false);
  if (target.kind === 'stream') {
    // Non-blocking: a FIFO without a reader fails at once (ENXIO) instead of hanging the run.
    return inPlace(openSync(target.path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_APPEND), true);
  }
  return viaTemp(target);
}

function inPlace(fd: number, close: boolean): OutputFile {
  const done = () => {
    if (close) closeSync(fd);
  };
  return { write: (data) => writeAll(fd, data), commit: done, abort: done };
}

function viaTemp(target: Extract<OutputTarget, { kind: 'file' }>): OutputFile {
  const { fd, temp } = createTemp(target.path, target.stats);
  let open = true;
  const abort = () => {
    if (open) closeSync(fd);
    open = false;
    rmSync(temp, { force: true });
  };
  return {
    write: (data) => writeAll(fd, data),
    commit: () => {
      try {
        fsyncSync(fd);
        closeSync(fd);
        open = false;
        renameSync(temp, target.path);
      } catch (error) {
        abort();
        throw error;
      }
      syncFolder(dirname(target.path));
    },
    abort,
  };
}

/**
 * Opens `path` for an output that grows while a run goes (`--trace`): a regular file is
 * created as a temporary file (exclusively, no link followed: see above) and renamed into
 * place at once, so `tail -f path` follows the lines as they are written; `commit()` syncs
 * and closes it. It is never half-written in the sense that matters to its readers when the
 * writer writes whole lines: a killed run leaves every line but perhaps the last complete.
 * A write that fails part way (a full disk) is cut off again, so the file ends where the last
 * whole write did. `abort()` closes it and leaves what was written.
 * @throws OutputRefused or the file system's error.
 */
export function openLiveOutput(path: string): OutputFile {
  const target = outputTarget(path);
  if (target.kind !== 'file') return openOutput(path);
  const { fd, temp } = createTemp(target.path, target.stats);
  try {
    renameSync(temp, target.path);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  let whole = 0;
  return {
    write: (data) => {
      try {
        writeAll(fd, data);
      } catch (error) {
        // A write cut short (a full disk) leaves part of `data`: back to the end of the last whole one.
        try {
          ftruncateSync(fd, whole);
        } catch {
          // The write's own error is the one to report.
        }
        throw error;
      }
      whole += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    },
    commit: () => {
      try {
        fsyncSync(fd);
      } finally {
        close();
      }
      syncFolder(dirname(target.path));
    },
    abort: close,
  };
}

/** Makes the rename itself durable (a power cut right after it keeps the new file); best effort. */
function syncFolder(folder: string): void {
  try {
    const fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on a folder; the file itself is synced.
  }
}

/**
 * Writes a whole file (see the module comment).
 * @throws OutputRefused or the file system's error (ENOSPC, EROFS, ENXIO for a FIFO nobody reads, ...).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const output = openOutput(path);
  try {
    output.write(data);
  } catch (error) {
    output.abort();
    throw error;
  }
  output.commit();
}

/**
 * Creates `path` whole, unless it exists: the text goes to a temporary file beside it, which
 * is then hard-linked into place (link fails on an existing name, atomically, NFS included,
 * where O_EXCL was not always). A reader never sees it empty or partial. Returns false when
 * `path` was there already.
 * @throws the file system's error (ENOSPC, EROFS, ...); nothing is left behind then.
 */
export function createFileWhole(path: string, data: string | Uint8Array): boolean {
  const { fd, temp } = createTemp(path, null);
  try {
    try {
      writeAll(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  syncFolder(dirname(path));
  return true;
}

/**
 * Appends one line to a study's log and flushes it to disk before returning. The file is
 * opened without following a link (a link planted at its name is refused) and without blocking.
 */
export function appendLineSync(file: string, line: string): void {
  // Without blocking: a FIFO put in the log's place is refused, not waited on (no signal ends that wait).
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    0o666,
  );
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new OutputRefused(`is ${fileKind(stats)}, expected a file`);
    // A nearly full disk takes part of a write without an error: write on until it refuses.
    writeAll(fd, `${line}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a process of this host with this id runs (one of another user counts). A zombie
 * (killed, not yet reaped: a container whose PID 1 does not reap) answers kill(pid, 0) but
 * runs nothing: its state in /proc says so.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procStatFields(pid)?.[0];
  return state !== 'Z' && state !== 'X';
}

/** The fields of /proc/PID/stat after the command (which may hold spaces and parentheses): [0] the state, [19] the start time; undefined off Linux or when gone. */
export function procStatFields(pid: number | 'self'): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Removes temporary files that a killed writer left in `dir` (for the file `name` only, when
 * given): regular files (never a link) of processes no longer running. A live writer's stays.
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
    if (match === null || (name !== undefined && match[1] !== tempStem(name))) continue;
    const pid = Number(match[2]);
    const file = join(dir, entry);
    try {
      if (!lstatSync(file).isFile()) continue;
    } catch {
      continue;
    }
    if (pid !== process.pid && processAlive(pid)) continue;
    try {
      rmSync(file, { force: true });
    } catch {
      // Another user's file in a shared sticky folder cannot be removed, and is not ours to remove.
    }
  }
}

/** Why a file-system call failed, in words: `read-only file system`, `no space left on the device`. */
export function failureReason(error: unknown): string {
  if (error instanceof OutputRefused) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && Object.hasOwn(FAILURE_WORDS, code) ? FAILURE_WORDS[code] : undefined) ?? code ?? (error as Error).message;
}

/** failureReason's words by error code. */
const FAILURE_WORDS: Readonly<Record<string, string>> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENXIO: 'a FIFO nobody reads',
  ERR_ACCESS_DENIED: "Node's permission model does not allow it: allow it with --allow-fs-write",
  ELOOP: 'a symbolic link where a new file was to be made',
  EEXIST: 'a file appeared at the temporary name',
  ENAMETOOLONG: 'file name too long',
  // In a folder that exists: one that takes no new files (/proc, /sys), or a folder removed meanwhile.
  ENOENT: 'no such file or folder, ENOENT',
};

/** A failed write as `--out x.json: cannot be written (read-only file system)`. */
export function writeError(flag: string, path: string, error: unknown): string {
  return error instanceof OutputRefused
    ? `${flag} ${path}: ${error.message}`
    : `${flag} ${path}: cannot be written (${failureReason(error)})`;
}
