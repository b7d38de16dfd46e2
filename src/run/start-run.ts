import { EMPTY, type Observable } from 'rxjs';
import { startArchipelago } from '../archipelago/archipelago.ts';
import { IslandFailedError } from '../archipelago/errors.ts';
import type { ArchipelagoEvent, ArchipelagoResult } from '../archipelago/events.ts';
import type { ArchipelagoOptions } from '../archipelago/options.ts';
import type { RunConfig } from '../config/run-config.ts';
import { defaultThreads } from '../config/defaults.ts';
import { randomSeed } from '../ga/rng.ts';
import { smallBoardAnswer } from '../problem/small-boards.ts';
import { NoSolutionError, RunFailedError } from './errors.ts';
import type { RunResult, SeededRunConfig } from './run-result.ts';

// Declared in run-result.ts, below errors.ts and result-record.ts, which read them too.
export type { RunResult, SeededRunConfig };

/** A run of a seeded config on the archipelago, as the run pipeline (pipeline.ts) drives it. */
export interface SeededRun {
  events$: Observable<ArchipelagoEvent>;
  result: Promise<RunResult>;
  /** Ends the run early (the result reports what was reached). */
  stop: () => void;
}

/** The config with its seed decided: the one given, or a fresh random one. */
export function withSeed(config: RunConfig): SeededRunConfig {
  return { ...config, seed: config.seed ?? randomSeed() };
}

/** The archipelago's options for a resolved run config: the config itself is the run (no reshaping); a small run's default threads is 1. */
export function archipelagoOptionsFor(config: SeededRunConfig): ArchipelagoOptions {
  return { run: config, threads: config.threads ?? defaultThreads(config) };
}

/**
 * Starts one run of the island model for a resolved config. N = 1 is answered at once;
 * N = 2 and 3 throw NoSolutionError before any thread starts.
 */
export function startSeededRun(config: SeededRunConfig, extra: Partial<ArchipelagoOptions> = {}): SeededRun {
  const small = smallBoardAnswer(config.n);
  if (small?.kind === 'impossible') throw new NoSolutionError(small.reason);
  if (small?.kind === 'solution') {
    const result: RunResult = {
      n: config.n,
      seed: config.seed,
      iterations: 0,
      solved: true,
      solution: small.tuple,
      fitness: 0,
      best: small.tuple,
      foundBy: null,
      foundAtIteration: 0,
      seconds: 0,
      startupSeconds: 0,
      stopLatencyMs: null,
      evaluations: 0,
      evaluationsAfterSolution: null,
      islands: [],
      edges: 0,
      threads: 0,
    };
    return { events$: EMPTY, result: Promise.resolve(result), stop: () => {} };
  }
  const archipelago = startArchipelago({ ...archipelagoOptionsFor(config), ...extra });
  const toRunResult = (r: ArchipelagoResult): RunResult => ({
    ...r,
    n: config.n,
    seed: config.seed,
    iterations: r.foundAtIteration ?? Math.max(0, ...r.islands.map((i) => i.iterations)),
  });
  const result = archipelago.result.then(toRunResult, (error: unknown) => {
    if (error instanceof IslandFailedError && error.result) throw new RunFailedError(error, toRunResult(error.result));
    throw error;
  });
  return { events$: archipelago.events$, result, stop: () => archipelago.stop() };
}
