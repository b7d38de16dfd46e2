/**
 * An island's counters, declared once. `MEASURES` names each per-island count a record holds
 * beside the island's iterations, evaluations and best fitness, and how a run combines it over
 * its islands; every place that stores, sends, checks, combines or prints the measures
 * iterates this table (docs/ARCHITECTURE.md, "How to add a measure"). Iterations, evaluations
 * and the best are not in it: each has rules of its own (the limits, the count through the
 * winning iteration, the least best) that no table says.
 */
import { z } from 'zod';

/** How a run's total is made from its islands' counts. */
export type Combine = 'sum' | 'max';

export const MEASURES = {
  migrantsSent: 'sum',
  migrantsAccepted: 'sum',
  /** Immigrants that arrived, whether accepted or not. */
  migrantsReceived: 'sum',
  /** Immigrants whose survival was checked k iterations after they entered, and those still there (observables/survival.ts). */
  immigrantsChecked: 'sum',
  immigrantsSurvived: 'sum',
} as const satisfies Record<string, Combine>;

export type MeasureName = keyof typeof MEASURES;
export type Measures = Record<MeasureName, number>;
export const MEASURE_NAMES = Object.keys(MEASURES) as readonly MeasureName[];

/** What a record counts of one island at one iteration. */
export interface IslandCounters extends Measures {
  iterations: number;
  evaluations: number;
  bestFitness: number;
}

/** The measures of `source` (an island loop, a report, a record), copied; one a record of an older version lacks is 0. */
export function measuresOf(source: Readonly<Partial<Measures>>): Measures {
  const measures = {} as Measures;
  for (const name of MEASURE_NAMES) measures[name] = source[name] ?? 0;
  return measures;
}

/** Every measure at 0 (an island that never ran, a warm-up). */
export function zeroMeasures(): Measures {
  return measuresOf({});
}

/** The run's totals: each measure combined over its islands as MEASURES says. */
export function combineMeasures(islands: readonly Readonly<Partial<Measures>>[]): Measures {
  const total = zeroMeasures();
  for (const island of islands)
    for (const name of MEASURE_NAMES) {
      const count = island[name] ?? 0;
      total[name] = MEASURES[name] === 'sum' ? total[name] + count : Math.max(total[name], count);
    }
  return total;
}

/** The measures' shapes, for a message or a record read back: counts; `optional` for records of versions that lacked some. */
export function measureShapes<T extends z.ZodType>(count: T): Record<MeasureName, T> {
  return Object.fromEntries(MEASURE_NAMES.map((name) => [name, count])) as Record<MeasureName, T>;
}
