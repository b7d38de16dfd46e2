/**
 * The report's plots as Vega-Lite specs, and their rendering to SVG in Node (vega-lite
 * compiles, vega renders with no browser and no canvas), so the page needs no scripts.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import type { RunRecord } from '../../experiment/records.ts';
import { toSolution, type Metric } from '../statistics/summary.ts';
import { islandScale } from './palette.ts';
import { CHART_FONT, OKABE_ITO, VEGA_LITE_SCHEMA } from './study-charts.ts';
import { shortNames } from '../statistics/run-length.ts';
import type { XAxis } from './x-axis.ts';

const LABELS: Record<Metric, string> = {
  seconds: 'time to solution (s)',
  evaluations: 'evaluations to solution',
  iterations: 'iterations to solution',
};

/**
 * Box plots of a metric per cell over its solved runs (log scale: these spread over decades).
 * Cells go by their short names on the page (its cell table gives the full labels) or by
 * `names` (a figure standing alone, `--figures`, names them by their swept values), each with how
 * many of its runs solved, so a cell that solved few runs cannot pass for a fast one.
 */
export function boxPlotSpec(
  runs: readonly RunRecord[],
  cells: readonly string[],
  metric: Metric,
  names: ReadonlyMap<string, string> = shortNames(cells),
): TopLevelSpec {
  const label = new Map(
    cells.map((id) => {
      const own = runs.filter((r) => r.cell === id);
      return [id, `${names.get(id)!}: ${own.filter((r) => r.solved).length}/${own.length} solved`];
    }),
  );
  const values = runs.filter((r) => r.solved).map((r) => ({ cell: label.get(r.cell)!, value: toSolution(r, metric) }));
  const order = cells.map((id) => label.get(id)!);
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: `${LABELS[metric]}, solved runs only`, ...CHART_FONT },
    data: { values },
    width: 560,
    height: { step: 24 },
    mark: { type: 'boxplot', extent: 1.5, median: { color: 'black' } },
    encoding: {
      y: { field: 'cell', type: 'nominal', sort: order, scale: { domain: order }, title: null, axis: { labelLimit: 0 } },
      x: {
        field: 'value',
        type: 'quantitative',
        scale: { type: 'log' },
        title: LABELS[metric],
        axis: { labelExpr: `format(datum.value, '${metric === 'seconds' ? '~g' : '~s'}')` },
      },
      color: { field: 'cell', type: 'nominal', legend: null, sort: order, scale: { range: OKABE_ITO } },
    },
    config: { axis: CHART_FONT },
  };
}

const X_TITLES: Record<XAxis, string> = {
  iterations: 'iterations of the island',
  evaluations: 'evaluations of the island',
  seconds: 'seconds since every island started',
};
/** d3 formats: 12k rather than 12000, 0.05 rather than 0.050000. */
const X_FORMATS: Record<XAxis, string> = { iterations: '~s', evaluations: '~s', seconds: '~g' };

export interface ProgressPoint {
  island: number;
  x: number;
  bestFitness: number;
  diversity: number | null;
}

/**
 * The points of a run's progress curves on `x`: every progress sample, plus the finder's
 * solution at fitness 0 when no sample of its island says 0 already (logs from before the
 * last sample was taken at the end; not on the evaluations axis, which the event lacks).
 */
export function progressPoints(events: readonly ArchipelagoEvent[], x: XAxis): ProgressPoint[] {
  const points: ProgressPoint[] = [];
  const atZero = new Set<number>();
  for (const e of events) {
    if (e.type !== 'progress') continue;
    points.push({
      island: e.island,
      x: x === 'iterations' ? e.iteration : x === 'evaluations' ? e.evaluations : e.seconds,
      bestFitness: e.bestFitness,
      diversity: e.diversity,
    });
    if (e.bestFitness === 0) atZero.add(e.island);
  }
  for (const e of events) {
    if (e.type === 'solution' && !atZero.has(e.island) && x !== 'evaluations') {
      points.push({ island: e.island, x: x === 'iterations' ? e.iteration : e.seconds, bestFitness: 0, diversity: null });
    }
  }
  return points;
}

/** Most points drawn per island and curve: about four per pixel of the 560-pixel plot. */
export const MAX_DRAWN_PER_ISLAND = 2000;
/** Above this many points in a plot, the line is drawn without a mark per point. */
const MAX_MARKED = 2000;

/**
 * The points a plot draws: every point when an island has at most MAX_DRAWN_PER_ISLAND,
 * else its points in MAX_DRAWN_PER_ISLAND / 2 equal stretches with the first and last of
 * each kept, and the lowest and highest of `field` where they differ from those (a
 * stretch's extremes stay visible). A trace of half a million samples then draws in
 * seconds; the numbers the report prints are computed from every sample.
 */
export function drawnPoints(points: readonly ProgressPoint[], field: 'bestFitness' | 'diversity'): ProgressPoint[] {
  const byIsland = new Map<number, ProgressPoint[]>();
  for (const p of points) {
    if (p[field] === null) continue;
    const list = byIsland.get(p.island) ?? [];
    list.push(p);
    byIsland.set(p.island, list);
  }
  const drawn: ProgressPoint[] = [];
  for (const list of byIsland.values()) {
    if (list.length <= MAX_DRAWN_PER_ISLAND) {
      drawn.push(...list);
      continue;
    }
    const stretch = Math.ceil(list.length / (MAX_DRAWN_PER_ISLAND / 4));
    for (let start = 0; start < list.length; start += stretch) {
      const end = Math.min(list.length, start + stretch) - 1;
      let low = start;
      let high = start;
      for (let i = start + 1; i <= end; i++) {
        if (list[i][field]! < list[low][field]!) low = i;
        if (list[i][field]! > list[high][field]!) high = i;
      }
      for (const i of [...new Set([start, low, high, end])].sort((a, b) => a - b)) drawn.push(list[i]);
    }
  }
  return drawn;
}

function progressSpec(
  points: readonly ProgressPoint[],
  x: XAxis,
  y: { field: 'bestFitness' | 'diversity'; title: string; format: string },
  title: string,
): TopLevelSpec {
  const values = drawnPoints(points, y.field);
  const islands = [...new Set(values.map((p) => p.island))].sort((a, b) => a - b);
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, ...CHART_FONT },
    data: { values },
    width: 560,
    height: 260,
    mark: { type: 'line', point: values.length <= MAX_MARKED, interpolate: y.field === 'bestFitness' ? 'step-after' : 'linear' },
    encoding: {
      // Each label formatted by itself: an axis-wide format shares one SI prefix (0k, 5k, ...).
      x: { field: 'x', type: 'quantitative', title: X_TITLES[x], axis: { labelExpr: `format(datum.value, '${X_FORMATS[x]}')` } },
      y: {
        field: y.field,
        type: 'quantitative',
        title: y.title,
        scale: { zero: true },
        axis: { format: y.format, ...(y.field === 'bestFitness' ? { tickMinStep: 1 } : {}) },
      },
      color: { field: 'island', type: 'nominal', title: 'island', scale: islandScale(islands, (i) => i) },
    },
    config: { axis: CHART_FONT, legend: CHART_FONT },
  };
}

/** Best fitness per island (one line each, a point per sample) against iterations, evaluations or seconds. */
export function fitnessSpec(points: readonly ProgressPoint[], x: XAxis, title: string): TopLevelSpec {
  return progressSpec(points, x, { field: 'bestFitness', title: 'best fitness (0 = solved)', format: 'd' }, title);
}

/** Diversity per island (mean pairwise Hamming distance of a sample of members, as a share of N). */
export function diversitySpec(points: readonly ProgressPoint[], x: XAxis, title: string): TopLevelSpec {
  return progressSpec(points, x, { field: 'diversity', title: 'diversity (Hamming distance / N)', format: '.0%' }, title);
}

export interface EdgeFlow {
  cell: string;
  from: number;
  to: number;
  /** Means per run with an event log. */
  sent: number;
  accepted: number;
}

/** Migrants along each directed edge, summed over a run's migration log. */
export function edgeFlows(events: readonly ArchipelagoEvent[]): Map<string, { from: number; to: number; sent: number; accepted: number }> {
  const flows = new Map<string, { from: number; to: number; sent: number; accepted: number }>();
  for (const e of events) {
    if (e.type !== 'migration') continue;
    const key = `${e.from}>${e.to}`;
    const flow = flows.get(key) ?? { from: e.from, to: e.to, sent: 0, accepted: 0 };
    flow.sent += e.sent;
    flow.accepted += e.accepted;
    flows.set(key, flow);
  }
  return flows;
}

/** A heat map per cell: rows are senders, columns receivers, colour the migrants accepted per run. */
export function migrationSpec(
  flows: readonly EdgeFlow[],
  title = 'migrants accepted per run along each edge (mean over runs with event logs)',
  order?: readonly string[],
): TopLevelSpec {
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, ...CHART_FONT },
    data: { values: flows.map((f) => ({ ...f, accepted: Math.round(f.accepted * 10) / 10, sent: Math.round(f.sent * 10) / 10 })) },
    transform: [{ joinaggregate: [{ op: 'max', field: 'accepted', as: 'busiest' }] }],
    facet: {
      field: 'cell',
      type: 'nominal',
      title: null,
      ...(order ? { sort: [...order] } : {}),
      header: { labelLimit: 0, labelFontSize: 12, ...CHART_FONT },
    },
    columns: 3,
    spacing: 40,
    spec: {
      width: 200,
      height: 200,
      layer: [
        // The colour scale starts at zero: an edge's shade is its share of the busiest edge, not of the range between the two.
        {
          mark: 'rect',
          encoding: {
            color: { field: 'accepted', type: 'quantitative', title: 'accepted / run', scale: { scheme: 'blues', domainMin: 0 } },
          },
        },
        // White on the darker half of the scale, black on the lighter, so every count stays readable.
        {
          mark: { type: 'text', fontSize: 9 },
          encoding: {
            text: { field: 'accepted', type: 'quantitative', format: '.3~s' },
            color: { condition: { test: 'datum.accepted > datum.busiest / 2', value: 'white' }, value: 'black' },
          },
        },
      ],
      encoding: {
        x: { field: 'to', type: 'ordinal', title: 'to island' },
        y: { field: 'from', type: 'ordinal', title: 'from island' },
      },
    },
    config: { axis: CHART_FONT, legend: CHART_FONT },
  };
}

/** Compiles and renders a Vega-Lite spec to a standalone SVG string. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded on the first drawing: Vega is 0.4 s of CPU that a library user or a report without pictures never needs.
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
  // Warnings about layout choices would only clutter the terminal; errors still throw.
  const logger = vega.logger(vega.Error);
  const view = new vega.View(vega.parse(vl.compile(spec, { logger }).spec), { renderer: 'none', logLevel: vega.Error });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
