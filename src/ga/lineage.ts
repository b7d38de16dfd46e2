/**
 * Lineage (docs/live-view.md, "Lineage"): every member carries its island of origin, a
 * Uint16 beside the population (`Population.origin`; up to 4,096 islands, so a byte would
 * not do). A member of an island's first population is of that island; a child takes its
 * first parent's origin (the parent whose segment OX1 keeps; a copy is of its parent's); a
 * migrant keeps its origin wherever it goes. Nothing reads an origin to decide anything, so
 * the search is the same with lineage on or off. Pure.
 */
import type { Population } from './population.ts';

/** The origin of a member whose island is not known (an immigrant whose message carried no origins). */
export const UNKNOWN_ORIGIN = 0xffff;

/**
 * The mix of origins in `pop`: (origin, count) pairs, flat, the largest count first (ties:
 * lower origin first); the counts add up to the population's size. Empty without lineage.
 */
export function originMix(pop: Population): Uint32Array {
  const origin = pop.origin;
  if (origin === null) return new Uint32Array(0);
  const sorted = origin.slice().sort();
  let distinct = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) distinct++;
  const pairs = new Uint32Array(2 * distinct);
  let k = -1;
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) pairs[2 * ++k] = sorted[i];
    pairs[2 * k + 1]++;
  }
  return sortPairs(pairs);
}

/** Pairs (origin, count) ordered by count descending, then origin ascending. */
function sortPairs(pairs: Uint32Array): Uint32Array {
  const order = Array.from({ length: pairs.length / 2 }, (_, i) => i);
  order.sort((a, b) => pairs[2 * b + 1] - pairs[2 * a + 1] || pairs[2 * a] - pairs[2 * b]);
  const out = new Uint32Array(pairs.length);
  order.forEach((p, i) => {
    out[2 * i] = pairs[2 * p];
    out[2 * i + 1] = pairs[2 * p + 1];
  });
  return out;
}
