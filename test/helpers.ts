import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TEST_FAULT_ENV } from '../src/archipelago/test-fault.ts';
import { COMPILED_WORKER_ENV } from '../src/archipelago/worker-path.ts';
import type { EmigrantSelection } from '../src/ga/migration-policy.ts';
import type { Population } from '../src/ga/population.ts';
import type { Rng } from '../src/ga/rng.ts';
import { plusSelection, type SurvivalScratch } from '../src/ga/survival.ts';
import type { Genes } from '../src/problem/genes.ts';
import { FIXTURES } from './paths.ts';

/**
 * For the processes that run the islands of a run whose only job is to hold its hosts while a
 * test waits (for a signal's effect, a lease, a peer found lost): every island sleeps 100 ms
 * per iteration from its 10th on (the test fault hook, src/archipelago/test-fault.ts), so the
 * wait costs next to no CPU (an iteration at N = 3000 takes about 25 ms of a core; two such
 * islands took two cores for as long as the test waited, from the tests running beside it),
 * and a small run the same hosts serve next (N = 16 or 24, solved within about 25 iterations)
 * still ends in about a second.
 */
export const IDLE_ISLANDS: NodeJS.ProcessEnv = { [TEST_FAULT_ENV]: '*:10:slow:100' };

export interface PaperSolution {
  n: number;
  iterations: number | null;
  solution: number[];
}

interface PaperData {
  table1: PaperSolution[];
  appendix: PaperSolution[];
  examples: {
    order1Crossover: { parent1: number[]; parent2: number[]; segment: { from: number; to: number }; child: number[] };
    swapMutation: { before: number[]; positions: [number, number]; after: number[] };
    fitness: { tuple: number[]; fitness: number }[];
  };
}

/** Every solution and worked example printed in the paper (a copy of shared/data/paper-solutions.json). */
export const paper: PaperData = JSON.parse(readFileSync(path.join(FIXTURES, 'paper-solutions.json'), 'utf8'));

export const paperSolutions: PaperSolution[] = [...paper.table1, ...paper.appendix];

/** Something that steps and counts iterations: an island of either GA mode. */
interface Stepper {
  solution: unknown;
  iterations: number;
  step(): boolean;
}

/**
 * Asserts how iterations are counted (as the paper counts them): 0 for a solution already in
 * the initial population, 1 for one made in generation 1, 2 in generation 2. `island(seed)`
 * builds a fresh island; the first seeds below `seeds` that show each case are used.
 */
export function assertPaperIterationCounting(
  island: (seed: number) => Stepper,
  seeds: number,
  equal: (actual: number, expected: number) => void,
): void {
  const firstSeed = (wanted: (island: Stepper) => boolean): Stepper => {
    for (let seed = 1; seed < seeds; seed++) {
      const candidate = island(seed);
      if (wanted(candidate)) return candidate;
    }
    throw new Error(`no such seed below ${seeds}`);
  };
  const atStart = firstSeed((i) => i.solution !== null);
  equal(Number(atStart.step()), 1);
  equal(atStart.iterations, 0);
  equal(firstSeed((i) => i.solution === null && i.step()).iterations, 1);
  equal(firstSeed((i) => i.solution === null && !i.step() && i.step()).iterations, 2);
}

/**
 * Keys of a record that measure time or say where it ran (a machine, the hosts, the config's
 * `cluster:` section, the bus's counts), which the same run elsewhere or again need not repeat.
 */
const TIMING_AND_PLACE_KEYS = new Set([
  'seconds',
  'startupSeconds',
  'stopLatencyMs',
  'foundAtSeconds',
  'finishedAt',
  'host',
  'hosts',
  'cluster',
  'bus',
  'provenance',
  // The config's worker threads (placement: sync and lagged records are the same for any count).
  'threads',
]);

/**
 * A record (run, island or study record) without its timings and where it ran: what a
 * repeatable run must repeat exactly, again, in one process or over hosts.
 */
export function repeatablePart(record: unknown): unknown {
  if (Array.isArray(record)) return record.map(repeatablePart);
  if (record === null || typeof record !== 'object') return record;
  return Object.fromEntries(
    Object.entries(record)
      .filter(([key]) => !TIMING_AND_PLACE_KEYS.has(key))
      .map(([key, value]) => [key, repeatablePart(value)]),
  );
}

/**
 * Runs `f` with the island workers it starts from source (`workers/island-worker.ts`, with tsx's
 * loader) even after a build (`npm run coverage` sets COMPILED_WORKER_ENV): for runs that hand
 * their islands a `.ts` extension module, which only a worker with tsx imports. Compiled test
 * files (`npm test`) start the compiled worker whatever this says, and hand it the compiled
 * fixture (paths.ts `fixtureModule`).
 */
export async function withSourceWorker<T>(f: () => Promise<T>): Promise<T> {
  const saved = process.env[COMPILED_WORKER_ENV];
  delete process.env[COMPILED_WORKER_ENV];
  try {
    return await f();
  } finally {
    if (saved !== undefined) process.env[COMPILED_WORKER_ENV] = saved;
  }
}

/** Whether the n genes at `offset` are a permutation of 0..n-1. */
export function isPermutation(genes: ArrayLike<number>, offset: number, n: number): boolean {
  const seen = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = genes[offset + i];
    if (!(v >= 0 && v < n) || seen[v]) return false;
    seen[v] = 1;
  }
  return true;
}

/** An emigrant selection that takes the best k (a fixed policy for island tests). */
export const bestK: EmigrantSelection = (pop, _rng, k, slots) => {
  for (let i = 0; i < k; i++) slots[i] = pop.order[i];
};

/** A replacement that keeps the best of the population and the immigrants (plus selection). */
export const replaceWorstIfBetter = (pop: Population, _rng: Rng, genes: Genes, fit: Int32Array, count: number, scratch: SurvivalScratch) =>
  plusSelection(pop, genes, fit, count, scratch);

/**
 * Issue 34's small study (sync and lagged cells, 3 islands, some runs unsolved at the limit) as
 * an experiment file's text: run twice here it must repeat, and on two hosts it must give
 * the records of one process (test/exact-trajectory.test.ts, test/cluster-study.test.ts).
 */
export const SYNC_LAGGED_STUDY = [
  'base: { overrides: { n: 40, islands: 3, ga: { populationSize: 30 }, limits: { maxIterations: 80 } } }',
  'sweep:',
  '  migration.mode: [sync, lagged]',
  'repeats: 3',
  'seed: 21',
  '',
].join('\n');

/** A NATS password with every character a URL parser stumbles on (cluster-access tests). */
export const SECRET = 'Pw/x#y@z:%q';

/** No part of SECRET long enough to mean something (a `#y@z` or `/x#`) is in `text`. */
export function assertNoSecret(text: string, what: string): void {
  for (const part of [SECRET, 'Pw/x', 'x#y', 'y@z', 'z:%q'])
    assert.ok(!text.includes(part), `${what} shows the password: ${JSON.stringify(text.slice(0, 300))}`);
}

/** This process's OS threads (Linux), or null elsewhere. */
export function osThreads(): number | null {
  try {
    return Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  } catch {
    return null;
  }
}
