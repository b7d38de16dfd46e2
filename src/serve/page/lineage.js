// Lineage (docs/live-view.md): each island's population by island of origin, one stacked bar
// per island, each origin in its island's colour (the colour of its lines in the charts), so
// a takeover is seen as one colour spreading along the topology.
import { html, islandColour, OTHER_ORIGINS_COLOUR, svg, text, UNKNOWN_ORIGIN_COLOUR } from './draw.js';

/** The sample's stand-in for every origin past its 8 largest (observables/between.ts OTHER_ORIGINS). */
const OTHER = -1;
/** An immigrant whose island was not known (ga/lineage.ts UNKNOWN_ORIGIN). */
const UNKNOWN = 0xffff;
/** Bars drawn at most; more islands are left out (the legend says so). */
const MAX_BARS = 64;
/** Origins the legend names one by one. */
const LEGEND_ORIGINS = 16;

/** The colour of an origin: its island's (the charts' and the report's palette), greys for the rest. */
export function originColour(origin) {
  if (origin === OTHER) return OTHER_ORIGINS_COLOUR;
  if (origin === UNKNOWN) return UNKNOWN_ORIGIN_COLOUR;
  return islandColour(origin);
}

/** The stacked bars of `lineage` (per island, [origin, count, ...]) at `iteration`, with a legend. */
export function lineageChart(box, lineage, iteration) {
  box.replaceChildren();
  if (!lineage) {
    html('p', 'no sample yet (lineage is tracked unless the run turned it off)', { class: 'legend' }, box);
    return;
  }
  const shown = Math.min(lineage.length, MAX_BARS);
  const row = Math.max(4, Math.min(28, 280 / shown));
  const [left, width] = [34, 360];
  const root = svg('svg', { viewBox: `0 0 ${left + width + 6} ${shown * row + 30}`, role: 'img', id: 'lineage-bars' }, box);
  const origins = new Set();
  for (let i = 0; i < shown; i++) {
    const mix = lineage[i];
    let total = 0;
    for (let k = 1; k < mix.length; k += 2) total += mix[k];
    const bar = svg('g', { 'data-island': i }, root);
    if (row >= 8 || i % 8 === 0) text(bar, left - 4, i * row + row * 0.75, String(i), { 'text-anchor': 'end', class: 'island-label' });
    let x = left;
    for (let k = 0; k < mix.length; k += 2) {
      const share = total > 0 ? mix[k + 1] / total : 0;
      origins.add(mix[k]);
      const rect = svg(
        'rect',
        {
          x,
          y: i * row + 1,
          width: share * width + 0.2,
          height: row - 2,
          fill: originColour(mix[k]),
          'data-origin': mix[k],
          'data-share': share,
        },
        bar,
      );
      svg('title', {}, rect).textContent = `island ${i}: ${mix[k + 1]} of ${total} from ${originName(mix[k])}`;
      x += share * width;
    }
  }
  text(root, left, shown * row + 14, '0%', { 'text-anchor': 'start' });
  text(root, left + width, shown * row + 14, '100% of the population', { 'text-anchor': 'end' });
  text(root, left + width / 2, shown * row + 27, 'members by island of origin', { 'text-anchor': 'middle' });
  lineageLegend(
    box,
    [...origins].sort((a, b) => a - b),
    iteration,
    lineage.length - shown,
  );
}

function originName(origin) {
  return origin === OTHER ? 'other islands' : origin === UNKNOWN ? 'an unknown island' : `island ${origin}`;
}

function lineageLegend(box, origins, iteration, hidden) {
  const keys = html('div', '', { class: 'keys legend', id: 'lineage-legend' }, box);
  if (origins.length > LEGEND_ORIGINS)
    keys.textContent = `${origins.length} origins, each in its island's colour (hover a bar for its island)`;
  else
    for (const origin of origins) {
      const key = html('span', '', { class: 'key' }, keys);
      const mark = svg('svg', { width: 14, height: 10, viewBox: '0 0 14 10', class: 'swatch' }, key);
      svg('rect', { x: 0, y: 0, width: 14, height: 10, fill: originColour(origin) }, mark);
      key.append(`from ${originName(origin)}`);
    }
  html(
    'p',
    `iteration ${iteration}: one bar per island (rows), its members by the island they descend from (a child takes its first parent's origin; migrants keep theirs); the 8 largest origins of an island are named, the rest grey${hidden > 0 ? `; ${hidden} more islands not drawn` : ''}`,
    { class: 'legend' },
    box,
  );
}
