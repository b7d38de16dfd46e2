/**
 * Lagged mode: an island's counters at each of its last HISTORY iterations, so that it can
 * report what it had done at the run's cut (the iteration of the first solution) after it
 * ran past it. Islands run ahead of each other; this is what makes the record a function
 * of the seed alone. An island never gets more than HISTORY - 1 iterations ahead of the
 * slowest island (lagged.ts), so the cut is always still here.
 */
import type { IslandCounters } from './define.ts';

export const HISTORY = 1024;

const FIELDS = 7;

export class LagHistory {
  private readonly data = new Float64Array(HISTORY * FIELDS);
  private newest = -1;
  /** The oldest iteration recorded (a resumed island holds only what its checkpoint held and what it did since). */
  private oldest = -1;

  /** The counters after iteration `iteration`'s step, before its migration. */
  record(
    iteration: number,
    evaluations: number,
    migrantsSent: number,
    migrantsAccepted: number,
    bestFitness: number,
    migrantsReceived: number,
    immigrantsChecked: number,
    immigrantsSurvived: number,
  ): void {
    const at = (iteration % HISTORY) * FIELDS;
    const d = this.data;
    d[at] = evaluations;
    d[at + 1] = migrantsSent;
    d[at + 2] = migrantsAccepted;
    d[at + 3] = bestFitness;
    d[at + 4] = migrantsReceived;
    d[at + 5] = immigrantsChecked;
    d[at + 6] = immigrantsSurvived;
    this.newest = iteration;
    if (this.oldest < 0) this.oldest = iteration;
  }

  /** The iterations held, oldest first, FIELDS numbers each; `newest` is the last's iteration. For a checkpoint. */
  save(): { history: Float64Array; newest: number } {
    const from = Math.max(this.oldest, this.newest - HISTORY + 1);
    const out = new Float64Array(this.newest < 0 ? 0 : (this.newest - from + 1) * FIELDS);
    for (let i = from, at = 0; i <= this.newest && this.newest >= 0; i++, at += FIELDS) {
      out.set(this.data.subarray((i % HISTORY) * FIELDS, (i % HISTORY) * FIELDS + FIELDS), at);
    }
    return { history: out, newest: this.newest };
  }

  /** Continues a saved history (`save`); trusts what a checked checkpoint holds. */
  restore(history: Float64Array, newest: number): void {
    const count = history.length / FIELDS;
    for (let k = 0; k < count; k++) {
      const i = newest - count + 1 + k;
      this.data.set(history.subarray(k * FIELDS, (k + 1) * FIELDS), (i % HISTORY) * FIELDS);
    }
    this.newest = count > 0 ? newest : -1;
    this.oldest = count > 0 ? newest - count + 1 : -1;
  }

  /** The counters recorded at `iteration`. @throws if it is no longer (or not yet) held. */
  at(iteration: number): IslandCounters {
    if (iteration > this.newest || iteration <= this.newest - HISTORY || iteration < this.oldest || iteration < 0) {
      throw new Error(`lagged history: iteration ${iteration} is not held (newest ${this.newest})`);
    }
    const at = (iteration % HISTORY) * FIELDS;
    const d = this.data;
    return {
      iterations: iteration,
      evaluations: d[at],
      migrantsSent: d[at + 1],
      migrantsAccepted: d[at + 2],
      bestFitness: d[at + 3],
      migrantsReceived: d[at + 4],
      immigrantsChecked: d[at + 5],
      immigrantsSurvived: d[at + 6],
    };
  }
}
