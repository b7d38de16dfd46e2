import type { IslandSnapshot } from './island-snapshot.ts';
import type { SnapshotMessage } from './messages.ts';

/**
 * The coordinator's checkpoint requests: one at a time, each answered by every island (sync:
 * at the same epoch barrier) and complete once the last snapshot is in; with `everyMs`, one
 * is asked for that often (`request` decides whether it can be made now).
 */
export class CheckpointRequests {
  private generation = 0;
  private snapshots: (IslandSnapshot | null)[] = [];
  private answered: number;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly islands: number,
    everyMs?: number,
    request?: () => void,
  ) {
    this.answered = islands;
    this.timer = everyMs !== undefined && request ? setInterval(request, everyMs) : undefined;
  }

  /** No more requests (the run ended). */
  stop(): void {
    clearInterval(this.timer);
  }

  /** No request is waiting for answers. */
  get idle(): boolean {
    return this.answered === this.islands;
  }

  /** Request `generation` (from the coordination) is out. */
  open(generation: number): void {
    this.generation = generation;
    this.snapshots = new Array<IslandSnapshot | null>(this.islands).fill(null);
    this.answered = 0;
  }

  /** Takes one island's answer; returns every island's snapshot when it was the last one missing. */
  answer({ generation, snapshot }: SnapshotMessage): IslandSnapshot[] | null {
    if (generation !== this.generation || this.snapshots[snapshot.island]) return null;
    this.snapshots[snapshot.island] = snapshot;
    return ++this.answered === this.islands ? (this.snapshots as IslandSnapshot[]) : null;
  }
}
