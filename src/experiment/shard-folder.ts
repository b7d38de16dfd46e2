/**
 * The folder of a study run in shards (shard.ts), shared by all of them, perhaps over NFS:
 * `manifest.json`, made whole by whichever shard comes first (written, then linked into
 * place: the others find it there and check they run the same study), and one records file
 * per shard, `runs.shard-I-of-N.jsonl`, written by that shard alone with the crash rules of
 * runs.jsonl (store.ts). Each shard holds only its own lock, against a second copy of itself.
 * Nothing is renamed across folders and no file is written by two processes.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/errors.ts';
import { fileKind } from '../io/read-file.ts';
import { createFileWhole, failureReason } from '../io/write-file.ts';
import { damagedFolder } from './errors.ts';
import type { Experiment } from './load.ts';
import { LOCK_FILE } from './lock.ts';
import { checkSameStudy, newManifest } from './manifest.ts';
import { planRuns, recordedRuns, type StudyFiles } from './plan.ts';
import { EVENTS_DIR, MANIFEST_FILE, readManifest } from './store.ts';
import { dealingOf, shardOfFile, shardRunsFile, shardSlice, type Shard } from './shard.ts';

/** The lock of one shard (lock.ts): its own, so shards never wait for each other. */
export function shardLockFile(shard: Shard): string {
  return `${LOCK_FILE}.shard-${shard.index}-of-${shard.count}`;
}

/** Whether `entry` of a study folder is one a shard of a study may have made there (before its manifest appears). */
function shardEntry(entry: string): boolean {
  // A lock, or a lock's temporary file (its name with one more dot before it) while it is created.
  const bare = entry.replace(/^\.+/, '');
  return (
    bare.startsWith(LOCK_FILE.slice(1)) ||
    shardOfFile(entry) !== null ||
    entry === EVENTS_DIR ||
    entry.startsWith(`.${MANIFEST_FILE}.`) ||
    /^\.runs\.shard-/.test(entry)
  );
}

/**
 * Makes the shard's records file if it is missing. Opened without blocking: a FIFO in its
 * place is refused at once (it would block open() where no signal ends the wait).
 * @throws ConfigError naming it.
 */
function touchRecords(outDir: string, shard: Shard): void {
  const file = path.join(outDir, shardRunsFile(shard));
  const notRecords = (kind: string) => damagedFolder(`${file}: is ${kind}; expected a file of run records (JSON lines)`);
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (error) {
    // ENXIO: a FIFO nobody reads.
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') throw notRecords('a FIFO (named pipe)');
    throw new ConfigError(
      `--out ${outDir}: cannot create ${shardRunsFile(shard)} (${failureReason(error)}); expected a folder this user can write`,
    );
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw notRecords(fileKind(stats));
  } finally {
    closeSync(fd);
  }
}

/** A new study's manifest, unless another shard made one first: then that one. */
function sharedManifest(experiment: Experiment, outDir: string, shard: Shard, events: boolean) {
  const file = path.join(outDir, MANIFEST_FILE);
  const fresh = newManifest(experiment, events, shard.count);
  let created: boolean;
  try {
    created = createFileWhole(file, `${JSON.stringify(fresh, null, 2)}\n`);
  } catch (error) {
    throw new ConfigError(
      `--out ${outDir}: cannot write ${MANIFEST_FILE} (${failureReason(error)}); expected a folder this user can write`,
    );
  }
  return created ? { manifest: fresh, created } : { manifest: readManifest(file), created };
}

/**
 * Makes the shared folder ready for `shard` (the folder exists and the shard's lock is held):
 * the study's manifest, made or checked, and the shard's own records so far.
 * @throws ConfigError when the folder holds something else, another study, or a cut into another count.
 */
export function shardFiles(
  experiment: Experiment,
  options: { outDir: string; events: boolean; mixedBuilds?: boolean },
  shard: Shard,
): StudyFiles {
  const { outDir } = options;
  const what = `--shard ${shard.index}/${shard.count}`;
  let entries: string[];
  try {
    entries = readdirSync(outDir);
  } catch (error) {
    throw new ConfigError(`--out ${outDir}: cannot read the folder (${failureReason(error)})`);
  }
  if (!entries.includes(MANIFEST_FILE) && !entries.every(shardEntry))
    throw new ConfigError(
      `--out ${outDir}: the folder holds other files and no study; ${what} needs a new folder or one its study's shards share`,
    );
  const { manifest, created } = sharedManifest(experiment, outDir, shard, options.events);
  if (!created) {
    if (manifest.shards !== shard.count)
      throw new ConfigError(
        manifest.shards === undefined
          ? `--out ${outDir}: the study in this folder is run by one process, not in shards; ${what} needs a folder of its own`
          : `${what}: the study in ${outDir} is cut into ${manifest.shards} shards, not ${shard.count}; run its shards with --shard I/${manifest.shards}`,
      );
    // Each record carries the build that made it: a shard of another build is accepted only knowingly.
    checkSameStudy(manifest, experiment, outDir, options.mixedBuilds);
  }
  const runsFile = path.join(outDir, shardRunsFile(shard));
  // The file says the shard started, even one whose slice is empty (more shards than runs).
  touchRecords(outDir, shard);
  return { manifest, runsFile, plan: shardSlice(planRuns(experiment), shard, dealingOf(manifest)), ...recordedRuns(runsFile, manifest) };
}
