import type { Genes } from '../problem/genes.ts';
import type { Population } from './population.ts';
import type { Rng } from './rng.ts';
import type { SurvivalScratch } from './survival.ts';

/**
 * The two halves of a migration policy, as the GA core sees them (pagmo2's s_policy and
 * r_policy). Their implementations live in src/migration-policy; an island only calls them.
 */

/** How emigrants are chosen: writes `k` distinct slots of `pop` into `slots`. */
export type EmigrantSelection = (pop: Population, rng: Rng, k: number, slots: Int32Array) => void;

/**
 * How arriving chromosomes enter: `count` immigrants (already evaluated) replace
 * members of `pop` by some rule. Returns how many were accepted.
 */
export type ReplacementPolicy = (
  pop: Population,
  rng: Rng,
  genes: Genes,
  fitness: Int32Array,
  count: number,
  scratch: SurvivalScratch,
) => number;
