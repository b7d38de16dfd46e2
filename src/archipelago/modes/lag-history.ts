/**
 * Lagged mode: an island's counters at each of its last HISTORY iterations, so that it can
 * report what it had done at the run's cut (the iteration of the first solution) after it
 * ran past it. Islands run ahead of each other; this is what makes the record a function
 * of the seed alone. An island never gets more than HISTORY - 1 iterations ahead of the
 * slowest island (lagged.ts), so the cut is always still here.
 */
import { MEASURE_NAMES, type IslandCounters, type Measures } from '../island-counters.ts';

export const HISTORY = 1024;

/** Evaluations and the best, then each measure in MEASURE_NAMES order. */
const FIELDS = 2 + MEASURE_NAMES.length;

export class LagHistory {
  private readonly data = new Float64Array(HISTORY * FIELDS);
  private newest = -1;

  /** The counters after iteration `iteration`'s step, before its migration. */
  record(iteration: number, evaluations: number, bestFitness: number, measures: Readonly<Measures>): void {
    const at = (iteration % HISTORY) * FIELDS;
    const d = this.data;
    d[at] = evaluations;
    d[at + 1] = bestFitness;
    // Every iteration: a loop over the names, no object made.
    for (let k = 0; k < MEASURE_NAMES.length; k++) d[at + 2 + k] = measures[MEASURE_NAMES[k]];
    this.newest = iteration;
  }

  /** The counters recorded at `iteration`. @throws if it is no longer (or not yet) held. */
  at(iteration: number): IslandCounters {
    if (iteration > this.newest || iteration <= this.newest - HISTORY || iteration < 0) {
      throw new Error(`lagged history: iteration ${iteration} is not held (newest ${this.newest})`);
    }
    const at = (iteration % HISTORY) * FIELDS;
    const d = this.data;
    const counters = { iterations: iteration, evaluations: d[at], bestFitness: d[at + 1] } as IslandCounters;
    MEASURE_NAMES.forEach((name, k) => (counters[name] = d[at + 2 + k]));
    return counters;
  }
}
