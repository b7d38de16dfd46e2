import type { ArchipelagoResult } from './events.ts';

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
