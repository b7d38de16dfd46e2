/**
 * A checkpoint file is written over again and again, so `--checkpoint` onto a file that is
 * not a checkpoint would lose it without a word (it is a `--resume` input too, not a result
 * to be replaced). A regular file that is there and not empty must read as a checkpoint of
 * this tool: its format name comes within the first bytes of every format version.
 */
import { closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { InputError } from '../io/errors.ts';
import { failureReason } from '../io/write-file.ts';
import { CHECKPOINT_FORMAT } from './checkpoint.ts';

/** How far into the file the format name is looked for (it is about 130 bytes in). */
const HEAD_BYTES = 4096;

/** @throws InputError naming the file when it holds something other than a checkpoint. */
export function checkCheckpointTarget(flag: string, file: string): void {
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isFile() || stats.size === 0) return;
  if (!headOf(flag, file, Math.min(HEAD_BYTES, stats.size)).includes(CHECKPOINT_FORMAT))
    throw new InputError(
      `${flag} ${file}: the file is there and is not a checkpoint; a checkpoint is written only over another one (remove it or name another file)`,
    );
}

/** The file's first `bytes`; non-blocking, so a FIFO swapped in after the stat cannot hang the check. */
function headOf(flag: string, file: string, bytes: number): Buffer {
  const head = Buffer.alloc(bytes);
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      readSync(fd, head, 0, bytes, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new InputError(`${flag} ${file}: the file is there and cannot be read to see that it is a checkpoint (${failureReason(error)})`);
  }
  return head;
}
