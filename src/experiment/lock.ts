/**
 * One writer per study folder. A study takes `DIR/.nqueens-islands.lock` before it reads or
 * writes anything there: a file created whole and exclusively (written, then linked into
 * place; no link followed) holding the writer's pid, host name and start time. A shard of a
 * study (shard.ts) takes its own, `DIR/.nqueens-islands.lock.shard-I-of-N`: shards share no lock. A second `experiment --out DIR` (or
 * `runExperiment`) while the first runs gets one line naming the holder and exit 2, so no
 * run is done twice and runs.jsonl never takes two writers' lines. A lock whose process is
 * gone (same host, pid not running: a kill -9, a power cut) is stale and taken over; a lock
 * from another host cannot be checked from here, so it is refused with the file to remove.
 */
import { readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../config/errors.ts';
import { createFileWhole, failureReason, processAlive } from '../io/write-file.ts';

export const LOCK_FILE = '.nqueens-islands.lock';

interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

/** The lock's holder; null for a file that names none; 'gone' when there is no lock (any more). */
function holderOf(file: string): LockHolder | null | 'gone' {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    return Number.isInteger(value.pid) && typeof value.host === 'string'
      ? { pid: value.pid!, host: value.host, startedAt: String(value.startedAt) }
      : null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : null;
  }
}

/** Tries to take a lock that went away between the try and the read: its writer ended, or another took a stale lock over. */
const RETRIES_WHEN_GONE = 100;

/**
 * Creates the lock whole: written to a temporary file, then linked into place, so a second
 * writer never reads a lock that is empty or half-written (and link is atomic on NFS too).
 */
function create(file: string, holder: LockHolder): boolean {
  return createFileWhole(file, `${JSON.stringify(holder)}\n`);
}

/**
 * Removes the lock of a holder that is gone (killed without a chance to clean up), so the
 * next attempt can take it: one process at a time (a second lock file guards the takeover,
 * itself taken over when its process is gone), and only while the lock is still that
 * holder's, so two writers starting at once never both take a stale lock.
 */
function takeOver(file: string, stale: LockHolder, me: LockHolder): void {
  const guard = `${file}.takeover`;
  const guardHolder = holderOf(guard);
  if (guardHolder !== null && guardHolder !== 'gone' && guardHolder.host === me.host && !processAlive(guardHolder.pid))
    rmSync(guard, { force: true });
  if (!create(guard, me)) return;
  try {
    const now = holderOf(file);
    if (now !== null && now !== 'gone' && now.pid === stale.pid && now.host === stale.host && now.startedAt === stale.startedAt)
      rmSync(file, { force: true });
  } finally {
    rmSync(guard, { force: true });
  }
}

/**
 * Takes the lock of the study folder `dir` (which exists); returns its release.
 * @throws ConfigError naming the holder when another writer has it (`flag` names the folder).
 */
export function lockStudyFolder(dir: string, flag = '--out', name = LOCK_FILE): () => void {
  const file = path.join(dir, name);
  const me: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0, gone = 0; ; attempt++) {
    let created: boolean;
    try {
      created = create(file, me);
    } catch (error) {
      throw new ConfigError(
        `${flag} ${dir}: cannot write its lock file ${name} (${failureReason(error)}); expected a folder this user can write`,
      );
    }
    if (created) break;
    const holder = holderOf(file);
    if (holder === 'gone' && gone++ < RETRIES_WHEN_GONE) {
      attempt--;
      continue;
    }
    if (holder === 'gone') throw new ConfigError(`${flag} ${dir}: the study's lock ${name} keeps changing hands; try again`);
    const stale = holder !== null && holder.host === me.host && holder.pid !== process.pid && !processAlive(holder.pid);
    if (!stale || attempt > 0) {
      const who =
        holder === null ? 'another writer (unreadable lock)' : `process ${holder.pid} on ${holder.host} since ${holder.startedAt}`;
      const fix =
        holder !== null && holder.host !== me.host
          ? `; if it is no longer running, remove ${file}`
          : holder === null
            ? `; if no study runs there, remove ${file}`
            : '';
      throw new ConfigError(`${flag} ${dir}: the study is in use by ${who}; wait for it to end${fix}`);
    }
    takeOver(file, holder, me);
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    rmSync(file, { force: true });
  };
  // Quitting at once (a later signal) still leaves the folder free.
  process.on('exit', release);
  return release;
}
