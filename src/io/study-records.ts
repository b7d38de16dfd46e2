/**
 * The files that hold a study's records (src/experiment/store.ts, shard.ts, lock.ts): its
 * manifest, its runs (one file, or one per shard), its locks and its event logs. No output
 * of any command (a result, a checkpoint, a trace, a report page, an export) may be written
 * onto one, whichever study it belongs to: checkOutFile refuses it before any work. The names
 * live here, at the bottom of the layers, so every writer can ask.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export const MANIFEST_FILE = 'manifest.json';
export const RUNS_FILE = 'runs.jsonl';
export const EVENTS_DIR = 'events';
/** What a study manifest's `format` starts with (src/experiment/records.ts `MANIFEST_FORMAT`). */
export const MANIFEST_FORMAT_STEM = 'nqueens-islands/experiment-results@';

/** The names of a study folder's record files; the locks are src/experiment/lock.ts `LOCK_FILE`, with a shard's suffix. */
const RECORD_NAME =
  /^(?:manifest\.json|runs(?:\.shard-\d+-of-\d+)?(?:\.set-aside)?\.jsonl|\.nqueens-islands\.lock(?:\.shard-\d+-of-\d+)?)$/;
/** Bytes of a manifest read to find its format (written first: `{\n  "format": "..."`). */
const HEAD_BYTES = 4096;

/** The first bytes of a regular file, read without blocking (a FIFO in its place is no manifest), or null. */
function head(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const bytes = Buffer.alloc(HEAD_BYTES);
    return bytes.toString('utf8', 0, readSync(fd, bytes, 0, HEAD_BYTES, 0));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether `folder` holds a study: a manifest.json of this tool's results format, or one
 * beside the study's other records (a hand-edited manifest may have moved its format key).
 */
export function isStudyFolder(folder: string): boolean {
  const manifest = head(join(folder, MANIFEST_FILE));
  if (manifest === null) return false;
  if (manifest.includes(`"${MANIFEST_FORMAT_STEM}`)) return true;
  try {
    return readdirSync(folder).some((entry) => entry !== MANIFEST_FILE && (RECORD_NAME.test(entry) || entry === EVENTS_DIR));
  } catch {
    return false;
  }
}

/**
 * What `file` (a resolved output path: links followed) is among a study's records, as words
 * for a message (`the runs.jsonl of the study in st`), or null when it is none of them.
 */
export function studyRecordOf(file: string): string | null {
  const folder = dirname(file);
  const name = basename(file);
  // The events folder too: an export (a folder written whole in its place) must not replace it.
  if ((RECORD_NAME.test(name) || name === EVENTS_DIR) && isStudyFolder(folder)) return `${name} of the study in ${folder}`;
  if (basename(folder) === EVENTS_DIR && isStudyFolder(dirname(folder))) return `in the event logs of the study in ${dirname(folder)}`;
  return null;
}

/** The refusal of an output onto a study's record, or null: `is runs.jsonl of the study in st; ...`. */
export function studyRecordRefusal(file: string): string | null {
  const what = studyRecordOf(file);
  return what === null ? null : `is ${what}; a study's records are never written over (choose another file)`;
}
