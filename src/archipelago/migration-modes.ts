/**
 * The migration modes: how islands time their exchanges. One row each, read by the config
 * schema (`migration.mode`, its help and the `--migration` flag) and by the report, which
 * must know whether a run can be repeated from its seed. The island loop
 * (island-runner.ts) implements each.
 */
export interface MigrationModeEntry {
  readonly mode: string;
  readonly help: string;
  /** The run is a function of seed and config alone, whatever the threads' speeds. */
  readonly repeatable: boolean;
}

export const MIGRATION_MODE_REGISTRY = [
  {
    mode: 'async',
    help: 'islands send and take in whatever has arrived, never waiting; not repeatable (thread timing decides)',
    repeatable: false,
  },
  {
    mode: 'sync',
    help: 'all islands migrate in lockstep at a barrier every interval; repeatable (lagged with lag 0, with epoch-wide stops)',
    repeatable: true,
  },
  {
    mode: 'lagged',
    help: "migrants sent at iteration t enter at the receiver's iteration t + lag; an island waits only when it would get more than lag iterations ahead of a source; repeatable",
    repeatable: true,
  },
] as const satisfies readonly MigrationModeEntry[];

export type MigrationMode = (typeof MIGRATION_MODE_REGISTRY)[number]['mode'];

export const MIGRATION_MODES = MIGRATION_MODE_REGISTRY.map((m) => m.mode) as [MigrationMode, ...MigrationMode[]];

/** Whether runs in `mode` repeat bit for bit from their seed (false for a name this version does not know). */
export function isRepeatable(mode: string): boolean {
  return MIGRATION_MODE_REGISTRY.find((m) => m.mode === mode)?.repeatable ?? false;
}
