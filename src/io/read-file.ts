/**
 * Reading an input file with bounds: regular files only (a FIFO would hang the read, a
 * device such as /dev/zero would never end) and at most `maxBytes`, so a wrong path costs
 * one clear line at once instead of a hang, an exhausted heap or a minute of parsing.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { emptyFileName, InputError, isDirectory, unreadableFile } from './errors.ts';

const MB = 1024 * 1024;

/** Config and experiment files are written by hand; parsing 1 MB of YAML already takes seconds. */
export const MAX_CONFIG_BYTES = MB;

/** What a non-regular file is, in words. */
export function fileKind(stats: Stats): string {
  if (stats.isFile()) return 'a file';
  // Stats of lstat() (a link's own): the link itself is what stands there.
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function sizeText(bytes: number): string {
  return bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${bytes} bytes`;
}

export interface ReadBounds {
  /** How the file is named in messages: `--file x.txt`, `config/x.yaml`. */
  name: string;
  /** What was expected, for messages: `a YAML or JSON file`. */
  expected: string;
  maxBytes: number;
}

/**
 * The whole content of a regular file of at most `maxBytes`.
 * @throws InputError naming the file: missing, unreadable, not a regular file, too large.
 */
export function readRegularFile(path: string, { name, expected, maxBytes }: ReadBounds): Buffer {
  if (path === '') throw emptyFileName(name);
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError(`${name}: no such file`);
    if (code === 'ENOTDIR') throw new InputError(`${name}: no such file (a part of the path is not a folder)`);
    if (code === 'EACCES' || code === 'EPERM') throw unreadableFile(name, 'permission denied');
    if (code === 'EISDIR') throw isDirectory(name, expected);
    throw unreadableFile(name, code ?? (error as Error).message);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new InputError(`${name}: is ${fileKind(stats)}; expected ${expected}`);
    if (stats.size > maxBytes)
      throw new InputError(`${name}: is ${sizeText(stats.size)}, more than the ${sizeText(maxBytes)} allowed for ${expected}`);
    // Read to the end, never past the cap: the file may grow while it is read.
    let buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, stats.size + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) break;
        const grown = Buffer.allocUnsafe(Math.min(maxBytes + 1, 2 * length));
        buffer.copy(grown);
        buffer = grown;
      }
      const got = readSync(fd, buffer, length, buffer.length - length, null);
      if (got === 0) break;
      length += got;
    }
    if (length > maxBytes) throw new InputError(`${name}: is more than the ${sizeText(maxBytes)} allowed for ${expected}`);
    return buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw isDirectory(name, expected);
    throw unreadableFile(name, code ?? (error as Error).message);
  } finally {
    closeSync(fd);
  }
}

/**
 * As readRegularFile, as UTF-8 text without a byte-order mark. A lone CR (classic Mac line
 * ends) is a line end, as LF and CRLF are: read as LF (CRLF is left for the parsers, which
 * take it).
 */
export function readRegularText(path: string, bounds: ReadBounds): string {
  return readRegularFile(path, bounds)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .replace(/\r(?!\n)/g, '\n');
}
