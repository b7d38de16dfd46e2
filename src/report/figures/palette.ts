/**
 * The one categorical palette of islands and study cells: the report's figures, the live
 * page's lines and lineage bars (src/serve/page/draw.js mirrors these lines for the browser;
 * test/palette.test.ts holds the two equal and the colours apart). Okabe & Ito's eight
 * (Color Universal Design, 2008), told apart in every common colour blindness, for islands
 * 0–7; past them hues step by the golden angle with lightness alternating, so neighbouring
 * islands stay apart at any count (no palette keeps 64 colours apart for every eye: legends
 * and tooltips name them). An island's colour does not depend on how many there are.
 */
export const OKABE_ITO = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#000000'];

/** Lineage: the colour of "other islands" (past a sample's 8 largest origins) and of an unknown origin. */
export const OTHER_ORIGINS_COLOUR = '#c8c8c8';
export const UNKNOWN_ORIGIN_COLOUR = '#7f7f7f';

/** Island (or cell) `i`'s colour. */
export function islandColour(i: number): string {
  if (i < OKABE_ITO.length) return OKABE_ITO[i];
  return `hsl(${Math.round((i * 137.508) % 360)}, 65%, ${i % 2 === 0 ? 36 : 56}%)`;
}

/** A Vega-Lite colour scale giving each of `domain` (values of a nominal field) its island's colour by `indexOf`. */
export function islandScale<T>(domain: readonly T[], indexOf: (value: T) => number): { domain: T[]; range: string[] } {
  return { domain: [...domain], range: domain.map((v) => islandColour(indexOf(v))) };
}
