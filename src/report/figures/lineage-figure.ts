/**
 * The report's lineage figure (docs/live-view.md, "Lineage"; docs/events.md, `between`):
 * per island, the share of its members by island of origin over the sampled iterations, as
 * stacked areas, a panel per island, so a takeover reads as one colour filling panel after
 * panel along the topology. Vega-Lite, rendered by charts.ts.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import { OTHER_ORIGINS } from '../../archipelago/observables/between.ts';
import { UNKNOWN_ORIGIN } from '../../ga/lineage.ts';
import { renderSvg } from './charts.ts';
import { islandColour, OTHER_ORIGINS_COLOUR, UNKNOWN_ORIGIN_COLOUR } from './palette.ts';
import { VEGA_LITE_SCHEMA } from './study-charts.ts';

/** Panels drawn at most (the first islands); the caption says how many were left out. */
const LINEAGE_PANELS = 16;

export interface LineageRow {
  iteration: number;
  island: number;
  origin: string;
  share: number;
}

const OTHER_NAME = 'other islands';
const UNKNOWN_NAME = 'unknown';

function originName(origin: number): string {
  return origin === OTHER_ORIGINS ? OTHER_NAME : origin === UNKNOWN_ORIGIN ? UNKNOWN_NAME : `island ${origin}`;
}

/** The shares of each island's members by origin at every sample with lineage (of the first LINEAGE_PANELS islands). */
export function lineageRows(events: readonly ArchipelagoEvent[]): LineageRow[] {
  const rows: LineageRow[] = [];
  for (const e of events) {
    if (e.type !== 'between' || !e.lineage) continue;
    e.lineage.slice(0, LINEAGE_PANELS).forEach((mix, island) => {
      let total = 0;
      for (let k = 1; k < mix.length; k += 2) total += mix[k];
      for (let k = 0; k < mix.length; k += 2)
        rows.push({ iteration: e.iteration, island, origin: originName(mix[k]), share: total > 0 ? mix[k + 1] / total : 0 });
    });
  }
  return rows;
}

/** Each origin in its island's colour (the page's too), "other islands" and "unknown" in greys; islands in order. */
function originScale(rows: readonly LineageRow[]): { domain: string[]; range: string[] } {
  const origins = [...new Set(rows.map((r) => r.origin))].sort((a, b) => rank(a) - rank(b));
  return {
    domain: origins,
    range: origins.map((o) =>
      o === OTHER_NAME ? OTHER_ORIGINS_COLOUR : o === UNKNOWN_NAME ? UNKNOWN_ORIGIN_COLOUR : islandColour(rank(o)),
    ),
  };
}

/** An origin's island number (other islands and unknown last). */
function rank(origin: string): number {
  return origin.startsWith('island ') ? Number(origin.slice(7)) : origin === OTHER_NAME ? 1e6 : 1e6 + 1;
}

export function lineageSpec(rows: readonly LineageRow[]): TopLevelSpec {
  const font = { font: 'sans-serif', labelFont: 'sans-serif', titleFont: 'sans-serif' };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: 'lineage: each island by island of origin', ...font },
    data: { values: [...rows] },
    config: { axis: font, legend: font, header: font },
    facet: { row: { field: 'island', type: 'ordinal', title: 'island' } },
    spec: {
      width: 520,
      height: 50,
      mark: { type: 'area', interpolate: 'step-after' },
      encoding: {
        x: {
          field: 'iteration',
          type: 'quantitative',
          title: 'iteration',
          axis: { tickMinStep: 1, labelExpr: "format(datum.value, '~s')" },
        },
        y: { field: 'share', type: 'quantitative', stack: 'normalize', title: null, axis: { format: '.0%', tickCount: 2 } },
        color: { field: 'origin', type: 'nominal', title: 'origin', scale: originScale(rows), legend: { columns: 2, symbolLimit: 40 } },
        order: { field: 'origin' },
      },
    },
  };
}

/** The one-run page's lineage figure, or nothing for a log without lineage. */
export async function lineageFigure(
  events: readonly ArchipelagoEvent[],
  figure: (svg: string, caption: string) => string,
): Promise<string[]> {
  const rows = lineageRows(events);
  if (rows.length === 0) return [];
  const islands = events.reduce((m, e) => (e.type === 'between' && e.lineage ? Math.max(m, e.lineage.length) : m), 0);
  const hidden = islands > LINEAGE_PANELS ? ` The first ${LINEAGE_PANELS} of ${islands} islands are drawn.` : '';
  return [
    figure(
      await renderSvg(lineageSpec(rows)),
      `Each member carries the island it descends from (a child takes its first parent's origin; migrants keep theirs), sampled with the between-island observables; an island's 8 largest origins are named, the rest are "other islands".${hidden}`,
    ),
  ];
}
