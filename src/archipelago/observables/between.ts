/**
 * The between-island observables, computed by the coordinator from the islands'
 * observations (sample.ts) taken at the same iteration: a distance per pair of islands and
 * the number of distinct genotypes in the archipelago. Pure.
 */
import type { Observation } from './sample.ts';

/**
 * Distance between two islands' samples: the mean, over every pair of one member of each,
 * of the positional Hamming distance on the sampled positions, as a fraction of them
 * (0: the samples are copies of one chromosome; about 1 - 1/N for unrelated random permutations).
 */
export function sampleDistance(a: Observation, b: Observation): number {
  const p = a.positions;
  if (b.positions !== p) throw new RangeError(`observations on ${a.positions} and ${b.positions} positions cannot be compared`);
  const ma = a.genes.length / p;
  const mb = b.genes.length / p;
  if (ma === 0 || mb === 0) return 0;
  let differ = 0;
  for (let x = 0; x < ma; x++) {
    for (let y = 0; y < mb; y++) {
      for (let k = 0; k < p; k++) if (a.genes[x * p + k] !== b.genes[y * p + k]) differ++;
    }
  }
  return differ / (ma * mb * p);
}

/** Distinct values among the hashes of every observation (distinct genotypes among the sampled members). */
export function distinctGenotypes(observations: readonly Observation[]): { distinct: number; sampled: number } {
  const seen = new Set<number>();
  let sampled = 0;
  for (const o of observations) {
    sampled += o.hashes.length;
    for (const h of o.hashes) seen.add(h);
  }
  return { distinct: seen.size, sampled };
}

/** The archipelago at one iteration, as the `between` event and a run's summary give it. */
export interface BetweenSample {
  /** The iteration every island was at when sampled (its count of completed iterations). */
  iteration: number;
  /** distance[i][j]: sampleDistance of islands i and j (symmetric, 0 on the diagonal). */
  distance: number[][];
  /** The mean of distance[i][j] over the pairs i < j (0 with one island). */
  meanDistance: number;
  /** Distinct genotypes (permutation hashes) among the `sampled` hashed members of all islands. */
  distinct: number;
  sampled: number;
  /** Lineage: island i's mix of origins (`lineageMix`); absent when lineage is not tracked. */
  lineage?: number[][];
}

/** Origins of an island's mix a sample names; the members of all others are counted together. */
export const LINEAGE_TOP = 8;
/** The origin that stands for "every other origin" in a sample's mix. */
export const OTHER_ORIGINS = -1;

/**
 * An island's mix as a sample holds it: [origin, count, ...] for its LINEAGE_TOP largest
 * origins, largest first, then OTHER_ORIGINS and the members of all the others if there are
 * any; the counts add up to the population's size.
 */
export function lineageMix(pairs: Uint32Array): number[] {
  const out: number[] = [];
  let other = 0;
  for (let k = 0; k < pairs.length; k += 2) {
    if (k < 2 * LINEAGE_TOP) out.push(pairs[k], pairs[k + 1]);
    else other += pairs[k + 1];
  }
  if (other > 0) out.push(OTHER_ORIGINS, other);
  return out;
}

/** The observables of a complete set of observations, one per island in island order. */
export function betweenIslands(iteration: number, observations: readonly Observation[]): BetweenSample {
  const m = observations.length;
  const distance = Array.from({ length: m }, () => new Array<number>(m).fill(0));
  let sum = 0;
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      const d = sampleDistance(observations[i], observations[j]);
      distance[i][j] = d;
      distance[j][i] = d;
      sum += d;
    }
  }
  const pairs = (m * (m - 1)) / 2;
  const lineage = observations.every((o) => o.lineage) ? { lineage: observations.map((o) => lineageMix(o.lineage!)) } : {};
  return { iteration, distance, meanDistance: pairs > 0 ? sum / pairs : 0, ...distinctGenotypes(observations), ...lineage };
}

/**
 * The largest archipelago whose islands are compared: a sample compares every pair, m(m - 1)/2
 * of them (about 16k gene comparisons each) on the coordinator's thread, which at 1024 islands
 * held it up for seconds per sample and made a time limit fire late. Above it no `between`
 * sample is taken (docs/events.md).
 */
export const BETWEEN_MAX_ISLANDS = 256;

/**
 * Collects observations by iteration and gives the observables of an iteration once every
 * island has observed it. Islands observe at the same iterations of the progress schedule
 * (0, 1, 2, 3, 4, 6, 8, 12, ...), so in sync mode the sets are those of one moment of the run
 * and are the same every time; in async mode they compare the islands at equal iteration counts.
 * An iteration some island never reached (it stopped first) is never complete and is dropped.
 */
export class BetweenTracker {
  private readonly pending = new Map<number, (Observation | undefined)[]>();
  private readonly counts = new Map<number, number>();
  readonly samples: BetweenSample[] = [];
  /** The points of a checkpoint this run continues. */
  private restored: BetweenPoint[] = [];
  /** Each island's latest observation: its final state once it has stopped (see `final`). */
  private readonly latest: ({ iteration: number; observation: Observation } | undefined)[] = [];

  constructor(private readonly islands: number) {}

  /** Records island's observation at `iteration`; returns the observables when it completes that iteration's set. */
  add(island: number, iteration: number, observation: Observation): BetweenSample | null {
    if (this.islands > BETWEEN_MAX_ISLANDS) return null;
    if (!(iteration < (this.latest[island]?.iteration ?? -1))) this.latest[island] = { iteration, observation };
    let set = this.pending.get(iteration);
    if (!set) {
      set = new Array<Observation | undefined>(this.islands);
      this.pending.set(iteration, set);
      this.counts.set(iteration, 0);
    }
    if (set[island] !== undefined) return null; // observed twice (a resumed island): the first counts
    set[island] = observation;
    const count = this.counts.get(iteration)! + 1;
    this.counts.set(iteration, count);
    if (count < this.islands) return null;
    this.pending.delete(iteration);
    this.counts.delete(iteration);
    const sample = betweenIslands(iteration, set as Observation[]);
    this.samples.push(sample);
    return sample;
  }

  /**
   * The final state when the islands stopped at different iterations (a halt reaching them
   * one by one, a time limit, async): every island's last observation, compared as it is;
   * `iteration` is the latest of theirs. Null when some island sent none, or all ended at
   * one iteration (that set was complete: `add` gave it). Not part of the series (a record's
   * samples are each of one iteration).
   */
  final(): BetweenSample | null {
    const latest = this.latest;
    if (this.islands > BETWEEN_MAX_ISLANDS) return null;
    // Index by index: \`some\` skips the holes of islands that never observed (halted before their first sample).
    for (let k = 0; k < this.islands; k++) if (latest[k] === undefined) return null;
    const last = latest as { iteration: number; observation: Observation }[];
    if (last.every((l) => l.iteration === last[0].iteration)) return null;
    return betweenIslands(
      Math.max(...last.map((l) => l.iteration)),
      last.map((l) => l.observation),
    );
  }

  /** The series so far in iteration order, without the matrices (what a run's summary keeps). */
  series(): BetweenPoint[] {
    return [...this.restored, ...this.samples]
      .sort((a, b) => a.iteration - b.iteration)
      .map(({ iteration, meanDistance, distinct, sampled, lineage }) => ({
        iteration,
        meanDistance,
        distinct,
        sampled,
        ...(lineage ? { lineage } : {}),
      }));
  }

  /**
   * Continues a checkpointed run: the points its checkpoint held (every island had observed
   * them), then each island's observations of later iterations, which the others may still
   * have to make. An island observes each iteration once, so nothing is counted twice.
   */
  restore(points: readonly BetweenPoint[], observations: readonly (readonly { iteration: number; observation: Observation }[])[]): void {
    this.restored = [...points];
    const last = Math.max(-1, ...points.map((p) => p.iteration));
    observations.forEach((own, island) => {
      for (const o of own) if (o.iteration > last) this.add(island, o.iteration, o.observation);
    });
  }
}

export type BetweenPoint = Omit<BetweenSample, 'distance'>;
