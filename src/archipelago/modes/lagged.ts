import { DEPARTED, HALTED } from '../coordination.ts';
import type { MigrantsMessage, StopReason } from '../messages.ts';
import { MIGRATION_MODE_DEFAULTS } from './defaults.ts';
import { defineMigrationMode, type IslandCounters, type IslandLoop, type IslandMode } from './define.ts';
import { Inbox } from './inbox.ts';
import { HISTORY, LagHistory } from './lag-history.ts';
import { WAITING, type MayWait, type Steps } from '../island-thread.ts';
import type { IslandSnapshot } from '../island-snapshot.ts';

/**
 * Lagged: migrants sent at iteration t enter at the receiver's iteration t + lag, and the
 * run's cut is the iteration of the first solution; every island reports its state there.
 * What enters at each iteration, and the cut, are fixed by the seed alone.
 */
class LaggedIsland implements IslandMode {
  readonly anytimeCheckpoints = true;
  private readonly inbox: Inbox;
  /** Counters of the last iterations. */
  private readonly history = new LagHistory();
  /** The iteration this island's solution counts in (its step's, or the next for a solving immigrant); -1 if none. */
  private foundCut = -1;
  /** A lower bound of every island's completed iterations (see beforeStep). */
  private slowest = 0;
  /** What the report counts (the island's state at the run's cut), once decided. */
  private atCut: IslandCounters | null = null;

  constructor(private readonly loop: IslandLoop) {
    this.inbox = new Inbox(loop.transport, loop.shared, loop.arriving);
    const saved = loop.resumed?.mode;
    if (saved?.history && saved.newest !== undefined) this.history.restore(saved.history, saved.newest);
  }

  /** A resumed island's history already holds its iteration (after its step, before its migration). */
  start(): void {
    if (!this.loop.resumed?.mode?.history) this.remember();
  }

  /** What it had not taken in, and its history: what a resumed island needs to count exactly as the uninterrupted one. */
  save(): Pick<IslandSnapshot, 'inbox' | 'mode'> {
    return { inbox: this.inbox.unconsumed(), mode: this.history.save() };
  }

  /**
   * An island may not get HISTORY - 1 iterations ahead of the slowest island (which may
   * still find the first solution, whose iteration this island must then still hold in its
   * history). With neighbours to wait for this never binds; it bounds islands that take in
   * nothing. False if the run was halted.
   */
  beforeStep(): MayWait<boolean> {
    const next = this.loop.evolver.iterations + 1;
    return next - this.slowest < HISTORY ? true : this.awaitSlowest(next);
  }

  /** Waits until iteration `next` is less than HISTORY ahead of every island; false if the run was halted. */
  private *awaitSlowest(next: number): Steps<boolean> {
    const { shared } = this.loop;
    while (next - this.slowest >= HISTORY) {
      if (shared.stopState() === HALTED) return false;
      let slowest = DEPARTED;
      for (let k = 0; k < shared.islands; k++) slowest = Math.min(slowest, shared.reached(k));
      this.slowest = slowest;
      if (next - slowest < HISTORY) break;
      yield WAITING;
    }
    return true;
  }

  /** Keeps this iteration's counters (after its step, before its migration). */
  stepped(): void {
    this.remember();
  }

  private remember(): void {
    const l = this.loop;
    const { evolver } = l;
    this.history.record(evolver.iterations, evolver.evaluations, evolver.solution ? 0 : evolver.bestFitness(), l);
  }

  /** The solving iteration is the cut. */
  solved(): Steps<StopReason> {
    return this.found(this.loop.evolver.iterations);
  }

  /**
   * After iteration u's step (no solution in it): stop if a solution at u or earlier is
   * known; else send this iteration's emigrants (every interval), publish u, and take in the
   * migrants each source sent at iteration u - lag, in ascending source order, waiting for a
   * source that has not sent them yet.
   */
  migrate(): MayWait<StopReason | null> {
    const { shared, evolver, migration, migrating } = this.loop;
    const u = evolver.iterations;
    if (shared.cut() <= u) return this.finish('other-solved');
    const { interval, lag } = migration;
    if (migrating && u % interval === 0) this.loop.sendEmigrants(u / interval);
    shared.arrive(this.loop.id, u); // after sending: a receiver woken by this finds the migrants in its port
    const sent = u - lag;
    if (!migrating || sent <= 0 || sent % interval !== 0) return null;
    return this.takeIn(u, sent);
  }

  /** At iteration u: takes in what each source sent at iteration `sent`, waiting for it; or stops at the cut. */
  private *takeIn(u: number, sent: number): Steps<StopReason | null> {
    const { shared, evolver, transport } = this.loop;
    const messages: (MigrantsMessage | null)[] = [];
    for (let s = 0; s < transport.sources.length; s++) messages.push(yield* this.inbox.take(s, 'iteration', sent, u));
    if (shared.stopState() === HALTED) return null; // the loop head sees it
    if (shared.cut() <= u) return yield* this.finish('other-solved');
    for (const message of messages) if (message) this.loop.immigrate(message);
    // A solving immigrant counts in the next iteration, as in sync mode (the others may still solve in this one).
    return evolver.solution ? yield* this.found(u + 1) : null;
  }

  limit(reason: StopReason): Steps<StopReason> {
    return this.finish(reason);
  }

  counted(): IslandCounters | null {
    return this.atCut;
  }

  /** This island's step at `iteration` solved (or an immigrant did, counted at `iteration`). */
  private found(iteration: number): Steps<StopReason> {
    this.loop.found(false);
    this.foundCut = iteration;
    this.loop.shared.reportCut(iteration);
    return this.finish('solved');
  }

  /**
   * This island stops. It leaves (nobody waits for it: every migrant another island can
   * still need was sent), then waits until every island has stopped, so that the first
   * solution's iteration (the cut) is final, and reports its counters at the cut.
   */
  private *finish(reason: StopReason): Steps<StopReason> {
    const { shared, evolver, id } = this.loop;
    shared.depart(id);
    for (;;) {
      if (shared.stopState() === HALTED) return 'stopped';
      let all = true;
      for (let k = 0; k < shared.islands && all; k++) all = shared.reached(k) === DEPARTED;
      if (all) break;
      yield WAITING;
    }
    const cut = shared.cut();
    if (this.foundCut >= 0 && this.foundCut <= cut) return 'solved';
    if (cut > evolver.iterations) return reason; // no solution up to here: max-iterations
    // It reached the cut or ran past it (perhaps to a later solution of its own): what counts
    // is its state after the cut's step, before that iteration's migration.
    this.atCut = this.history.at(cut);
    return 'other-solved';
  }
}

const LAG = MIGRATION_MODE_DEFAULTS.lagged.lag;

export const laggedMode = defineMigrationMode({
  kind: 'lagged',
  help: "migrants sent at iteration t enter at the receiver's iteration t + lag; an island waits only when it would get more than lag iterations ahead of a source; repeatable",
  repeatable: true,
  options: (f) => ({
    lag: f
      .int(0)
      .default(LAG)
      .describe(
        `lagged only: migrants sent at an island's iteration t enter at the receiver's iteration t + lag; 0 = sync; default ${LAG}`,
      ),
  }),
  flags: {
    lag: {
      name: 'lag',
      value: 'number',
      describe: 'lagged: iterations from sending to entry (0 = sync); given without --migration it means lagged',
    },
  },
  stopsOnClaim: false,
  waitsForMigrants: true,
  coordinator: { winner: 'first-finder', checkpoints: 'anytime', numbersMigrations: true, countsThroughWinner: false },
  create: (loop) => new LaggedIsland(loop),
});
