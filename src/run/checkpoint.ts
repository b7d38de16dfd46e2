/**
 * Checkpoint files: every island's snapshot plus what identifies the run (tool and format
 * version, the resolved config with its seed), encoded with the thread codec (msgpackr,
 * typed arrays kept) and written whole or not at all. Reading one checks all of it and
 * answers a bad file with one ConfigError line (the CLI exits 2).
 */
import { readFileSync, statSync } from 'node:fs';
import { decodeData, encodeData } from '../archipelago/codec.ts';
import type { CheckpointEvent } from '../archipelago/events.ts';
import type { IslandSnapshot } from '../archipelago/island-snapshot.ts';
import { ConfigError } from '../config/errors.ts';
import { flagForPath, type ConfigOverrides } from '../config/flags.ts';
import { displayName } from '../config/load.ts';
import { toolInfo } from '../package-info.ts';
import { toFileShape } from '../config/file-shape.ts';
import { resolveRunConfig, systemEnv, type ResolveEnv } from '../config/resolve.ts';
import { writeFileAtomic } from '../io/write-file.ts';
import type { SeededRunConfig } from './start-run.ts';

export const CHECKPOINT_FORMAT = 'nqueens-islands checkpoint';
/** Bump when the file's shape or an island's state changes meaning. */
export const CHECKPOINT_FORMAT_VERSION = 1;

/**
 * A checkpoint file: what a run needs to continue, plus what identifies it. `config` is the
 * resolved run config in the file shape (seed included); the run layer checks it.
 */
export interface CheckpointFile {
  type: 'checkpoint';
  format: string;
  formatVersion: number;
  toolVersion: string;
  createdAt: string;
  config: unknown;
  mode: 'sync' | 'async';
  /** Sync: the epoch every island was at; async: null. */
  epoch: number | null;
  /** Seconds the run had been going when the checkpoint was taken. */
  seconds: number;
  islands: IslandSnapshot[];
}

/** Config keys a resumed run may change: how long it runs, what happens on failure, where the result goes. */
export const RESUMABLE_KEYS = ['limits.maxIterations', 'limits.timeLimit', 'onIslandError', 'output.file'] as const;

export function checkpointFile(event: CheckpointEvent, config: SeededRunConfig, previousSeconds = 0): CheckpointFile {
  return {
    type: 'checkpoint',
    format: CHECKPOINT_FORMAT,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    toolVersion: toolInfo().version,
    createdAt: new Date().toISOString(),
    config: toFileShape(config),
    mode: event.mode,
    epoch: event.epoch,
    seconds: previousSeconds + event.seconds,
    islands: event.islands,
  };
}

/** Temporary file, fsync, rename: a crash mid-write leaves the previous checkpoint intact. */
export function writeCheckpoint(file: string, checkpoint: CheckpointFile): void {
  writeFileAtomic(file, encodeData(checkpoint));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Reads and checks a checkpoint. @throws ConfigError naming the file and what is wrong. */
export function readCheckpoint(file: string, flag = '--resume'): CheckpointFile {
  const name = `${flag} ${displayName(file)}`;
  let bytes: Buffer;
  try {
    if (statSync(file).isDirectory()) throw new ConfigError(`${name}: is a directory; expected a checkpoint file`);
    bytes = readFileSync(file);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(code === 'ENOENT' ? `${name}: no such file` : `${name}: cannot read the file (${code ?? 'error'})`);
  }
  const notOne = new ConfigError(`${name}: not an nqueens-islands checkpoint (damaged, or another kind of file)`);
  let value: unknown;
  try {
    value = decodeData(bytes);
  } catch {
    throw notOne;
  }
  if (!isObject(value) || value.type !== 'checkpoint' || value.format !== CHECKPOINT_FORMAT) throw notOne;
  if (value.formatVersion !== CHECKPOINT_FORMAT_VERSION) {
    throw new ConfigError(`${name}: checkpoint format version ${String(value.formatVersion)}; this nqueens-islands reads version ${CHECKPOINT_FORMAT_VERSION}`);
  }
  const version = toolInfo().version;
  if (value.toolVersion !== version) {
    throw new ConfigError(`${name}: written by nqueens-islands ${String(value.toolVersion)}, this is ${version}; resume it with the version that wrote it`);
  }
  return value as unknown as CheckpointFile;
}

function valueAt(value: unknown, dotted: string): unknown {
  let node = value;
  for (const key of dotted.split('.')) node = isObject(node) ? node[key] : undefined;
  return node;
}

function leafPaths(value: unknown, prefix = ''): string[] {
  if (!isObject(value)) return [prefix];
  return Object.entries(value).flatMap(([key, v]) => leafPaths(v, prefix === '' ? key : `${prefix}.${key}`));
}

const RESUMABLE_FLAGS = RESUMABLE_KEYS.map((key) => flagForPath(key)).join(', ');

/**
 * The config of a resumed run: the checkpoint's, with flags for the resumable keys applied.
 * A flag that sets any other key to a different value is refused (a flag repeating the
 * saved value is fine). Also checks the snapshots against the config.
 * @throws ConfigError
 */
export function resumeConfig(checkpoint: CheckpointFile, file: string, overrides: ConfigOverrides, env: ResolveEnv = systemEnv()): SeededRunConfig {
  const name = `--resume ${displayName(file)}`;
  const damaged = (what: string) => new ConfigError(`${name}: damaged checkpoint (${what})`);
  let saved;
  try {
    saved = resolveRunConfig(checkpoint.config, `${name}: config`, {}, env);
  } catch (error) {
    if (error instanceof ConfigError && /needs about/.test(error.message)) throw error; // too big for this machine: say so
    throw damaged('its run config does not resolve');
  }
  if (saved.seed === null) throw damaged('no seed');
  const merged = resolveRunConfig(checkpoint.config, name, overrides, env);
  const before = toFileShape(saved);
  const after = toFileShape(merged);
  for (const key of leafPaths(overrides)) {
    if ((RESUMABLE_KEYS as readonly string[]).includes(key)) continue;
    const was = valueAt(before, key);
    const now = valueAt(after, key);
    if (JSON.stringify(was) !== JSON.stringify(now)) {
      throw new ConfigError(
        `${flagForPath(key) ?? key}: ${JSON.stringify(now)} contradicts the checkpoint ${displayName(file)}, which is for ${key} = ${JSON.stringify(was)}; ` +
          `with --resume only ${RESUMABLE_FLAGS} may change`,
      );
    }
  }
  checkSnapshots(checkpoint, saved, damaged);
  return { ...merged, seed: saved.seed };
}

function checkSnapshots(checkpoint: CheckpointFile, config: SeededRunConfig | ReturnType<typeof resolveRunConfig>, damaged: (what: string) => ConfigError): void {
  const { n, islands, ga } = config;
  if (checkpoint.mode !== config.migration.mode) throw damaged(`mode ${String(checkpoint.mode)} but config says ${config.migration.mode}`);
  if (!Array.isArray(checkpoint.islands) || checkpoint.islands.length !== islands) throw damaged(`expected ${islands} island snapshots`);
  checkpoint.islands.forEach((snapshot: IslandSnapshot, i) => {
    const s = snapshot?.state;
    const ok = snapshot?.island === i && isObject(s) && s.n === n
      && s.rng instanceof Int32Array && s.rng.length === 4
      && Number.isInteger(s.iterations) && Number.isInteger(s.evaluations)
      && populationOk(s.population, ga.populationSize, n) && populationOk(s.bad, ga.mode === 'paper' ? ga.badRepositorySize : 0, n)
      && (checkpoint.mode === 'async' || snapshot.epoch === checkpoint.epoch);
    if (!ok) throw damaged(`island ${i}'s snapshot does not match N = ${n} and the config`);
  });
}

function populationOk(pop: unknown, size: number, n: number): boolean {
  if (!isObject(pop)) return false;
  const { genes, fitness, order } = pop;
  if (!(genes instanceof Uint16Array || genes instanceof Int32Array) || genes.length !== size * n) return false;
  if (!(fitness instanceof Int32Array) || fitness.length !== size || !(order instanceof Int32Array) || order.length !== size) return false;
  for (let i = 0; i < genes.length; i++) if (genes[i] >= n || genes[i] < 0) return false;
  return true;
}
