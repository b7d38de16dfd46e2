import type { ArchipelagoResult } from './events.ts';

/** A bad archipelago option: one line naming the option and what was expected, so a config layer can show it as is. */
export class ArchipelagoOptionError extends Error {
  override name = 'ArchipelagoOptionError';
}

/** An island's worker threw or exited; with `onIslandError: 'fail'` the run rejects with it. */
export class IslandFailedError extends Error {
  override name = 'IslandFailedError';
  /** What the run reached before it stopped (set by the archipelago when every island has ended). */
  result: ArchipelagoResult | null = null;
  constructor(
    readonly island: number,
    readonly iteration: number,
    readonly reason: string,
  ) {
    super(`island ${island} failed at iteration ${iteration}: ${reason}`);
  }
}
