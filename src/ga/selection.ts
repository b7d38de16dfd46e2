import type { Rng } from './rng.ts';

/**
 * Linear ranking with selection pressure 2.0 over ranks 0 (best) .. size-1 (worst):
 * P(rank r) = 2 (size - 1 - r) / (size (size - 1)). The best is twice as likely as the
 * median and the worst is never chosen. Drawn exactly in O(1): the better of two
 * distinct uniform ranks has precisely this distribution.
 */
export function rankSelect(rng: Rng, size: number): number {
  const a = rng.int(size);
  const b = uniformOther(rng, size, a);
  return a < b ? a : b;
}

/**
 * A second parent by linear ranking, distinct from `excluded` (redrawn until it differs,
 * which conditions the same distribution). With two members the worst has weight 0,
 * so the other member is the only choice.
 */
export function rankSelectOther(rng: Rng, size: number, excluded: number): number {
  if (size === 2) return 1 - excluded;
  let r = rankSelect(rng, size);
  while (r === excluded) r = rankSelect(rng, size);
  return r;
}

/** A uniform index in [0, size) other than `excluded`. */
export function uniformOther(rng: Rng, size: number, excluded: number): number {
  const b = rng.int(size - 1);
  return b >= excluded ? b + 1 : b;
}
