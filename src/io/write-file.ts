import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InputError } from './input-error.ts';

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

/**
 * An output flag (`--out`, `--checkpoint`, `--html`, `--csv`) must name a file in an existing
 * folder: checked before any work starts, so a bad path costs nothing.
 * @throws InputError naming the flag.
 */
export function checkOutFile(flag: string, path: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    // a new file: its folder must exist
  }
  if (isDirectory) throw new InputError(`${flag} ${path}: is a directory, expected a file name`);
  try {
    if (!statSync(dirname(path)).isDirectory()) throw new Error();
  } catch {
    throw new InputError(`${flag} ${path}: folder ${dirname(path)} does not exist`);
  }
}
