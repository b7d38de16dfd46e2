/**
 * Checkpoint files: every island's snapshot plus what identifies the run (tool and format
 * version, the resolved config with its seed and its schema version), encoded with the
 * thread codec (msgpackr, typed arrays kept) and written whole or not at all. Reading one
 * checks all of it (the config against the resolved config's schema: it is never resolved
 * again from a file shape) and answers a bad file with one ConfigError line (the CLI exits 2).
 */
import { constants as bufferLimits } from 'node:buffer';
import { createHash } from 'node:crypto';
import { decodeData, encodeData } from '../archipelago/codec.ts';
import type { CheckpointEvent } from '../archipelago/events.ts';
import type { IslandSnapshot } from '../archipelago/island-snapshot.ts';
import type { BetweenPoint } from '../archipelago/observables/between.ts';
import { migrationModeOf } from '../archipelago/modes/registry.ts';
import { islandRunOf } from '../archipelago/island-options.ts';
import { ConfigError } from '../config/errors.ts';
import { flagForPath } from '../config/flags.ts';
import type { ConfigOverrides } from '../config/overrides.ts';
import { displayName } from '../config/config-file.ts';
import { toolInfo } from '../package-info.ts';
import { provenance, type Provenance } from '../provenance.ts';
import { toFileShape } from '../config/file-shape.ts';
import { runMemoryAdvice } from '../config/memory.ts';
import { valueAt } from '../config/overrides.ts';
import { RESUMABLE_KEYS, systemEnv, withResumableOverrides, type ResolveEnv } from '../config/resolve.ts';
import { checkResolved, RESOLVED_CONFIG_VERSION } from '../config/resolved-schema.ts';
import { InputError } from '../io/errors.ts';
import { isPlainObject } from '../io/json-text.ts';
import { DiagonalMarks, fitness as computeFitness } from '../problem/fitness.ts';
import type { Genes } from '../problem/genes.ts';
import { countDiagonals, listCovers, newBoard } from '../ga/hybrid/diagonals.ts';
import { gaModeOf } from '../ga/create-evolver.ts';
import { readRegularFile } from '../io/read-file.ts';
import { writeFileAtomic } from '../io/write-file.ts';
import type { SeededRunConfig } from './start-run.ts';
import { checkBetween, checkRunnerParts } from './checkpoint-parts.ts';

export const CHECKPOINT_FORMAT = 'nqueens-islands checkpoint';
/**
 * Bump when the file's shape or an island's state changes meaning. 2: the config is the
 * resolved one, with `configVersion`. 4: the migrants in flight, the runner's counts and logs,
 * the lagged history and the between-island points, so that a resumed run is the
 * uninterrupted one (older files are refused: resumed, they would lose their migrants in flight).
 */
export const CHECKPOINT_FORMAT_VERSION = 4;

/**
 * A checkpoint file: what a run needs to continue, plus what identifies it. `config` is the
 * resolved run config itself (seed included), of schema version `configVersion`.
 */
export interface CheckpointFile {
  type: 'checkpoint';
  format: string;
  formatVersion: number;
  toolVersion: string;
  createdAt: string;
  configVersion: number;
  config: SeededRunConfig;
  mode: string;
  /** Modes that checkpoint at a barrier (sync): the epoch every island was at; otherwise null. */
  epoch: number | null;
  /** Seconds the run had been going when the checkpoint was taken. */
  seconds: number;
  islands: IslandSnapshot[];
  /** The between-island points of the run so far (CheckpointEvent.between). */
  between: BetweenPoint[];
  /** What wrote it: tool, version, commit, the hash of `config`, machine. */
  provenance: Provenance;
}

export function checkpointFile(event: CheckpointEvent, config: SeededRunConfig, previousSeconds = 0): CheckpointFile {
  return {
    type: 'checkpoint',
    format: CHECKPOINT_FORMAT,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    toolVersion: toolInfo().version,
    createdAt: new Date().toISOString(),
    configVersion: RESOLVED_CONFIG_VERSION,
    config,
    mode: event.mode,
    epoch: event.epoch,
    seconds: previousSeconds + event.seconds,
    islands: event.islands,
    between: event.between,
    // The same hash as the run's record (of the config as people read it).
    provenance: provenance(toFileShape(config)),
  };
}

/** Temporary file, fsync, rename: a crash mid-write leaves the previous checkpoint intact. */
export function writeCheckpoint(file: string, checkpoint: CheckpointFile): void {
  writeFileAtomic(file, encodeCheckpoint(checkpoint));
}

const CHECKSUM_BYTES = 32;

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}

/**
 * A checkpoint's bytes (format version 3 on): its msgpack encoding, then the SHA-256 of that.
 * Every check of the contents passes a flipped bit in a random-number state, so the checksum
 * is what refuses it.
 */
export function encodeCheckpoint(checkpoint: CheckpointFile): Buffer {
  const payload = encodeData(checkpoint);
  return Buffer.concat([payload, sha256(payload)]);
}

/** What checkpoint bytes hold, their checksum unchecked (for tools and tests that look inside one). */
export function checkpointContents(bytes: Buffer): unknown {
  return decodeCheckpoint(bytes)?.value;
}

/** The decoded contents of checkpoint bytes, with whether their checksum holds; null for bytes that are no msgpack at all. */
function decodeCheckpoint(bytes: Buffer): { value: unknown; checksummed: boolean; sealed: boolean } | null {
  if (bytes.length > CHECKSUM_BYTES) {
    const payload = bytes.subarray(0, bytes.length - CHECKSUM_BYTES);
    const sealed = sha256(payload).equals(bytes.subarray(bytes.length - CHECKSUM_BYTES));
    try {
      return { value: decodeData(payload), checksummed: true, sealed };
    } catch {
      // Not this format: perhaps an older one, without a checksum (below).
    }
  }
  try {
    return { value: decodeData(bytes), checksummed: false, sealed: false };
  } catch {
    return null;
  }
}

/** Reads and checks a checkpoint. @throws ConfigError naming the file and what is wrong. */
export function readCheckpoint(file: string, flag = '--resume'): CheckpointFile {
  const name = `${flag} ${displayName(file)}`;
  let bytes: Buffer;
  try {
    // A checkpoint's size follows from its config, checked below; the cap only keeps a wrong file from filling the heap.
    bytes = readRegularFile(file, { name, expected: 'a checkpoint file', maxBytes: bufferLimits.MAX_LENGTH });
  } catch (error) {
    throw error instanceof InputError ? new ConfigError(error.message) : error;
  }
  const notOne = new ConfigError(`${name}: not an nqueens-islands checkpoint (damaged, or another kind of file)`);
  const decoded = decodeCheckpoint(bytes);
  const value = decoded?.value;
  if (!isPlainObject(value) || value.type !== 'checkpoint' || value.format !== CHECKPOINT_FORMAT) throw notOne;
  const damaged = new ConfigError(
    `${name}: damaged checkpoint (its SHA-256 checksum does not match its contents: a byte was changed); not resumed`,
  );
  // With a checksum that fails, even the format version read may be the changed byte.
  if (decoded!.checksummed && !decoded!.sealed) throw damaged;
  const writer = typeof value.toolVersion === 'string' ? value.toolVersion.slice(0, 40) : 'an unknown version';
  if (value.formatVersion !== CHECKPOINT_FORMAT_VERSION) {
    throw new ConfigError(
      `${name}: checkpoint format version ${String(value.formatVersion)}, written by nqueens-islands ${writer}; this nqueens-islands reads version ${CHECKPOINT_FORMAT_VERSION}`,
    );
  }
  if (!decoded!.sealed) throw damaged;
  const version = toolInfo().version;
  if (value.toolVersion !== version) {
    throw new ConfigError(`${name}: written by nqueens-islands ${writer}, this is ${version}; resume it with the version that wrote it`);
  }
  if (value.configVersion !== RESOLVED_CONFIG_VERSION)
    throw new ConfigError(
      `${name}: damaged checkpoint (config schema version ${String(value.configVersion)}, expected ${RESOLVED_CONFIG_VERSION})`,
    );
  const checked = checkResolved('seeded', value.config);
  if ('problem' in checked) throw new ConfigError(`${name}: damaged checkpoint (config: ${checked.problem})`);
  return { ...(value as unknown as CheckpointFile), config: checked.config };
}

function leafPaths(value: unknown, prefix = ''): string[] {
  if (!isPlainObject(value)) return [prefix];
  return Object.entries(value).flatMap(([key, v]) => leafPaths(v, prefix === '' ? key : `${prefix}.${key}`));
}

const RESUMABLE_FLAGS = RESUMABLE_KEYS.map((key) => flagForPath(key)).join(', ');

/**
 * The config of a resumed run: the checkpoint's resolved config as it is, with flags for the
 * resumable keys applied (checked as the config's own values are). A flag that sets any other
 * key to a value other than the checkpoint's (as `config print` writes it) is refused; one
 * repeating it is fine. Also checks that this machine has the memory, and the snapshots
 * against the config.
 * @throws ConfigError
 */
export function resumeConfig(
  checkpoint: CheckpointFile,
  file: string,
  overrides: ConfigOverrides,
  env: ResolveEnv = systemEnv(),
): SeededRunConfig {
  const name = `--resume ${displayName(file)}`;
  const damaged = (what: string) => new ConfigError(`${name}: damaged checkpoint (${what})`);
  const saved = checkpoint.config;
  const shape = toFileShape(saved);
  for (const key of leafPaths(overrides)) {
    if ((RESUMABLE_KEYS as readonly string[]).includes(key)) continue;
    const was = valueAt(shape, key);
    const now = valueAt(overrides, key);
    if (JSON.stringify(was) !== JSON.stringify(now)) {
      throw new ConfigError(
        `${flagForPath(key) ?? key}: ${JSON.stringify(now)} contradicts the checkpoint ${displayName(file)}, ${was === undefined ? `which has no ${key}` : `which is for ${key} = ${JSON.stringify(was)}`}; ` +
          `with --resume only ${RESUMABLE_FLAGS} may change`,
      );
    }
  }
  // A machine fact, not a config check: the checkpoint may come from a larger machine.
  const tooBig = runMemoryAdvice(saved, env);
  if (tooBig) throw new ConfigError(`${name}: n: ${tooBig}`);
  checkSnapshots(checkpoint, saved, damaged);
  const resumed = withResumableOverrides(saved, name, overrides);
  checkLimitsAhead(checkpoint, overrides, resumed.limits, displayName(file));
  return resumed;
}

/**
 * A limit a resume sets must still lie ahead of what the checkpoint has done: one below it
 * would end the run at once past its own limit (a budget B with more than B evaluations spent).
 * The checkpoint's own limits are its run's (a budgeted run's islands go one iteration past its cut).
 */
function checkLimitsAhead(checkpoint: CheckpointFile, overrides: ConfigOverrides, limits: SeededRunConfig['limits'], file: string): void {
  const { islands } = checkpoint;
  const ran = [
    ['limits.maxEvaluations', limits.maxEvaluations, islands.reduce((sum, island) => sum + island.state.evaluations, 0), 'evaluations'],
    ['limits.maxIterations', limits.maxIterations, Math.max(...islands.map((island) => island.state.iterations)), 'iterations'],
  ] as const;
  for (const [key, limit, done, what] of ran) {
    if (valueAt(overrides, key) !== undefined && limit !== null && limit < done)
      throw new ConfigError(
        `${flagForPath(key) ?? key}: ${limit} is below the ${done} ${what} the checkpoint ${file} has already run; expected at least ${done}, or null (no limit)`,
      );
  }
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Checks every island's state as a worker would trust it: nothing is taken on faith, so a
 * damaged or edited checkpoint is refused here, naming what is wrong, instead of failing
 * (or silently computing something else) inside a worker.
 */
function checkSnapshots(checkpoint: CheckpointFile, config: SeededRunConfig, damaged: (what: string) => ConfigError): void {
  const { n, islands } = config;
  if (checkpoint.mode !== config.migration.mode) throw damaged(`mode ${String(checkpoint.mode)} but config says ${config.migration.mode}`);
  // Modes that checkpoint at a barrier name its epoch, in the checkpoint and in every snapshot.
  const atBarrier = migrationModeOf(checkpoint.mode).coordinator.checkpoints === 'barrier';
  if (atBarrier ? !isCount(checkpoint.epoch) : checkpoint.epoch !== null)
    throw damaged(`epoch ${String(checkpoint.epoch)} for a ${checkpoint.mode} run`);
  if (typeof checkpoint.seconds !== 'number' || !(checkpoint.seconds >= 0) || !Number.isFinite(checkpoint.seconds))
    throw damaged(`seconds ${String(checkpoint.seconds)}`);
  if (!Array.isArray(checkpoint.islands) || checkpoint.islands.length !== islands) throw damaged(`expected ${islands} island snapshots`);
  const marks = new DiagonalMarks(n);
  const paperFitness: Scorer = (genes, offset) => computeFitness(genes, offset, n, marks);
  checkpoint.islands.forEach((snapshot: IslandSnapshot, i) => {
    const island = (what: string) => damaged(`island ${i}: ${what}`);
    if (!isPlainObject(snapshot) || snapshot.island !== i) throw damaged(`island snapshot ${i} is missing or out of order`);
    const s = snapshot.state;
    // An island in a group runs the group's GA (its mode, population and repository).
    const { ga } = islandRunOf(config, i);
    const fitnessOf = gaModeOf(ga.mode).fitnessOf?.({ ...ga, n }, config.seed) ?? paperFitness;
    if (!isPlainObject(s) || s.n !== n) throw island(`its state is not for N = ${n}`);
    const epoch = atBarrier ? checkpoint.epoch : 0;
    if (snapshot.epoch !== epoch) throw island(`epoch ${String(snapshot.epoch)}, expected ${epoch}`);
    for (const key of ['iterations', 'evaluations'] as const) if (!isCount(s[key])) throw island(`${key} ${String(s[key])} is not a count`);
    for (const key of ['migrantsSent', 'migrantsAccepted'] as const)
      if (!isCount(snapshot[key])) throw island(`${key} ${String(snapshot[key])} is not a count`);
    // xoshiro128** never leaves the all-zero state once in it: every draw would be 0.
    if (!(s.rng instanceof Int32Array) || s.rng.length !== 4) throw island('the random-number state is not 4 32-bit words');
    if (s.rng.every((word) => word === 0)) throw island('the random-number state is all zero');
    checkPopulation(s.population, ga.populationSize, n, fitnessOf, (what) => island(`population: ${what}`));
    checkPopulation(s.bad, ga.mode === 'paper' ? ga.badRepositorySize : 0, n, fitnessOf, (what) => island(`bad repository: ${what}`));
    if (s.lists !== undefined)
      checkConflictLists(s.lists, s.population.genes, ga.populationSize, n, (what) => island(`conflict lists: ${what}`));
    if (s.takenOverAt !== undefined && !(Number.isSafeInteger(s.takenOverAt) && s.takenOverAt >= -1 && s.takenOverAt <= s.iterations))
      throw island(`takenOverAt ${String(s.takenOverAt)} is not an iteration of the island`);
    checkRunnerParts(snapshot, { n, islands, populationSize: ga.populationSize }, island);
  });
  checkBetween(checkpoint.between, damaged);
}

/** The hybrid's conflict lists: one per member, each covering the member's conflicts (hybrid/diagonals.ts, `listCovers`). */
function checkConflictLists(lists: unknown, genes: Genes, size: number, n: number, damaged: (what: string) => ConfigError): void {
  if (!Array.isArray(lists) || lists.length !== size) throw damaged(`expected ${size} lists`);
  lists.forEach((list: unknown, s) => {
    if (!(list instanceof Int32Array) || list.length > 2 * n) throw damaged(`list ${s} is not a list of columns`);
    const board = newBoard(n, genes, s * n);
    countDiagonals(board);
    if (!listCovers(board, list)) throw damaged(`list ${s} misses queens in conflict (or names a column outside 0..${n - 1})`);
  });
}

/** A member's fitness as its mode scores it. */
type Scorer = (genes: Genes, offset: number) => number;

/** Genes are permutations of 0..N-1, fitness is what the genes score, the ranking orders every slot by fitness. */
function checkPopulation(pop: unknown, size: number, n: number, fitnessOf: Scorer, damaged: (what: string) => ConfigError): void {
  if (!isPlainObject(pop)) throw damaged('missing');
  const { genes, fitness, order } = pop;
  if (!(genes instanceof Uint16Array || genes instanceof Int32Array) || genes.length !== size * n)
    throw damaged(`expected ${size} chromosomes of ${n} genes`);
  if (!(fitness instanceof Int32Array) || fitness.length !== size) throw damaged(`expected ${size} fitness values`);
  if (!(order instanceof Int32Array) || order.length !== size) throw damaged(`expected a ranking of ${size} slots`);
  const seen = new Int32Array(Math.max(n, size)).fill(-1);
  for (let c = 0; c < size; c++) {
    for (let g = c * n; g < (c + 1) * n; g++) {
      const gene = genes[g];
      if (gene < 0 || gene >= n || seen[gene] === c) throw damaged(`chromosome ${c} is not a permutation of 0..${n - 1}`);
      seen[gene] = c;
    }
    const f = fitnessOf(genes, c * n);
    if (fitness[c] !== f) throw damaged(`chromosome ${c} has fitness ${f}, the file says ${fitness[c]}`);
  }
  seen.fill(-1);
  for (let r = 0; r < size; r++) {
    const slot = order[r];
    if (slot < 0 || slot >= size || seen[slot] === 0)
      throw damaged(`ranking entry ${r} (${slot}) is not a slot 0..${size - 1} listed once`);
    seen[slot] = 0;
    // Exactly what Population.rerank makes: by fitness, ties by slot (the restored island trusts it).
    const before = r > 0 ? order[r - 1] : -1;
    if (r > 0 && (fitness[slot] < fitness[before] || (fitness[slot] === fitness[before] && slot < before))) {
      throw damaged(`the ranking is not by fitness (ties by slot) at rank ${r}`);
    }
  }
}
