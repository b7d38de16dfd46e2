import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a whole file or nothing: the text goes to a temporary file beside the target,
 * is flushed, and is renamed over it. A crash mid-write never leaves a half-written file.
 */
export function writeFileAtomic(path: string, text: string | Uint8Array): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    const fd = openSync(temp, 'w');
    try {
      if (typeof text === 'string') writeSync(fd, text);
      else for (let at = 0; at < text.length; ) at += writeSync(fd, text, at, text.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
