/**
 * The report's charts of the migration observables (docs/events.md: `between`, `survival`;
 * docs/takeover.md), as Vega-Lite specs, and the page sections that hold them: one run's
 * (`report --run`) and a study's (median over runs, per cell). Kept apart from charts.ts and
 * html.ts, which they only call.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import { SURVIVAL_ITERATIONS } from '../../archipelago/observables/survival.ts';
import type { StudyData } from '../data/study-data.ts';
import { renderSvg } from './charts.ts';
import { lineageFigure } from './lineage-figure.ts';
import {
  betweenMedians,
  betweenSeries,
  intakeRates,
  intakeRows,
  lastDistanceMatrix,
  pairDistances,
  takeoverRows,
  takeoverTable,
  type TakeoverRow,
} from '../statistics/observables-data.ts';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const FONT = { font: 'sans-serif', labelFont: 'sans-serif', titleFont: 'sans-serif' };
const ITERATIONS = {
  field: 'iteration',
  type: 'quantitative',
  title: 'iteration',
  axis: { tickMinStep: 1, labelExpr: "format(datum.value, '~s')" },
} as const;

/** What every chart of this file starts with: schema, title, data, fonts. */
function topLevel(text: string, values: readonly object[]) {
  return { $schema: SCHEMA, title: { text, ...FONT }, data: { values: [...values] }, config: { axis: FONT, legend: FONT } };
}

/** How the page puts a chart or a remark (html.ts's helpers, passed in). */
export interface PageKit {
  figure(svg: string, caption: string): string;
  note(text: string): string;
  table(header: readonly string[], rows: readonly (readonly string[])[]): string;
}

/** Distance per pair of islands over iterations, a line each. */
export function pairDistanceSpec(rows: ReturnType<typeof pairDistances>): TopLevelSpec {
  return {
    ...topLevel('distance between the islands of each pair', rows),
    width: 560,
    height: 260,
    mark: { type: 'line', point: true },
    encoding: {
      x: ITERATIONS,
      y: {
        field: 'distance',
        type: 'quantitative',
        title: 'mean Hamming distance / N',
        scale: { domain: [0, 1] },
        axis: { format: '.0%' },
      },
      color: { field: 'pair', type: 'nominal', title: 'islands', legend: { columns: 2, symbolLimit: 40 } },
    },
  };
}

/** The distance matrix at one iteration, as a heat map. */
export function distanceMatrixSpec(matrix: NonNullable<ReturnType<typeof lastDistanceMatrix>>): TopLevelSpec {
  return {
    ...topLevel(
      `distance between islands at iteration ${matrix.iteration}`,
      matrix.cells.map((c) => ({ ...c, distance: Math.round(c.distance * 1000) / 1000 })),
    ),
    width: 240,
    height: 240,
    layer: [
      {
        mark: 'rect',
        encoding: { color: { field: 'distance', type: 'quantitative', title: 'distance', scale: { scheme: 'oranges', domain: [0, 1] } } },
      },
      { mark: { type: 'text', fontSize: 8 }, encoding: { text: { field: 'distance', type: 'quantitative', format: '.2f' } } },
    ],
    encoding: { x: { field: 'to', type: 'ordinal', title: 'island' }, y: { field: 'from', type: 'ordinal', title: 'island' } },
  };
}

/** Lines of shares over iterations, coloured by `color` (a measure, or a cell). */
function shareLinesSpec(values: readonly object[], title: string, color: { field: string; title: string | null }): TopLevelSpec {
  return {
    ...topLevel(title, [...values]),
    width: 560,
    height: 220,
    mark: { type: 'line', point: true },
    encoding: {
      x: ITERATIONS,
      y: { field: 'value', type: 'quantitative', title: null, scale: { domain: [0, 1] }, axis: { format: '.0%' } },
      color: { field: color.field, type: 'nominal', title: color.title, legend: { labelLimit: 360, orient: 'bottom', columns: 1 } },
    },
  };
}

/** Per island (a panel each): immigrants received, accepted and surviving per migration. */
export function intakeSpec(rows: ReturnType<typeof intakeRows>): TopLevelSpec {
  return {
    ...topLevel(`immigrants per migration: received, accepted, still there ${SURVIVAL_ITERATIONS} iterations later`, rows),
    facet: { field: 'island', type: 'ordinal', title: 'island', header: FONT },
    columns: 4,
    spec: {
      width: 200,
      height: 120,
      mark: { type: 'line', point: { size: 12 } },
      encoding: {
        x: ITERATIONS,
        y: { field: 'count', type: 'quantitative', title: 'immigrants' },
        color: { field: 'measure', type: 'nominal', title: null, sort: ['received', 'accepted', 'survived'] },
      },
    },
  };
}

/** A panel per cell: the median over runs of the mean distance between islands and of distinct / sampled, over iterations. */
export function betweenMediansSpec(rows: ReturnType<typeof betweenMedians>, cells: readonly string[]): TopLevelSpec {
  return {
    ...topLevel('between the islands: median over runs, per cell', rows),
    facet: { field: 'cell', type: 'nominal', sort: [...cells], title: null, header: { labelLimit: 0, labelFontSize: 9, ...FONT } },
    columns: 3,
    spacing: 24,
    spec: {
      width: 190,
      height: 110,
      mark: { type: 'line', point: { size: 10 } },
      encoding: {
        x: ITERATIONS,
        y: { field: 'value', type: 'quantitative', title: null, scale: { domain: [0, 1] }, axis: { format: '.0%' } },
        color: { field: 'measure', type: 'nominal', title: null, legend: { orient: 'top', labelLimit: 0 } },
      },
    },
    resolve: { scale: { x: 'independent' } },
  };
}

/** Per cell: median acceptance and survival rates, a dot each. */
export function intakeRatesSpec(rows: ReturnType<typeof intakeRates>, cells: readonly string[]): TopLevelSpec {
  return {
    ...topLevel('immigrants accepted and surviving, median over runs', rows),
    width: 400,
    height: { step: 22 },
    mark: { type: 'point', filled: true, size: 60 },
    encoding: {
      y: { field: 'cell', type: 'nominal', sort: [...cells], title: null, axis: { labelLimit: 360 } },
      x: { field: 'value', type: 'quantitative', title: 'share of immigrants', scale: { domain: [0, 1] }, axis: { format: '.0%' } },
      color: { field: 'measure', type: 'nominal', title: null },
      shape: { field: 'measure', type: 'nominal', title: null },
    },
  };
}

/** Measured median takeover time against the prediction, a point per cell, with the line measured = predicted. */
export function takeoverSpec(rows: readonly TakeoverRow[]): TopLevelSpec {
  const values = rows
    .filter((r) => Number.isFinite(r.median) && Number.isFinite(r.predicted))
    .map((r) => ({ ...r, interval: `interval ${r.interval}` }));
  const top = Math.max(1, ...values.flatMap((r) => [r.median, r.predicted, r.q3]).filter(Number.isFinite));
  return {
    ...topLevel('takeover time: measured median [Q1, Q3] against the prediction', values),
    width: 420,
    height: 420,
    layer: [
      {
        data: {
          values: [
            { x: 0, y: 0 },
            { x: top, y: top },
          ],
        },
        mark: { type: 'line', color: '#999', strokeDash: [4, 4] },
        encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
      },
      {
        layer: [
          {
            mark: { type: 'rule' },
            encoding: {
              x: { field: 'predicted', type: 'quantitative' },
              y: { field: 'q1', type: 'quantitative' },
              y2: { field: 'q3' },
              color: { field: 'interval', type: 'nominal', title: null },
            },
          },
          {
            mark: { type: 'point', filled: true, size: 50 },
            encoding: {
              x: { field: 'predicted', type: 'quantitative', title: 'predicted: eccentricity × interval + t* (iterations)' },
              y: { field: 'median', type: 'quantitative', title: 'measured takeover time (iterations)' },
              color: { field: 'interval', type: 'nominal', title: null },
              tooltip: [{ field: 'cell' }, { field: 'median' }, { field: 'predicted', format: '.1f' }],
            },
          },
        ],
      },
    ],
  };
}

/** The one-run page's section: distance per pair and its last matrix, distinct genotypes, immigrant intake per island, takeover. */
export async function observablesRunParts(events: readonly ArchipelagoEvent[], kit: PageKit): Promise<string[]> {
  const parts = ['<h2>Between the islands</h2>'];
  const pairs = pairDistances(events);
  const matrix = lastDistanceMatrix(events);
  if (pairs.length > 0 && matrix) {
    parts.push(
      kit.figure(
        await renderSvg(pairDistanceSpec(pairs)),
        'Sampled at iterations 0, 1, 2, 3, 4, 6, 8, 12, ... once every island reached it: the mean positional Hamming distance between 8 members of each island (evenly spaced ranks), as a share of N (on 256 fixed positions when N > 256).',
      ),
      kit.figure(await renderSvg(distanceMatrixSpec(matrix)), 'The same distances at the last iteration every island sampled.'),
      kit.figure(
        await renderSvg(
          shareLinesSpec(betweenSeries(events), 'distinct genotypes and mean distance in the archipelago', {
            field: 'measure',
            title: null,
          }),
        ),
        'Distinct genotypes: distinct permutation hashes among 32 members per island at evenly spaced ranks, as a share of them.',
      ),
    );
    parts.push(...(await lineageFigure(events, kit.figure)));
  } else {
    parts.push(
      kit.note('No between-island samples in this log: one island, or a log from before the observables (docs/events.md, between).'),
    );
  }
  const intake = intakeRows(events);
  if (intake.length > 0)
    parts.push(
      kit.figure(
        await renderSvg(intakeSpec(intake)),
        `Per island and migration (x: the iteration it took them in), summed over its sources. Survived: the member an immigrant became is still in its slot, unchanged, ${SURVIVAL_ITERATIONS} iterations later.`,
      ),
    );
  else
    parts.push(
      kit.note(`No immigrant survival records: no migration happened at least ${SURVIVAL_ITERATIONS} iterations before the run ended.`),
    );
  const done = events.find((e) => e.type === 'done');
  const takeover = done?.type === 'done' ? done.result.takeover : undefined;
  if (takeover) {
    parts.push(
      '<h2>Takeover</h2>',
      kit.table(
        ['island', 'taken over at iteration'],
        takeover.islands.map((t, i) => [String(i), t === null ? 'never' : String(t)]),
      ),
    );
    parts.push(
      kit.note(
        `Archipelago: ${takeover.iteration === null ? 'not every island was taken over' : `taken over at iteration ${takeover.iteration}`} (docs/takeover.md).`,
      ),
    );
  }
  return parts;
}

/** The study page's section: per cell, medians over runs of the between-island observables and immigrant rates; the takeover table and plot. */
export async function observablesStudyParts(study: StudyData, kit: PageKit): Promise<string[]> {
  const cells = study.manifest.cells.map((c) => c.id);
  const parts = ['<h2>Between the islands</h2>'];
  // One island has nothing to be between: its cells get no panel (not a line at 0%).
  const single = new Set(study.manifest.cells.filter((c) => c.config.islands === 1).map((c) => c.id));
  const medians = betweenMedians(study.runs.filter((r) => !single.has(r.cell)));
  if (single.size > 0) parts.push(kit.note(`No between-island panel for the cells with one island: ${[...single].join('; ')}.`));
  if (medians.length > 0) {
    parts.push(
      kit.figure(
        await renderSvg(betweenMediansSpec(medians, cells)),
        'Per cell, at each iteration of the progress schedule: the median over the runs that reached it (a run that ended earlier has no later samples) of the mean distance between islands and of the distinct genotypes among the sampled members. docs/events.md, between.',
      ),
    );
  } else {
    parts.push(kit.note('No between-island samples in runs.jsonl: one island per cell, or a study from before the observables.'));
  }
  const rates = intakeRates(study.runs, cells);
  if (rates.length > 0)
    parts.push(
      kit.figure(
        await renderSvg(intakeRatesSpec(rates, cells)),
        `Per run: accepted / received over all islands, and survived / accepted among the immigrants checked ${SURVIVAL_ITERATIONS} iterations after they entered; the dot is the median over runs.`,
      ),
    );
  else parts.push(kit.note('No immigrants received in any run (no migration, or a study from before the observables).'));
  const takeover = takeoverRows(study.runs, study.manifest.cells, study.manifest.seeds[0]);
  if (takeover.length > 0) {
    const { header, rows } = takeoverTable(takeover);
    parts.push(
      '<h2>Takeover time</h2>',
      kit.table(header, rows),
      kit.figure(
        await renderSvg(takeoverSpec(takeover)),
        "Predicted: the best island's eccentricity × the migration interval + t* = log2 M + log2(ln M) (Goldberg & Deb 1991); dashed: measured = predicted. docs/takeover.md.",
      ),
    );
  }
  return parts;
}
