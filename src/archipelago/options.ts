import type { EvolverSpec } from '../ga/create-evolver.ts';
import { ArchipelagoOptionError } from './errors.ts';
import { emigrantSelectionFor, type EmigrantSelectionSpec } from './policies/emigrant-selection.ts';
import { replacementFor, type ReplacementKind } from './policies/replacement.ts';
import type { Launcher } from './launcher.ts';
import type { IslandSnapshot } from './island-snapshot.ts';
import type { TopologySpec } from './topology.ts';

export interface MigrationOptions {
  /** 'async' (default): islands never wait. 'sync': a global epoch barrier; repeatable. */
  mode: 'sync' | 'async';
  /** Iterations between migrations (an epoch, in sync mode). */
  interval: number;
  /** Emigrants per migration (a count; the config layer resolves fractions). 0 turns migration off. */
  migrants: number;
  emigrantSelection: EmigrantSelectionSpec;
  replacement: ReplacementKind;
  /** Drop immigrants equal to a current member. */
  rejectDuplicates: boolean;
}

/** A deliberate failure for tests: island `island`'s worker throws (or exits) on reaching iteration `atIteration`. */
export interface TestFault {
  island: number;
  atIteration: number;
  kind: 'throw' | 'exit';
}

export interface ArchipelagoOptions {
  seed: number;
  islands: number;
  evolver: EvolverSpec;
  topology: TopologySpec;
  migration: MigrationOptions;
  /** Iteration limit per island. */
  maxIterations?: number;
  timeLimitMs?: number;
  /** How often each island posts progress (default 250 ms). */
  progressIntervalMs?: number;
  /** 'continue' (default): the others go on, nobody waits for the failed island. 'fail': stop and reject. */
  onIslandError?: 'continue' | 'fail';
  /** Test-only fault hook; never reachable from config files (the CLI reads it from the environment: src/run/test-fault.ts). */
  testFault?: TestFault;
  /**
   * Ask every island for a snapshot this often; each complete set is one `checkpoint` event
   * (sync: taken at an epoch barrier).
   */
  checkpointEveryMs?: number;
  /** Continue from a checkpoint: one snapshot per island, in island order. */
  resume?: readonly IslandSnapshot[];
  /** Where the islands run: a warm host kept across runs (e.g. `LocalHost`); default: a local pool made for this run and closed after it. */
  launcher?: Launcher;
}

export const DEFAULT_PROGRESS_INTERVAL_MS = 250;
/** After a stop, how long islands get to finish before their workers are terminated. */
export const STOP_GRACE_MS = 2000;

/** Checks what the GA core and the config layer do not: one clear error per bad option. */
export function checkOptions(o: ArchipelagoOptions): void {
  const fail = (what: string, expected: string, got: unknown): never => {
    throw new ArchipelagoOptionError(`${what} must be ${expected}, got ${JSON.stringify(got) ?? String(got)}`);
  };
  if (!Number.isInteger(o.seed) || o.seed < 0) fail('seed', 'a non-negative integer', o.seed);
  if (!Number.isInteger(o.islands) || o.islands < 1) fail('islands', 'a positive integer', o.islands);
  // Rank selection needs two members to pick distinct parents (a population of one would spin).
  const size = o.evolver.params.populationSize;
  if (!Number.isInteger(size) || size < 2) fail('evolver.params.populationSize', 'an integer >= 2', size);
  const m = o.migration;
  if (!m) fail('migration', 'an object', m);
  if (m.mode !== 'sync' && m.mode !== 'async') fail('migration.mode', "'sync' or 'async'", m.mode);
  if (!Number.isInteger(m.interval) || m.interval < 1) fail('migration.interval', 'a positive integer', m.interval);
  if (!Number.isInteger(m.migrants) || m.migrants < 0) fail('migration.migrants', 'a non-negative integer', m.migrants);
  if (m.migrants > o.evolver.params.populationSize) {
    fail('migration.migrants', `at most the population size ${o.evolver.params.populationSize}`, m.migrants);
  }
  emigrantSelectionFor(m.emigrantSelection);
  replacementFor(m.replacement);
  if (o.maxIterations !== undefined && !(Number.isInteger(o.maxIterations) && o.maxIterations >= 0)) {
    fail('maxIterations', 'a non-negative integer', o.maxIterations);
  }
  if (o.timeLimitMs !== undefined && !(o.timeLimitMs > 0)) fail('timeLimitMs', 'a positive number', o.timeLimitMs);
  if (o.progressIntervalMs !== undefined && !(o.progressIntervalMs > 0)) {
    fail('progressIntervalMs', 'a positive number', o.progressIntervalMs);
  }
  if (o.onIslandError !== undefined && o.onIslandError !== 'continue' && o.onIslandError !== 'fail') {
    fail('onIslandError', "'continue' or 'fail'", o.onIslandError);
  }
  if (o.checkpointEveryMs !== undefined && !(o.checkpointEveryMs > 0)) fail('checkpointEveryMs', 'a positive number', o.checkpointEveryMs);
  if (o.resume !== undefined) {
    const ids = o.resume.map((s) => s?.island);
    if (ids.length !== o.islands || ids.some((id, i) => id !== i)) fail('resume', `one snapshot per island 0..${o.islands - 1}, in order`, ids);
    const epochs = new Set(o.resume.map((s) => s.epoch));
    if (o.migration.mode === 'sync' && epochs.size !== 1) fail('resume', 'snapshots of one sync epoch', [...epochs]);
  }
  if (o.maxIterations === undefined && o.timeLimitMs === undefined && o.islands > 0 && o.evolver.params.n < 4 && o.evolver.params.n !== 1) {
    fail('evolver.params.n', 'a board with a solution (1 or at least 4) when no limit is set', o.evolver.params.n);
  }
}
