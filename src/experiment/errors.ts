/**
 * The study layer's repeated messages, each made in one place: a study folder whose files
 * cannot be read or checked, and a folder flag (--out, --ioh) that names no folder. All are
 * ConfigErrors: bad input, one line, exit 2.
 */
import { existsSync, statSync } from 'node:fs';
import { ConfigError } from '../config/errors.ts';
import { fileKind } from '../io/read-file.ts';

/** A file of a study folder that cannot be read or checked; `problem` names the file and what is wrong. */
export function damagedFolder(problem: string): ConfigError {
  return new ConfigError(`${problem}; the folder is damaged`);
}

/** `flag` given an empty string instead of a folder. */
export function emptyFolderFlag(flag: string): ConfigError {
  return new ConfigError(`${flag}: expected a folder, got an empty string`);
}

/** Refuses `dir` for `flag` when it is empty or something other than a folder (a missing one is fine). @throws ConfigError */
export function checkFolderFlag(flag: string, dir: string): void {
  if (dir === '') throw emptyFolderFlag(flag);
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new ConfigError(`${flag} ${dir}: is ${fileKind(statSync(dir))}; expected a folder`);
}
