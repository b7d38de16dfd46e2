import type { IslandState } from '../ga/snapshot.ts';

/** One island's part of a checkpoint: its GA state and the runner's counters. */
export interface IslandSnapshot {
  island: number;
  /** Sync: the epoch barrier it was taken at (the same for every island); async: 0. */
  epoch: number;
  state: IslandState;
  migrantsSent: number;
  migrantsAccepted: number;
}
