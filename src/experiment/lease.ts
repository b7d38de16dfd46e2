/**
 * What a study folder's lock (lock.ts) says about its holder, and how a reader tells a live
 * holder from a dead one on any machine, with no `flock` (NFS): the holder renews a lease,
 * the time in the lock file, every sixth of LOCK_LEASE_MS; a lock not renewed for
 * LOCK_LEASE_MS is stale, whatever its pid and host say. Beside pid and host the lock names
 * the holder's boot (/proc/sys/kernel/random/boot_id), pid namespace and process start time
 * (/proc/self/stat field 22), so a reader in the same boot and namespace knows at once that
 * the holder is gone (its pid not running, or now another process); a restarted container
 * (Node as PID 1 again, same host name) is in a new namespace and waits out the lease.
 * Times are compared with the reader's clock: the nodes' clocks must agree (NTP) to well
 * within the lease.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { shortened } from '../config/test-knob.ts';
import { ConfigError } from '../config/errors.ts';
import { fileKind } from '../io/read-file.ts';
import { processAlive, procStatFields } from '../io/write-file.ts';

/** A lock not renewed for this long is stale (its holder renews it every sixth of it). */
export const LOCK_LEASE_MS = 30_000;
/** Test-only: a shorter lease (docs/development.md), so tests of a dead holder wait ~1 s, not 30. */
export const TEST_LOCK_LEASE_ENV = 'NQI_TEST_LOCK_LEASE_MS';

/** The lease: LOCK_LEASE_MS, or the shorter NQI_TEST_LOCK_LEASE_MS. @throws ConfigError for a malformed knob. */
export function lockLeaseMs(env: NodeJS.ProcessEnv = process.env): number {
  return shortened(env, TEST_LOCK_LEASE_ENV, LOCK_LEASE_MS);
}

/** How often a holder renews its lease. */
export function renewEveryMs(leaseMs: number): number {
  return Math.floor(leaseMs / 6);
}

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  /** The kernel's boot id; absent off Linux (and in locks of 0.8.0 and before). */
  bootId?: string;
  /** `pid:[inode]` of the holder's pid namespace: pids compare only within one. */
  pidNamespace?: string;
  /** /proc/PID/stat field 22: clock ticks after boot; tells a reused pid from its first process. */
  processStart?: string;
  /** ISO time of the last renewal, by the holder's clock. */
  renewedAt?: string;
  /** Random, per lock taken: a renewal checks the lock is still this one. */
  token?: string;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/PID/stat (after the command, which may hold spaces and parentheses). */
export function processStartOf(pid: number | 'self'): string | undefined {
  return procStatFields(pid)?.[19];
}

function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/** This process as a lock names it. */
export function thisHolder(): LockHolder {
  const now = new Date().toISOString();
  return {
    pid: process.pid,
    host: hostname(),
    startedAt: now,
    bootId: readText('/proc/sys/kernel/random/boot_id'),
    pidNamespace: pidNamespace(),
    processStart: processStartOf('self'),
    renewedAt: now,
    token: randomBytes(8).toString('hex'),
  };
}

/** A lock's text is JSON of a few hundred bytes: more is not a lock. */
const MAX_LOCK_BYTES = 4096;

/**
 * The holder named by the lock `file`: null for a file that names none (damaged), 'gone'
 * when there is no lock. Never blocks: a FIFO or any other non-regular file, or a link, is
 * refused (opened without blocking and without following links).
 * @throws ConfigError naming the file and what it is.
 */
export function readHolder(file: string, flag: string): LockHolder | null | 'gone' {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'gone';
    if (code === 'ELOOP') throw notALock(file, flag, 'a symbolic link');
    return null;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw notALock(file, flag, fileKind(stats));
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const length = readSync(fd, buffer, 0, MAX_LOCK_BYTES, 0);
    return holderFrom(buffer.subarray(0, length).toString('utf8'), stats.mtime);
  } finally {
    closeSync(fd);
  }
}

function notALock(file: string, flag: string, kind: string): ConfigError {
  return new ConfigError(`${flag}: the study's lock ${file} is ${kind}; expected a lock file (a regular file): remove it`);
}

const optional = (value: unknown) => (typeof value === 'string' && value.length <= 200 ? value : undefined);

/** A holder from a lock's text; an undated lock (older versions) counts as renewed when the file was last written. */
function holderFrom(text: string, written: Date): LockHolder | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  // A pid of 0 or below names a process group to kill(); a host name of megabytes would be a line of megabytes.
  const host = optional(value.host);
  if (!Number.isSafeInteger(value.pid) || (value.pid as number) <= 0 || host === undefined) return null;
  const renewedAt = optional(value.renewedAt);
  return {
    pid: value.pid as number,
    host,
    startedAt: optional(value.startedAt) ?? 'an unknown time',
    bootId: optional(value.bootId),
    pidNamespace: optional(value.pidNamespace),
    processStart: optional(value.processStart),
    renewedAt: renewedAt !== undefined && Number.isFinite(Date.parse(renewedAt)) ? renewedAt : written.toISOString(),
    token: optional(value.token),
  };
}

/**
 * What this process can tell of `holder` without its lease: 'alive', why it is certainly gone,
 * or 'unknown' (another boot, host or pid namespace: then only its lease tells).
 */
export function seenHere(holder: LockHolder, me: LockHolder): 'alive' | 'unknown' | { gone: string } {
  if (holder.bootId !== undefined && holder.bootId === me.bootId && holder.pidNamespace === me.pidNamespace) {
    if (!processAlive(holder.pid)) return { gone: 'its process is not running' };
    if (holder.processStart !== undefined && processStartOf(holder.pid) !== holder.processStart)
      return { gone: 'its pid is now another process' };
    return 'alive';
  }
  // Off Linux (no boot id on either side) the host name is all there is.
  if (holder.bootId === undefined && me.bootId === undefined && holder.host === me.host)
    return processAlive(holder.pid) ? 'alive' : { gone: 'its process is not running' };
  return 'unknown';
}

/** Whether two readings name the same lock taken (not only the same pid and host). */
export function sameLock(a: LockHolder, b: LockHolder): boolean {
  return a.pid === b.pid && a.host === b.host && a.startedAt === b.startedAt && a.token === b.token;
}

/** Milliseconds since the holder last renewed its lease, by this machine's clock. */
export function leaseAge(holder: LockHolder, now = Date.now()): number {
  return now - Date.parse(holder.renewedAt!);
}

/** `process 42 on node7 since T` */
export function holderText(holder: LockHolder): string {
  return `process ${holder.pid} on ${holder.host} since ${holder.startedAt}`;
}

/** Seconds, for messages: `31 s`, `1.5 s`. */
export function secondsText(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}
