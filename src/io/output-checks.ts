/**
 * The checks of an output before any work (src/io/write-file.ts writes it): the path can be
 * written, is no study's record, is given once, and is none of the command's inputs.
 */
import { accessSync, closeSync, constants, rmSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { emptyFileName, InputError } from './errors.ts';
import { folderProblem, outputTarget, targetIdentity, type OutputTarget } from './output-target.ts';
import { studyRecordRefusal } from './study-records.ts';
import { createTemp, removeStaleTemps, writeError } from './write-file.ts';

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/**
 * An output (`--out`, `--checkpoint`, `--trace`, `--html`, `--csv`, a config's
 * `output.file`) must name a file this process can write: checked before any work starts,
 * so a bad path costs nothing. Also removes what a killed earlier write of the same file
 * left behind. `flag` is how the output is named in messages.
 * @throws InputError naming it.
 */
export function checkOutFile(flag: string, path: string): void {
  if (path === '') throw emptyFileName(flag);
  let target: OutputTarget;
  try {
    target = outputTarget(path);
  } catch (error) {
    throw new InputError(writeError(flag, path, error));
  }
  if (target.kind === 'descriptor') return;
  if (target.kind === 'stream') {
    try {
      accessSync(target.path, constants.W_OK);
      checkPermitted(target.path);
    } catch (error) {
      throw new InputError(writeError(flag, path, error));
    }
    return;
  }
  const record = studyRecordRefusal(target.path);
  if (record !== null) throw new InputError(`${flag} ${path}: ${record}`);
  const folder = dirname(target.path);
  const missing = folderProblem(folder, dirname(path));
  if (missing !== null) throw new InputError(`${flag} ${path}: ${missing}`);
  if (Buffer.byteLength(basename(target.path)) > 255) throw new InputError(`${flag} ${path}: file name too long (at most 255 bytes)`);
  try {
    // The rename needs the folder writable (access() also reports a read-only file system, even to root).
    accessSync(folder, constants.W_OK);
    checkPermitted(target.path);
    // What access() cannot tell (a folder of /proc or /sys, a server that refuses): a file made and removed as the write will make it.
    const probe = createTemp(target.path, null);
    closeSync(probe.fd);
    rmSync(probe.temp, { force: true });
  } catch (error) {
    throw new InputError(writeError(flag, path, error));
  }
  removeStaleTemps(folder, basename(target.path));
}

/**
 * Under Node's permission model (`--experimental-permission`), a path this process may not
 * write is refused before any work (access() does not see the model).
 * @throws an ERR_ACCESS_DENIED error, as Node's own, which failureReason words.
 */
export function checkPermitted(path: string): void {
  const model = (process as { permission?: { has(scope: string, reference?: string): boolean } }).permission;
  if (model === undefined || model.has('fs.write', resolve(path))) return;
  throw Object.assign(new Error('access denied'), { code: 'ERR_ACCESS_DENIED', permission: 'FileSystemWrite' });
}

/**
 * Two outputs of one command must be two files: `--out x --trace x` (also spelt `./x`, or
 * through a link) would write one over the other.
 * @throws InputError naming both.
 */
export function checkDistinctOutputs(outputs: readonly (readonly [flag: string, path: string | null | undefined])[]): void {
  const seen = new Map<string, string>();
  for (const [flag, path] of outputs) {
    if (path === null || path === undefined || path === '') continue;
    const id = targetIdentity(path);
    if (id === null) continue;
    const first = seen.get(id);
    if (first !== undefined) throw new InputError(`${flag} ${path}: the same file as ${first}; give each output its own file`);
    seen.set(id, `${flag} ${path}`);
  }
}

/** Device and inode of a folder, or null when it does not exist. */
function folderIdentity(folder: string): string | null {
  const stats = statOrNull(folder);
  return stats === null ? null : `inode:${stats.dev}:${stats.ino}`;
}

/**
 * No output may replace one of the command's own inputs: `report DIR --csv DIR/runs.jsonl`,
 * `solve --config c.yaml --out c.yaml`, a trace onto itself, each also spelt through a link
 * or `./`. `inputs` are files (which need not exist yet: a study's lock or runs file is
 * named by its folder and name); `folders` are folders all of whose contents are inputs
 * (a study's event logs).
 * @throws InputError naming the output and the input.
 */
export function checkNotInputs(
  outputs: readonly (readonly [flag: string, path: string | null | undefined])[],
  inputs: readonly (readonly [name: string, path: string | null | undefined])[],
  folders: readonly (readonly [name: string, path: string])[] = [],
): void {
  const inputIds = new Map<string, string>();
  for (const [name, path] of inputs) {
    const id = path ? targetIdentity(path) : null;
    if (id !== null) inputIds.set(id, name);
  }
  const folderIds = new Map<string, string>();
  for (const [name, path] of folders) {
    const id = folderIdentity(path);
    if (id !== null) folderIds.set(id, name);
  }
  for (const [flag, path] of outputs) {
    if (path === null || path === undefined || path === '') continue;
    const id = targetIdentity(path);
    const input = (id === null ? undefined : inputIds.get(id)) ?? folderIds.get(folderIdentity(dirname(path)) ?? '');
    if (input !== undefined)
      throw new InputError(`${flag} ${path}: is ${input}, an input of this command; not overwritten (choose another file)`);
  }
}
