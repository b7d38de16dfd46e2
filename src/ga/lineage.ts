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
 * Counted, not sorted: one pass over the members into a counter per origin up to the
 * largest present (UNKNOWN_ORIGIN in a counter of its own); only the distinct origins are ordered.
 */
export function originMix(pop: Population): Uint32Array {
  const origin = pop.currentOrigins();
  if (origin === null) return new Uint32Array(0);
  let max = 0;
  for (let s = 0; s < origin.length; s++) if (origin[s] !== UNKNOWN_ORIGIN && origin[s] > max) max = origin[s];
  const counts = new Uint32Array(max + 2); // the last: UNKNOWN_ORIGIN
  for (let s = 0; s < origin.length; s++) counts[origin[s] === UNKNOWN_ORIGIN ? max + 1 : origin[s]]++;
  const found: number[] = [];
  for (let o = 0; o < counts.length; o++) if (counts[o] > 0) found.push(o);
  found.sort((a, b) => counts[b] - counts[a] || a - b);
  const pairs = new Uint32Array(2 * found.length);
  found.forEach((o, i) => {
    pairs[2 * i] = o === max + 1 ? UNKNOWN_ORIGIN : o;
    pairs[2 * i + 1] = counts[o];
  });
  return pairs;
}
