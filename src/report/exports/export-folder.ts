/**
 * A folder of files an export writes (`report --ioh`, `report --figures`): checked before any
 * work, then written whole or not at all.
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config/errors.ts';
import { emptyFolderFlag } from '../../experiment/errors.ts';
import { checkFolderLinks, folderProblem, lstatOrNull } from '../../io/output-target.ts';
import { studyRecordRefusal } from '../../io/study-records.ts';
import { failureReason, processAlive, writeFileAtomic } from '../../io/write-file.ts';
import { checkPermitted } from '../../io/output-checks.ts';

export interface ExportFile {
  /** Relative to the export folder, with / separators. */
  path: string;
  text: string;
}

/**
 * Refuses an export folder that is a file or not empty (an older export's files would mix
 * in), one reached through a link another user planted in a shared sticky folder, or one
 * whose parent folder is missing or not writable: all before any work. @throws ConfigError
 */
export function checkExportFolder(given: string, flag: string): void {
  if (given === '') throw emptyFolderFlag(flag);
  try {
    checkFolderLinks(given);
  } catch (error) {
    throw new ConfigError(`${flag} ${given}: ${(error as Error).message}`);
  }
  // A link to a folder is followed (the checks and the rename are the folder's, as the write's).
  const dir = linkedFolder(given);
  const broken = brokenLink(dir);
  if (broken !== null) throw new ConfigError(`${flag} ${given}: ${broken}; expected a missing or empty folder, or a link to one`);
  const record = studyRecordRefusal(path.resolve(dir));
  if (record !== null) throw new ConfigError(`${flag} ${given}: ${record}`);
  const parent = path.dirname(path.resolve(dir));
  const missing = folderProblem(parent, path.dirname(dir));
  if (missing !== null) throw new ConfigError(`${flag} ${given}: ${missing}`);
  try {
    accessSync(parent, constants.W_OK);
    checkPermitted(dir);
    // What access() cannot tell (a folder of /proc, a server that refuses): a staging folder made and removed.
    const probe = path.join(parent, stagingName(dir, process.pid));
    mkdirSync(probe, { mode: 0o700 });
    rmdirSync(probe);
  } catch (error) {
    throw new ConfigError(`${flag} ${given}: ${path.dirname(dir)} cannot be written (${failureReason(error)})`);
  }
  removeStaleStaging(dir);
  const stats = statOrNull(dir);
  if (stats === null) return;
  if (!stats.isDirectory()) throw new ConfigError(`${flag} ${given}: is a file; expected a missing or empty folder`);
  if (readdirSync(dir).length > 0) throw new ConfigError(`${flag} ${given}: folder is not empty; expected a missing or empty folder`);
}

/** Where `dir` leads when it is a symbolic link (the export is written there), else `dir`. */
function linkedFolder(dir: string): string {
  try {
    return lstatSync(dir).isSymbolicLink() ? realpathSync(dir) : dir;
  } catch {
    return dir; // a dangling link: the checks below name it
  }
}

/** Why `dir` is a link that leads to no folder (the rename onto it would fail after the work), or null. */
function brokenLink(dir: string): string | null {
  if (statOrNull(dir) !== null || lstatOrNull(dir)?.isSymbolicLink() !== true) return null;
  try {
    statSync(dir);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return 'is a loop of symbolic links';
    return code === 'ENOENT' ? `is a symbolic link to ${readlinkSync(dir)}, which does not exist` : null;
  }
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

/** The staging folder of an export into `dir` by process `pid` (writeExportFolder): `.NAME.PID.HEX.tmp` beside it. */
function stagingName(dir: string, pid: number): string {
  return `.${path.basename(dir)}.${pid}.${randomBytes(8).toString('hex')}.tmp`;
}

/**
 * Removes the staging folders a killed export into `dir` left beside it (SIGKILL, a power cut:
 * no handler ran): folders, never links, of this user, named as stagingName names them, whose
 * process no longer runs. Another user's, or a live export's, stays.
 */
function removeStaleStaging(dir: string): void {
  const parent = path.dirname(path.resolve(dir));
  const prefix = `.${path.basename(dir)}.`;
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return; // a folder that may be written but not listed: its own staging names are new ones
  }
  for (const entry of entries) {
    const pid = entry.startsWith(prefix) ? /^(\d+)\.[0-9a-f]{16}\.tmp$/.exec(entry.slice(prefix.length))?.[1] : undefined;
    if (pid === undefined || processAlive(Number(pid))) continue;
    const staging = path.join(parent, entry);
    try {
      const stats = lstatSync(staging);
      if (stats.isDirectory() && stats.uid === process.getuid?.()) rmSync(staging, { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to remove: it blocks nothing (the export goes to its own new name).
    }
  }
}

/**
 * Writes the export into `dir` (see checkExportFolder) whole or not at all: into a new folder
 * beside it, renamed into place at the end. A failure (a full disk) removes that folder, so
 * nothing is left to block a retry; one a killed export left is removed by the next check.
 */
export function writeExportFolder(given: string, files: readonly ExportFile[], flag: string): void {
  checkExportFolder(given, flag);
  const dir = linkedFolder(given);
  const staging = path.join(path.dirname(dir), stagingName(dir, process.pid));
  mkdirSync(staging, { mode: 0o777 });
  try {
    for (const file of files) {
      const target = path.join(staging, ...file.path.split('/'));
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileAtomic(target, file.text);
    }
    // rename() replaces a missing or empty folder.
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}
