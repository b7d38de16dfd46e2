/**
 * The evaluation ledger of a run with a `limits.maxEvaluations` budget B in a repeatable mode
 * (docs/experiments.md, "A budget is a prefix"). Each island publishes e_i(t), its evaluations
 * once iteration t and its migration are done; E(t) is their sum. An island starts iteration
 * t + 1 only once E(t) <= B is known (`BudgetGate`), so every island runs exactly through the
 * first iteration t* + 1 with E(t* + 1) > B, and the record counts t*: the unlimited run's
 * state there, whatever the threads' speeds.
 *
 * Layout, after the coordination's own words in the same SharedArrayBuffer: Int32 found
 * (the least iteration at which an island holds a solution), published[0..I) (the last t each
 * island published, -1 none), then Float64 ring[I][RING].
 * A value is written before its `published` store, so an Atomics read of published >= t
 * orders the read of slot t. Under the gate no island gets more than one iteration past
 * another, so a ring of RING slots is never overwritten while read (a solution lifts the gate
 * from its iteration on, and the gate re-reads `found` after the ledger: budget-gate.ts).
 * A count at or past `found` is not written (no gate reads it): past a solution an island
 * runs on freely, and its slots before the solution stay readable for a host's relay, which
 * carries the ledger to the run's other hosts (src/cluster/launcher/ledger-relay.ts).
 */
import { NO_CUT } from './no-cut.ts';

export const RING = 4;

/** Bytes the ledger of `islands` islands takes. */
export function ledgerBytes(islands: number): number {
  return align8((1 + islands) * 4) + islands * RING * 8;
}

function align8(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}

export class BudgetLedger {
  /** [found, published[0..I)]. */
  private readonly words: Int32Array;
  private readonly ring: Float64Array;

  /** Maps the ledger at byte `offset` of `sab`; `departed(k)` says island k stopped; `wake` wakes every waiter. */
  constructor(
    sab: SharedArrayBuffer,
    offset: number,
    private readonly islands: number,
    private readonly departed: (island: number) => boolean,
    private readonly wake: () => void,
  ) {
    this.words = new Int32Array(sab, offset, 1 + islands);
    this.ring = new Float64Array(sab, offset + align8((1 + islands) * 4), islands * RING);
  }

  /** Fresh memory: no solution, nothing published. */
  clear(): void {
    this.words[0] = NO_CUT;
    this.words.fill(-1, 1);
  }

  /** An island holds a solution at iteration `t` (lowers, never raises). */
  reportFound(t: number): void {
    let current = Atomics.load(this.words, 0);
    while (t < current) {
      const seen = Atomics.compareExchange(this.words, 0, current, t);
      if (seen === current) break;
      current = seen;
    }
    this.wake();
  }

  /** The least iteration at which an island holds a solution (NO_CUT: none yet). */
  found(): number {
    return Atomics.load(this.words, 0);
  }

  /** Island `island`'s evaluations once iteration `t` and its migration were done. */
  publish(island: number, t: number, evaluations: number): void {
    if (t < this.found()) this.ring[island * RING + (t % RING)] = evaluations;
    Atomics.store(this.words, 1 + island, t);
    this.wake();
  }

  /** The last iteration island `island` published (-1: none). */
  published(island: number): number {
    return Atomics.load(this.words, 1 + island);
  }

  /** Island `island`'s count at iteration `t`: for t below `found()`, published and within RING of its last. */
  countAt(island: number, t: number): number {
    return this.ring[island * RING + (t % RING)];
  }

  /**
   * E(t), or null while some island still running has not published t. An island that
   * stopped (failed) spends nothing more: its last published count stands for every later t.
   */
  evaluationsAt(t: number): number | null {
    let sum = 0;
    for (let k = 0; k < this.islands; k++) {
      // Its departure first: once seen, its last publication is final.
      const gone = this.departed(k);
      const p = Atomics.load(this.words, 1 + k);
      if (p >= t) sum += this.ring[k * RING + (t % RING)];
      else if (gone && p >= 0) sum += this.ring[k * RING + (p % RING)];
      else if (!gone) return null;
    }
    return sum;
  }
}
