/**
 * Lagged mode: an island's counters at each of its last HISTORY iterations, so that it can
 * report what it had done at the run's cut (the iteration of the first solution) after it
 * ran past it. Islands run ahead of each other; this is what makes the record a function
 * of the seed alone. An island never gets more than HISTORY - 1 iterations ahead of the
 * slowest island (lagged.ts), so the cut is always still here.
 */
import { MEASURE_NAMES, type IslandCounters, type Measures } from '../island-counters.ts';

export const HISTORY = 1024;

/** Numbers per iteration: evaluations and the best, then each measure in MEASURE_NAMES order (a checkpoint's check reads it too). */
export const HISTORY_FIELDS = 2 + MEASURE_NAMES.length;

export class LagHistory {
  private readonly data = new Float64Array(HISTORY * HISTORY_FIELDS);
  private newest = -1;
  /** The oldest iteration recorded (a resumed island holds only what its checkpoint held and what it did since). */
  private oldest = -1;

  /** The counters after iteration `iteration`'s step, before its migration. */
  record(iteration: number, evaluations: number, bestFitness: number, measures: Readonly<Measures>): void {
    const at = (iteration % HISTORY) * HISTORY_FIELDS;
    const d = this.data;
    d[at] = evaluations;
    d[at + 1] = bestFitness;
    // Every iteration: a loop over the names, no object made.
    for (let k = 0; k < MEASURE_NAMES.length; k++) d[at + 2 + k] = measures[MEASURE_NAMES[k]];
    this.newest = iteration;
    if (this.oldest < 0) this.oldest = iteration;
  }

  /** The iterations held, oldest first, HISTORY_FIELDS numbers each; `newest` is the last's iteration. For a checkpoint. */
  save(): { history: Float64Array; newest: number } {
    const from = Math.max(this.oldest, this.newest - HISTORY + 1);
    const out = new Float64Array(this.newest < 0 ? 0 : (this.newest - from + 1) * HISTORY_FIELDS);
    for (let i = from, at = 0; i <= this.newest && this.newest >= 0; i++, at += HISTORY_FIELDS) {
      out.set(this.data.subarray((i % HISTORY) * HISTORY_FIELDS, (i % HISTORY) * HISTORY_FIELDS + HISTORY_FIELDS), at);
    }
    return { history: out, newest: this.newest };
  }

  /** Continues a saved history (`save`); trusts what a checked checkpoint holds. */
  restore(history: Float64Array, newest: number): void {
    const count = history.length / HISTORY_FIELDS;
    for (let k = 0; k < count; k++) {
      const i = newest - count + 1 + k;
      this.data.set(history.subarray(k * HISTORY_FIELDS, (k + 1) * HISTORY_FIELDS), (i % HISTORY) * HISTORY_FIELDS);
    }
    this.newest = count > 0 ? newest : -1;
    this.oldest = count > 0 ? newest - count + 1 : -1;
  }

  /** The counters recorded at `iteration`. @throws if it is no longer (or not yet) held. */
  at(iteration: number): IslandCounters {
    if (iteration > this.newest || iteration <= this.newest - HISTORY || iteration < this.oldest || iteration < 0) {
      throw new Error(`lagged history: iteration ${iteration} is not held (newest ${this.newest})`);
    }
    const at = (iteration % HISTORY) * HISTORY_FIELDS;
    const d = this.data;
    const counters = { iterations: iteration, evaluations: d[at], bestFitness: d[at + 1] } as IslandCounters;
    MEASURE_NAMES.forEach((name, k) => (counters[name] = d[at + 2 + k]));
    return counters;
  }
}
