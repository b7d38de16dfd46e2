import { DEPARTED, HALTED, type IslandCoordination } from '../coordination.ts';
import type { MigrantsMessage } from '../messages.ts';
import type { IslandTransport } from '../island-transport.ts';
import { WAITING, type Steps } from '../island-thread.ts';

/**
 * The migrants an island waits for, per source (sync and lagged modes): messages of later
 * epochs or iterations that arrived while an earlier one was wanted are kept here.
 */
export class Inbox {
  private readonly pending: MigrantsMessage[][];

  constructor(
    private readonly transport: IslandTransport,
    private readonly shared: IslandCoordination,
    arriving: readonly MigrantsMessage[] = [],
  ) {
    this.pending = transport.sources.map(() => []);
    // A resumed island's migrants in flight at the checkpoint come first, in sending order.
    for (const m of arriving) this.pending[transport.sources.indexOf(m.from)]?.push(m);
  }

  /** Every message that has arrived and was not taken yet, source by source (a checkpoint's part; the ports are drained into the queues). */
  unconsumed(): MigrantsMessage[] {
    for (let s = 0; s < this.pending.length; s++)
      for (let m = this.transport.receive(s); m; m = this.transport.receive(s)) this.pending[s].push(m);
    return this.pending.flat();
  }

  /**
   * Source `s`'s message whose `key` is `wanted` (sync: its epoch; lagged: the iteration it
   * was sent at), waited for if needed (yielding WAITING); null if the source left or sent a later one first
   * (a resumed run), the run's cut is at `cutBy` or earlier (lagged: nothing after it
   * counts; -1 in sync mode, where the barrier decides), or the run was halted.
   * A source's messages come in sending order, so older ones are never needed again.
   * postMessage enqueues synchronously, so in sync mode the message is normally already
   * here once the barrier is passed; the wait is only a guard.
   */
  *take(s: number, key: 'epoch' | 'iteration', wanted: number, cutBy: number): Steps<MigrantsMessage | null> {
    const { shared, transport } = this;
    const queue = this.pending[s];
    for (;;) {
      // Read "gone" before draining: a source that left had already enqueued all it sent.
      const gone = shared.reached(transport.sources[s]) === DEPARTED;
      for (let m = transport.receive(s); m; m = transport.receive(s)) queue.push(m);
      let at = 0;
      while (at < queue.length && queue[at][key] < wanted) at++;
      queue.splice(0, at);
      if (queue.length > 0) return queue[0][key] === wanted ? queue.shift()! : null;
      if (gone || shared.stopState() === HALTED || shared.cut() <= cutBy) return null;
      yield WAITING; // the thread's scheduler read the change counter before this turn
    }
  }
}
