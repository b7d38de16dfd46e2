import type { Evolver } from '../ga/evolver.ts';
import { sampleDiversity } from './diversity.ts';
import { observe, type Observation } from './observables/sample.ts';
import { HISTORY } from './modes/lag-history.ts';
import { isScheduledIteration, nextSampleIteration, wallClock } from './schedule.ts';
import type { IslandTransport } from './island-transport.ts';

/** What a progress message carries besides the evolver's state: the island's migration counters and logs since the last one. */
export interface ProgressCounts {
  migrantsSent: number;
  migrantsAccepted: number;
  migrations: Int32Array;
  survivals: Int32Array;
}

/**
 * A best chromosome this large (N = 10^6 genes of 4 bytes) is sent at most every
 * LARGE_BEST_EVERY_MS: the coordinator keeps it only for an island that ends without a report
 * (a lost host; a failing island sends its own), and the final report carries the best anyway.
 */
const LARGE_BEST_BYTES = 4e6;
const LARGE_BEST_EVERY_MS = 30_000;
/**
 * A best larger than this (N above 2.5·10^8) is sent only by a failing island: its copies, the
 * island's encoding and the coordinator's decoding, would need more memory than the run's
 * search does (docs/large-n.md); the report carries the best anyway.
 */
export const HUGE_BEST_BYTES = 1e9;

/**
 * What an island tells the coordinator while it runs: progress samples (on the iteration
 * schedule, every `intervalMs`, and at once when its GA mode's signal changes) and its best chromosome
 * whenever its fitness changed.
 */
export class IslandProgress {
  /** The last iteration whose observation was sent (-1: none yet). */
  observed = -1;
  /**
   * Its observations of the last HISTORY iterations (a lagged island is never further ahead
   * of the slowest): a checkpoint carries them, since the other islands' may still be missing
   * at the coordinator when it is taken.
   */
  recent: { iteration: number; observation: Observation }[] = [];
  /** Modes with a coordinator hook: the signal last sent (Evolver.modeSignal; -1 none yet). */
  private signalSent = -1;
  private nextProgress: number;
  /** The iteration of the next progress sample (see nextSampleIteration). */
  private nextSample = 0;
  /** The fitness of the last best chromosome sent to the coordinator (see reportBest). */
  private bestSent = -1;
  /** When a large best may be sent next (see reportBest): not in a run's first LARGE_BEST_EVERY_MS. */
  private nextLargeBest = performance.now() + LARGE_BEST_EVERY_MS;

  constructor(
    private readonly island: number,
    private readonly evolver: Evolver,
    private readonly transport: IslandTransport,
    private readonly intervalMs: number,
  ) {
    this.nextProgress = performance.now() + intervalMs;
  }

  /** A sample is due after this iteration. A change of the mode's signal is reported at once (its coordinator hook may end the run on it). */
  due(): boolean {
    const { evolver } = this;
    const signal = evolver.modeSignal?.() ?? -1;
    return evolver.iterations >= this.nextSample || performance.now() >= this.nextProgress || signal !== this.signalSent;
  }

  /**
   * Sends a progress sample, with an observation at the iterations of the schedule and, with
   * `last` (the island has stopped), at its last iteration: the final state is always observed.
   */
  send(counts: ProgressCounts, last = false): void {
    const { evolver } = this;
    if (!evolver.solution) this.reportBest();
    const iteration = evolver.iterations;
    const observation = iteration !== this.observed && (last || isScheduledIteration(iteration)) ? observe(evolver.population) : undefined;
    if (observation) this.keep(iteration, observation);
    if (evolver.modeSignal) this.signalSent = evolver.modeSignal();
    this.transport.report({
      type: 'progress',
      island: this.island,
      iteration,
      evaluations: evolver.evaluations,
      // A solution found in this step may not be in the population yet.
      bestFitness: evolver.solution ? 0 : evolver.bestFitness(),
      meanFitness: evolver.population.meanFitness(),
      diversity: sampleDiversity(evolver.population),
      ...counts,
      time: wallClock(),
      ...(observation ? { observation } : {}),
      ...evolver.modeFields?.(),
    });
    this.nextProgress = performance.now() + this.intervalMs;
    this.nextSample = nextSampleIteration(iteration);
  }

  private keep(iteration: number, observation: Observation): void {
    this.observed = iteration;
    let old = 0;
    while (old < this.recent.length && this.recent[old].iteration <= iteration - HISTORY) old++;
    this.recent.splice(0, old);
    this.recent.push({ iteration, observation });
  }

  /**
   * Sends the best chromosome reached so far if its fitness changed since the last one sent
   * (or always, before a failure); never throws over a failure being reported.
   */
  reportBest(failing = false): void {
    try {
      const { evolver } = this;
      const bestFitness = evolver.bestFitness();
      if (!failing && bestFitness === this.bestSent) return;
      const { population: pop, n } = evolver;
      // A large chromosome at most every LARGE_BEST_EVERY_MS: each is a message of N genes
      // (11 bytes a queen of peak memory and 0.8 s of 3.5 at N = 10^7, one island).
      const now = performance.now();
      const bytes = n * pop.genes.BYTES_PER_ELEMENT;
      if (!failing && (bytes > HUGE_BEST_BYTES || (bytes > LARGE_BEST_BYTES && now < this.nextLargeBest))) return;
      this.nextLargeBest = now + LARGE_BEST_EVERY_MS;
      this.bestSent = bestFitness;
      // A view of the member, not a copy: the transport encodes it at once (40 MB less garbage a message at N = 10^7).
      const at = pop.bestSlot() * n;
      this.transport.report({ type: 'best', island: this.island, bestFitness, best: pop.genes.subarray(at, at + n) });
    } catch (error) {
      if (!failing) throw error; // the island's own failure is what the coordinator must hear about
    }
  }
}
