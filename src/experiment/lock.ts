/**
 * One writer per study folder. A study takes `DIR/.nqueens-islands.lock` before it reads or
 * writes anything there: a file created whole and exclusively (written, then linked into
 * place: atomic on NFS too; no link followed, no `flock`) naming the holder (lease.ts). A
 * shard of a study (shard.ts) takes its own, `DIR/.nqueens-islands.lock.shard-I-of-N`: shards
 * share no lock. The holder renews its lease in the file (rewritten whole) every sixth of the
 * lease, and checks before recording each run that the lock is still its own.
 *
 * A second writer finding the lock: a holder seen alive from here (same boot and pid
 * namespace) refuses it at once; one seen gone (its pid not running, or another process) is
 * taken over at once; otherwise the lease tells: one renewed while the newcomer watches is
 * alive (refused: one line naming it, exit 2), one not renewed for the lease is stale and
 * taken over, saying so once. So a restarted container (PID 1 again, same host) and a
 * requeued Slurm task on another node continue after at most one lease, by themselves.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/errors.ts';
import { createFileWhole, failureReason, writeFileAtomic } from '../io/write-file.ts';
import {
  holderText,
  leaseAge,
  lockLeaseMs,
  readHolder,
  renewEveryMs,
  sameLock,
  secondsText,
  seenHere,
  thisHolder,
  type LockHolder,
} from './lease.ts';

export const LOCK_FILE = '.nqueens-islands.lock';

/** A lock held: `assertHeld` before each write that only the holder may make; `release` once, at the end. */
export interface StudyLock {
  /** @throws ConfigError when another process took the lock over (this one was stopped for longer than the lease). */
  assertHeld(): void;
  release(): void;
}

/** Tries to take the lock while it changes hands (its writer ended, or another took a stale lock over) before giving up. */
const RETRIES_WHEN_GONE = 100;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(1, ms));
}

const lockText = (holder: LockHolder) => `${JSON.stringify(holder)}\n`;

type Verdict = { stale: string } | { alive: string } | 'gone';

/**
 * Whether the lock `file`, held by `holder`, may be taken over: at once when this process can
 * tell, else by watching its lease (for at most the lease) until it is renewed or runs out.
 */
function judge(file: string, holder: LockHolder, me: LockHolder, where: string, note: (line: string) => void): Verdict {
  const here = seenHere(holder, me);
  if (here === 'alive') return { alive: 'it is running on this machine' };
  if (here !== 'unknown') return { stale: here.gone };
  const lease = lockLeaseMs();
  let said = false;
  for (;;) {
    const age = leaseAge(holder);
    if (age > lease) return { stale: `its lease was not renewed for ${secondsText(age)} (the lease is ${secondsText(lease)})` };
    if (!said)
      note(`${where}: waiting up to ${secondsText(lease - age)} for the lease of ${holderText(holder)} to run out (it may have died)`);
    said = true;
    sleep(Math.min(renewEveryMs(lease) / 2, lease - age + 10));
    const now = readHolder(file, where);
    if (now === 'gone') return 'gone';
    if (now === null || !sameLock(now, holder) || now.renewedAt !== holder.renewedAt)
      return { alive: `its lease was renewed ${secondsText(Math.max(0, leaseAge(now ?? holder)))} ago` };
  }
}

/**
 * Removes the stale lock `stale`, so the next attempt can take it: one process at a time (a
 * second lock file guards the takeover, itself taken over when stale), and only while the lock
 * is still that holder's, so two writers starting at once never both take a stale lock.
 */
function takeOver(file: string, stale: LockHolder, me: LockHolder, where: string): boolean {
  const guard = `${file}.takeover`;
  const guardHolder = readHolder(guard, where);
  if (guardHolder !== null && guardHolder !== 'gone') {
    const here = seenHere(guardHolder, me);
    if (here !== 'alive' && (here !== 'unknown' || leaseAge(guardHolder) > lockLeaseMs())) rmSync(guard, { force: true });
  }
  if (!createFileWhole(guard, lockText(me))) {
    // Another process is taking it over: let it finish before looking again.
    sleep(5);
    return false;
  }
  try {
    const now = readHolder(file, where);
    if (now === null || now === 'gone' || !sameLock(now, stale)) return false;
    rmSync(file, { force: true });
    return true;
  } finally {
    rmSync(guard, { force: true });
  }
}

function refused(where: string, file: string, holder: LockHolder | null, why: string): ConfigError {
  const who = holder === null ? 'another writer (unreadable lock)' : holderText(holder);
  const fix = holder === null ? `; if no study runs there, remove ${file}` : '';
  return new ConfigError(`${where}: the study is in use by ${who} (${why}); wait for it to end${fix}`);
}

/**
 * Takes the lock of the study folder `dir` (which exists), renewing its lease until released.
 * `note` hears the one line of a wait for a lease or of a takeover.
 * @throws ConfigError naming the holder when another writer has it (`flag` names the folder).
 */
export function lockStudyFolder(dir: string, flag = '--out', name = LOCK_FILE, note: (line: string) => void = () => {}): StudyLock {
  const file = path.join(dir, name);
  const where = `${flag} ${dir}`;
  const me = thisHolder();
  // Said once the lock is ours: a process that removed a stale lock may still lose the race to create it.
  let tookOver: string | null = null;
  for (let tries = 0; ; tries++) {
    let created: boolean;
    try {
      created = createFileWhole(file, lockText(me));
    } catch (error) {
      throw new ConfigError(
        `${where}: cannot write its lock file ${name} (${failureReason(error)}); expected a folder this user can write`,
      );
    }
    if (created) break;
    const holder = readHolder(file, where);
    const verdict =
      holder === null ? { alive: 'its lock cannot be read' } : holder === 'gone' ? 'gone' : judge(file, holder, me, where, note);
    if (verdict !== 'gone' && 'alive' in verdict) throw refused(where, file, holder as LockHolder | null, verdict.alive);
    if (tries >= RETRIES_WHEN_GONE) throw new ConfigError(`${where}: the study's lock ${name} keeps changing hands; try again`);
    if (verdict !== 'gone' && takeOver(file, holder as LockHolder, me, where))
      tookOver = `${where}: took over the lock of ${holderText(holder as LockHolder)}: ${verdict.stale}`;
  }
  if (tookOver !== null) note(tookOver);
  return heldLock(file, where, me);
}

/** The lock just taken: renewed on a timer (which keeps no process alive), released once. */
function heldLock(file: string, where: string, me: LockHolder): StudyLock {
  const lease = lockLeaseMs();
  let lostTo: LockHolder | 'gone' | null = null;
  const check = (): boolean => {
    if (lostTo !== null) return false;
    const now = readHolder(file, where);
    if (now !== null && now !== 'gone' && sameLock(now, me)) return true;
    lostTo ??= now ?? 'gone';
    return false;
  };
  const renew = setInterval(() => {
    try {
      // A renewal is the holder's only write to the lock; a lock no longer its own is left alone.
      const checkedAt = Date.now();
      if (check()) writeFileAtomic(file, lockText({ ...me, renewedAt: new Date().toISOString() }));
      // Stopped between the check and the rename, the write may have replaced a taker's lock:
      // the lease ran out meanwhile, so the lock counts as lost whatever the file now says.
      if (Date.now() - checkedAt > lease / 2) lostTo ??= 'gone';
      if (lostTo !== null) clearInterval(renew);
    } catch {
      // A file system away for a moment: the next renewal tries again (the lease outlasts five misses).
    }
  }, renewEveryMs(lease));
  renew.unref();
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    clearInterval(renew);
    process.off('exit', release);
    if (check()) rmSync(file, { force: true });
  };
  // Quitting at once (a later signal) still leaves the folder free.
  process.on('exit', release);
  return {
    release,
    assertHeld() {
      if (check()) return;
      const who = lostTo === 'gone' || lostTo === null ? 'nobody (its lock file was removed)' : holderText(lostTo);
      throw new ConfigError(
        `${where}: this process lost the study's lock to ${who}, as its lease of ${secondsText(lease)} was not renewed in time (was it stopped, or its file system away?); this run is not recorded; run the same command again to continue`,
      );
    },
  };
}

/**
 * What the lock `name` in `dir` says of its study's writer, for `experiment DIR --status`,
 * without waiting: `running (...)` while its lease is fresh, else `stopped (...)`.
 */
export function lockStatus(dir: string, name: string): string {
  const holder = readHolder(path.join(dir, name), `--status ${dir}`);
  if (holder === 'gone') return 'stopped (no process holds it)';
  if (holder === null) return `stopped? (its lock ${name} cannot be read)`;
  const here = seenHere(holder, thisHolder());
  const age = Math.max(0, leaseAge(holder));
  if (here !== 'unknown' && here !== 'alive') return `stopped (${holderText(holder)}: ${here.gone})`;
  if (here === 'alive' || age <= lockLeaseMs()) return `running (${holderText(holder)}, lease renewed ${secondsText(age)} ago)`;
  return `stopped (${holderText(holder)}: its lease was not renewed for ${secondsText(age)}; the next start takes it over)`;
}
