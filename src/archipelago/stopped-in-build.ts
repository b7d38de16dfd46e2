import type { BuildStopped } from '../ga/errors.ts';
import { zeroMeasures } from './island-counters.ts';
import type { IslandReport } from './messages.ts';
import { wallClock } from './schedule.ts';

/** The report of an island stopped while it built its population: no iteration, the best member built so far or none. */
export function stoppedInBuild(island: number, stopped: BuildStopped, startedAt: number): IslandReport {
  return {
    type: 'report',
    island,
    iterations: 0,
    evaluations: stopped.evaluations,
    bestFitness: stopped.best ? stopped.best.fitness : -1,
    best: stopped.best ? stopped.best.genes : null,
    solution: null,
    foundAtIteration: -1,
    foundAt: 0,
    claimed: false,
    startedAt,
    stoppedAt: wallClock(),
    stopReason: 'stopped',
    migrations: new Int32Array(0),
    evaluationsFrom: 0,
    evaluationsAt: new Float64Array(0),
    course: new Float64Array(0),
    survivals: new Int32Array(0),
    ...zeroMeasures(),
  };
}
