/**
 * Where a write to a path lands, decided before anything is written:
 * - a descriptor path (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`) is
 *   that open descriptor, written in place: `--out /dev/stdout >> run.log` appends to the
 *   log (with the shell's offset and append flag), whatever file the descriptor holds;
 * - a symbolic link is followed to the file it names (the file is replaced, the link
 *   stays), except a link another user owns in a world-writable sticky folder such as
 *   /tmp: as the kernel's `fs.protected_symlinks` rule, such a link is refused, so nobody
 *   can plant a link that makes this tool write over another user's file;
 * - an existing device or FIFO is written in place; anything else not a regular file
 *   (a directory, a socket) is refused;
 * - a regular file without any write permission bit (`chmod 444`), or one this user may
 *   not write, is refused: the user made it read-only, and a rename over it would replace
 *   it silently.
 */
import { accessSync, constants, fstatSync, lstatSync, mkdirSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { OutputRefused } from './errors.ts';
import { fileKind } from './read-file.ts';

export type OutputTarget =
  /** An open descriptor of this process, written in place and left open. */
  | { kind: 'descriptor'; fd: number }
  /** An existing device or FIFO, opened and written in place. */
  | { kind: 'stream'; path: string }
  /** A regular file (or none yet): written through a temporary file and renamed; `stats` of the file replaced. */
  | { kind: 'file'; path: string; stats: Stats | null };

const MAX_LINKS = 40;

/** `path`'s own stats (a link's, not its target's), or null when there is nothing there. */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** The descriptor a path names, or null: `/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/1`, `/proc/<this pid>/fd/1`. */
export function descriptorOf(path: string): number | null {
  const full = resolve(path);
  const named = /^\/dev\/(stdout|stderr)$/.exec(full);
  if (named) return named[1] === 'stdout' ? 1 : 2;
  const numbered = /^\/(?:dev\/fd|proc\/(?:self|thread-self|(\d+))(?:\/task\/\d+)?\/fd)\/(\d+)$/.exec(full);
  if (numbered && (numbered[1] === undefined || Number(numbered[1]) === process.pid)) return Number(numbered[2]);
  return null;
}

/** A folder anyone may write to with the sticky bit: /tmp, /var/tmp. */
function isSharedStickyFolder(stats: Stats | null): boolean {
  return stats !== null && (stats.mode & 0o1002) === 0o1002;
}

/** The kernel's protected_symlinks rule: in a shared sticky folder, follow only links of this user or the folder's owner. */
function mayFollow(link: string, linkStats: Stats): boolean {
  const folder = lstatOrNull(dirname(link));
  if (!isSharedStickyFolder(folder)) return true;
  const me = process.geteuid?.() ?? -1;
  return linkStats.uid === me || linkStats.uid === folder!.uid;
}

/**
 * The same rule for the folders on the way: a link another user planted in a shared sticky
 * folder (`/tmp/x -> /home/you/...`) is not followed to a folder either.
 * @throws OutputRefused naming the link.
 */
export function checkFolderLinks(folder: string): void {
  const parts = resolve(folder).split('/').filter(Boolean);
  let at = '';
  for (const part of parts) {
    at = `${at}/${part}`;
    const stats = lstatOrNull(at);
    if (stats === null) return;
    if (stats.isSymbolicLink() && !mayFollow(at, stats)) {
      throw new OutputRefused(
        `goes through ${at}, a symbolic link owned by another user in the shared folder ${dirname(at)}; not followed`,
      );
    }
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The mode bits as `ls` would show them in octal (`444`). */
function modeText(stats: Stats): string {
  return (stats.mode & 0o7777).toString(8).padStart(3, '0');
}

/**
 * Resolves `path` to where a write lands (see the module comment).
 * @throws OutputRefused for a directory, a socket, a read-only file, an unsafe link, a loop of links.
 */
export function outputTarget(path: string): OutputTarget {
  if (/\/\.?\.?$/.test(path)) throw new OutputRefused('ends with /, so names a folder; expected a file name');
  checkFolderLinks(dirname(path));
  let current = path;
  for (let hops = 0; hops <= MAX_LINKS; hops++) {
    const fd = descriptorOf(current);
    if (fd !== null) {
      try {
        fstatSync(fd);
      } catch {
        throw new OutputRefused(`descriptor ${fd} is not open`);
      }
      return { kind: 'descriptor', fd };
    }
    const stats = lstatOrNull(current);
    if (stats === null) return { kind: 'file', path: current, stats: null };
    if (stats.isSymbolicLink()) {
      if (!mayFollow(current, stats)) {
        throw new OutputRefused(`is a symbolic link owned by another user in the shared folder ${dirname(resolve(current))}; not followed`);
      }
      current = resolve(dirname(current), readlinkSync(current));
      continue;
    }
    if (stats.isFIFO() || stats.isCharacterDevice() || stats.isBlockDevice()) return { kind: 'stream', path: current };
    if (!stats.isFile()) throw new OutputRefused(`is ${fileKind(stats)}, expected a file name`);
    if ((stats.mode & 0o222) === 0)
      throw new OutputRefused(`is read-only (mode ${modeText(stats)}); not replaced (make it writable or choose another file)`);
    // A file this user may not write is not replaced either, though the folder would allow the rename.
    if (!writable(current)) throw new OutputRefused(`cannot be written (permission denied); not replaced`);
    return { kind: 'file', path: current, stats };
  }
  throw new OutputRefused('too many levels of symbolic links');
}

/**
 * Which regular file a path writes, for "two outputs in one file" checks: its device and
 * inode when it exists (whatever links or descriptors lead to it), else its folder's and
 * its own name. Null for a device or FIFO (two outputs to /dev/null are fine).
 */
export function targetIdentity(path: string): string | null {
  let target: OutputTarget;
  try {
    target = outputTarget(path);
  } catch {
    return resolve(path);
  }
  const stats =
    target.kind === 'descriptor' ? fstatSync(target.fd) : target.kind === 'stream' ? null : target.stats && statSync(target.path);
  if (target.kind !== 'file') return stats?.isFile() ? `inode:${stats.dev}:${stats.ino}` : null;
  if (stats) return `inode:${stats.dev}:${stats.ino}`;
  let folder = resolve(dirname(target.path));
  try {
    const folderStats = statSync(folder);
    folder = `inode:${folderStats.dev}:${folderStats.ino}`;
  } catch {
    // A missing folder is refused by the other checks; the name as given is the identity.
  }
  return `${folder}/${basename(target.path)}`;
}

/** Why `folder` cannot hold an output, named `shown` in the message: it is missing or no folder; null when it is a folder. */
export function folderProblem(folder: string, shown: string): string | null {
  let stats: Stats;
  try {
    stats = statSync(folder);
  } catch {
    return `folder ${shown} does not exist`;
  }
  return stats.isDirectory() ? null : `${shown} is ${fileKind(stats)}, not a folder`;
}

/**
 * Makes `dir` and the missing folders above it, one at a time: a recursive mkdir into a
 * pseudo file system (`/proc/nope/x`) spins for ever where no signal ends it, a single one
 * fails at once. Returns the first folder made (the highest), if any.
 * @throws the file system's error.
 */
export function makeFolders(dir: string): string | undefined {
  const missing: string[] = [];
  for (let at = resolve(dir); lstatOrNull(at) === null; at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  let made: string | undefined;
  for (const folder of missing) {
    try {
      mkdirSync(folder);
      made ??= folder;
    } catch (error) {
      // Another process made it first (several `experiment --resume` at once): a folder is what we wanted.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !lstatSync(folder).isDirectory()) throw error;
    }
  }
  return made;
}
