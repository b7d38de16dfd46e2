/**
 * The report's plots as Vega-Lite specs, and their rendering to SVG in Node (vega-lite
 * compiles, vega renders with no browser and no canvas), so the page needs no scripts.
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';
import type { ArchipelagoEvent } from '../archipelago/events.ts';
import type { RunRecord } from '../experiment/records.ts';
import { toSolution, type Metric } from './summary.ts';

const LABELS: Record<Metric, string> = { seconds: 'time to solution (s)', evaluations: 'evaluations to solution', iterations: 'iterations to solution' };
const FONT = { font: 'sans-serif', labelFont: 'sans-serif', titleFont: 'sans-serif' };

/** Box plots of a metric per cell over the solved runs (log scale: these times spread over decades). */
export function boxPlotSpec(runs: readonly RunRecord[], cells: readonly string[], metric: Metric): TopLevelSpec {
  const values = runs.filter((r) => r.solved).map((r) => ({ cell: r.cell, value: toSolution(r, metric) }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: `${LABELS[metric]}, solved runs`, ...FONT },
    data: { values },
    width: 560,
    height: { step: 28 },
    mark: { type: 'boxplot', extent: 1.5, median: { color: 'black' } },
    encoding: {
      y: { field: 'cell', type: 'nominal', sort: [...cells], title: null, axis: { labelLimit: 320 } },
      x: { field: 'value', type: 'quantitative', scale: { type: 'log' }, title: LABELS[metric] },
      color: { field: 'cell', type: 'nominal', legend: null, sort: [...cells] },
    },
    config: { axis: FONT },
  };
}

/** Best fitness over time, one line per island, from a run's progress samples. */
export function fitnessSpec(events: readonly ArchipelagoEvent[], title: string): TopLevelSpec {
  // The solution event closes the finder's curve at 0; progress samples alone may stop short of it.
  const values = events.flatMap((e) =>
    e.type === 'progress' ? [{ island: e.island, seconds: e.seconds, bestFitness: e.bestFitness }] : e.type === 'solution' ? [{ island: e.island, seconds: e.seconds, bestFitness: 0 }] : [],
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, ...FONT },
    data: { values },
    width: 560,
    height: 260,
    mark: { type: 'line', point: true, interpolate: 'step-after' },
    encoding: {
      x: { field: 'seconds', type: 'quantitative', title: 'seconds since start' },
      y: { field: 'bestFitness', type: 'quantitative', title: 'best fitness (0 = solved)', scale: { zero: true } },
      color: { field: 'island', type: 'nominal', title: 'island' },
    },
    config: { axis: FONT, legend: FONT },
  };
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
export function migrationSpec(flows: readonly EdgeFlow[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'migrants accepted per run along each edge (mean over runs with event logs)', ...FONT },
    data: { values: flows.map((f) => ({ ...f, accepted: Math.round(f.accepted * 10) / 10, sent: Math.round(f.sent * 10) / 10 })) },
    facet: { field: 'cell', type: 'nominal', title: null, header: { labelLimit: 0, labelFontSize: 10, ...FONT } },
    columns: 3,
    spacing: 40,
    spec: {
      width: 200,
      height: 200,
      layer: [
        { mark: 'rect', encoding: { color: { field: 'accepted', type: 'quantitative', title: 'accepted / run', scale: { scheme: 'blues' } } } },
        { mark: { type: 'text', fontSize: 9 }, encoding: { text: { field: 'accepted', type: 'quantitative', format: '.3~s' } } },
      ],
      encoding: {
        x: { field: 'to', type: 'ordinal', title: 'to island' },
        y: { field: 'from', type: 'ordinal', title: 'from island' },
      },
    },
    config: { axis: FONT, legend: FONT },
  };
}

/** Compiles and renders a Vega-Lite spec to a standalone SVG string. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Warnings about layout choices would only clutter the terminal; errors still throw.
  const logger = vega.logger(vega.Error);
  const view = new vega.View(vega.parse(vl.compile(spec, { logger }).spec), { renderer: 'none', logLevel: vega.Error });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
