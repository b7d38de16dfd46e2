import type { GaModeRegistry } from '../ga/create-evolver.ts';
import type { TopologyRegistry } from '../topology/topology.ts';
import { ArchipelagoOptionError } from './errors.ts';
import type { Launcher } from './launcher.ts';
import type { IslandSnapshot } from './island-snapshot.ts';
import type { BetweenPoint } from './observables/between.ts';
import type { RunSpec } from './island-options.ts';
import type { MigrationModeDefinition, MigrationModeRegistry } from './modes/define.ts';
import { migrationModeOf } from './modes/registry.ts';
import { shown } from '../io/shown.ts';

export interface ArchipelagoOptions {
  /**
   * The resolved run (a `SeededRunConfig` is one; src/config). Each island's task carries
   * its `RunSpec` part unchanged; limits are null for none.
   */
  run: RunSpec;
  /** How often each island posts progress (default 250 ms). */
  progressIntervalMs?: number;
  /**
   * Ask every island for a snapshot this often; each complete set is one `checkpoint` event
   * (modes that checkpoint at a barrier take them at one, sync's epoch barrier).
   */
  checkpointEveryMs?: number;
  /**
   * Ask for one checkpoint at a known point of the search, whatever the clock: every island
   * answers once it has done this iteration (sync: at the first barrier at or after it). A
   * checkpoint at a point chosen in advance (tests take one at each iteration of a run).
   */
  checkpointAtIteration?: number;
  /** Continue from a checkpoint: one snapshot per island, in island order. */
  resume?: readonly IslandSnapshot[];
  /** With `resume`: the checkpoint's between-island points (CheckpointEvent.between). */
  resumeBetween?: readonly BetweenPoint[];
  /**
   * URLs of extension modules (`extension.ts`) that every island imports: policies the
   * built-in registries lack, which `migration` may then name.
   */
  extensions?: readonly string[];
  /**
   * Worker threads for the islands on this machine (a placement setting: sync and lagged
   * records are the same for any count); default: one per island up to the cores. Hosts of
   * a cluster use their own.
   */
  threads?: number | null;
  /** Where the islands run: a warm host kept across runs (e.g. `LocalHost`); default: a local pool made for this run and closed after it. */
  launcher?: Launcher;
  /**
   * The migration modes `run.migration.mode` may name (default: the built-in ones). A mode
   * from an extension module is in this list and in the module, which `extensions` names.
   */
  migrationModes?: MigrationModeRegistry;
  /** The GA modes whose coordinator hooks `run.ga.mode` may name (default: the built-in ones). */
  gaModes?: GaModeRegistry;
  /** The topologies `run.topology.kind` may name, built here (default: the built-in ones; a test's copy has more). */
  topologies?: TopologyRegistry;
}

export const DEFAULT_PROGRESS_INTERVAL_MS = 250;
/** After a stop, how long islands get to finish before their workers are terminated. */
export const STOP_GRACE_MS = 2000;

/**
 * Checks what the run config's schema does not: that the migration mode is one the
 * coordinator knows (its definition is returned), and a resume's snapshots against the run. The
 * rest of the options come from a checked `RunConfig` (src/config) and are not checked again.
 */
export function checkOptions(o: ArchipelagoOptions): MigrationModeDefinition {
  const fail = (what: string, expected: string, got: unknown): never => {
    throw new ArchipelagoOptionError(`${what} must be ${expected}, got ${shown(got)}`);
  };
  const mode = migrationModeOf(o.run.migration.mode, o.migrationModes, 'run.migration.mode', (m) => new ArchipelagoOptionError(m));
  if (o.resume !== undefined) {
    const { islands, migration } = o.run;
    const ids = o.resume.map((s) => s?.island);
    if (ids.length !== islands || ids.some((id, i) => id !== i)) fail('resume', `one snapshot per island 0..${islands - 1}, in order`, ids);
    const epochs = new Set(o.resume.map((s) => s.epoch));
    if (mode.coordinator.checkpoints === 'barrier' && epochs.size !== 1)
      fail('resume', `snapshots of one ${migration.mode} epoch`, [...epochs]);
  }
  return mode;
}
