/**
 * What an island measures of its own population for the between-island observables
 * (docs/events.md, `between`): a fixed sample of members on fixed positions, and hashes of
 * whole members. Pure; draws no random numbers, so observing leaves the GA's stream untouched.
 */
import { MAX_UINT16_N, type Genes } from '../../problem/genes.ts';
import type { Population } from '../../ga/population.ts';
import { originMix } from '../../ga/lineage.ts';

/** Members per island whose genes the between-island distance compares. */
export const DISTANCE_MEMBERS = 8;
/** Gene positions it compares at most: fixed scattered positions beyond this. */
export const DISTANCE_POSITIONS = 256;
/** Members per island whose whole permutation is hashed for the distinct-genotype count. */
export const HASHED_MEMBERS = 32;
/** Knuth's multiplicative hash constant: scatters sample positions with no period to alias with. */
const SCATTER = 2654435761;

/** The slot of member `a` of `s` members taken at evenly spaced ranks, best to worst. */
export function rankSampleSlot(pop: Population, a: number, s: number): number {
  return pop.order[s < 2 ? 0 : Math.floor((a * (pop.size - 1)) / (s - 1))];
}

/** Gene position `k` of `positions` compared on chromosomes of `n` genes: all of them, or fixed scattered ones. */
export function samplePosition(k: number, n: number, positions: number): number {
  return positions === n ? k : (k * SCATTER) % n;
}

/** A 32-bit hash (FNV-1a over the genes, then a final avalanche) of the n genes at `offset`. */
export function hashGenes(genes: ArrayLike<number>, offset: number, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) {
    h ^= genes[offset + i];
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** One island's sample: `members` × `positions` genes, member after member, and the hashes of up to 32 whole members. */
export interface Observation {
  positions: number;
  genes: Genes;
  hashes: Uint32Array;
  /** Lineage: the population's mix of origins, (origin, count) pairs, largest first (ga/lineage.ts originMix); absent when not tracked. */
  lineage?: Uint32Array;
}

/** The positions one island's observation compares on a board of `n`. */
export function observedPositions(n: number): number {
  return Math.min(n, DISTANCE_POSITIONS);
}

/**
 * Samples `pop`: the genes of 8 members at evenly spaced ranks on min(N, 256) fixed
 * positions (the same on every island, so samples of two islands compare position by
 * position), the hashes of 32 members at evenly spaced ranks (all, when fewer), and the
 * mix of origins of all members when lineage is tracked.
 */
export function observe(pop: Population): Observation {
  const n = pop.n;
  const positions = observedPositions(n);
  const members = Math.min(DISTANCE_MEMBERS, pop.size);
  const genes = n <= MAX_UINT16_N ? new Uint16Array(members * positions) : new Int32Array(members * positions);
  for (let a = 0; a < members; a++) {
    const base = rankSampleSlot(pop, a, members) * n;
    for (let k = 0; k < positions; k++) genes[a * positions + k] = pop.genes[base + samplePosition(k, n, positions)];
  }
  const hashed = Math.min(HASHED_MEMBERS, pop.size);
  const hashes = new Uint32Array(hashed);
  for (let a = 0; a < hashed; a++) hashes[a] = hashGenes(pop.genes, rankSampleSlot(pop, a, hashed) * n, n);
  return { positions, genes, hashes, ...(pop.origin ? { lineage: originMix(pop) } : {}) };
}
