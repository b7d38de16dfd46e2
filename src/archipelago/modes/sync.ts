import { NO_OPTIONS } from '../../schema/plug-in.ts';
import { defineMigrationMode, type IslandLoop, type IslandMode } from './define.ts';
import { Inbox } from './inbox.ts';
import type { StopReason } from '../messages.ts';
import type { IslandSnapshot } from '../island-snapshot.ts';
import { awaitBarrier, type MayWait, type Steps } from '../island-thread.ts';

/**
 * Sync: every `interval` iterations (an epoch) all islands meet at a barrier, where they
 * exchange migrants in ascending source order and learn of any solution found in the epoch.
 * Everything is independent of thread timing, which makes sync runs repeatable.
 */
class SyncIsland implements IslandMode {
  readonly anytimeCheckpoints: boolean;
  private readonly inbox: Inbox;
  /**
   * The island's evaluations after each iteration since the last barrier it passed
   * (`epochStart`), the migration after it included: entry j - epochStart is the count once
   * iteration j and its migration were done. The coordinator reads the entry of the winning
   * iteration, so what an island did after it, running on to the barrier, is counted apart.
   * Grown on demand (at most one epoch long).
   */
  private at = new Float64Array(16);
  private epochStart: number;

  constructor(private readonly loop: IslandLoop) {
    this.inbox = new Inbox(loop.transport, loop.shared, loop.arriving);
    this.epochStart = loop.evolver.iterations;
    // With barriers, checkpoints are taken at one (every island at the same epoch, no migrants in flight).
    this.anytimeCheckpoints = !loop.migrating;
  }

  /** Taken at a barrier once every island took this epoch's migrants in: the inbox is empty then, unless a source ran ahead. */
  save(): Pick<IslandSnapshot, 'inbox'> {
    return { inbox: this.inbox.unconsumed() };
  }

  /** Notes the evaluations done once the previous iteration and its migration are. */
  beforeStep(): boolean {
    const { evolver } = this.loop;
    const at = evolver.iterations - this.epochStart;
    if (at >= this.at.length) {
      const grown = new Float64Array(Math.max(at + 1, this.at.length * 2));
      grown.set(this.at);
      this.at = grown;
    }
    this.at[at] = evolver.evaluations;
    return true;
  }

  /** The solving generation belongs to the epoch it ends in (the initial population to epoch 1): every island stops at that barrier. */
  solved(): StopReason {
    const { loop } = this;
    const reason = loop.found(false);
    loop.shared.reportCut(Math.floor(Math.max(0, loop.evolver.iterations - 1) / loop.migration.interval) + 1);
    return reason;
  }

  migrate(): MayWait<StopReason | null> {
    const { evolver, migration } = this.loop;
    if (!this.loop.migrating || evolver.iterations % migration.interval !== 0) return null;
    return this.barrier(evolver.iterations / migration.interval);
  }

  /**
   * At the barrier ending `epoch`: send, wait until every island has arrived (or left), stop
   * if anyone found a solution in this epoch or earlier, else take in this epoch's
   * immigrants in ascending source order.
   */
  private *barrier(epoch: number): Steps<StopReason | null> {
    const { loop } = this;
    const { shared, transport } = loop;
    loop.sendEmigrants(epoch);
    if (loop.checkpointPending()) shared.proposeCheckpointEpoch(epoch);
    shared.arrive(loop.id, epoch);
    if (!(yield* awaitBarrier(shared, epoch))) return 'stopped';
    if (shared.cut() <= epoch) return 'other-solved';
    for (let s = 0; s < transport.sources.length; s++) {
      const message = yield* this.inbox.take(s, 'epoch', epoch, -1);
      if (message) loop.immigrate(message);
    }
    // An immigrant that solves arrived after this epoch's barrier: the others learn of it at the next.
    if (loop.evolver.solution) {
      const reason = loop.found(false);
      shared.reportCut(epoch + 1);
      return reason;
    }
    // Every island got this epoch's migrants and sent none of the next: a clean cut.
    if (loop.checkpointPending() && shared.checkpointEpoch() === epoch) loop.snapshot(epoch);
    this.epochStart = loop.evolver.iterations; // no island's solution can be earlier than this barrier now
    return null;
  }

  evaluationsAt(): { from: number; at: Float64Array } {
    return { from: this.epochStart, at: this.at.slice(0, Math.max(0, this.loop.evolver.iterations - this.epochStart)) };
  }
}

export const syncMode = defineMigrationMode({
  kind: 'sync',
  help: 'all islands migrate in lockstep at a barrier every interval; repeatable (lagged with lag 0, with epoch-wide stops)',
  options: NO_OPTIONS,
  repeatable: true,
  stopsOnClaim: false,
  waitsForMigrants: true,
  coordinator: { winner: 'first-finder', checkpoints: 'barrier', numbersMigrations: true, countsThroughWinner: true },
  create: (loop) => new SyncIsland(loop),
});
