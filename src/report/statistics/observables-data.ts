/**
 * The migration observables of a run's events or of a study's runs.jsonl, as rows the
 * charts and tables draw (docs/events.md: `between`, `survival`; docs/takeover.md). Pure.
 */
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import { predictTakeover } from '../../ga/modes/takeover-prediction.ts';
import { edgesOf } from '../../topology/topology.ts';
import type { ManifestCell, RunRecord } from '../../experiment/records.ts';
import { median, quartiles } from './stats.ts';

/** One pair of islands' distance at one iteration. */
export interface PairDistance {
  iteration: number;
  pair: string;
  distance: number;
}

/** Every `between` event's distance per pair (i < j), for a line per pair. */
export function pairDistances(events: readonly ArchipelagoEvent[]): PairDistance[] {
  const rows: PairDistance[] = [];
  for (const e of events) {
    if (e.type !== 'between') continue;
    for (let i = 0; i < e.distance.length; i++)
      for (let j = i + 1; j < e.distance.length; j++) rows.push({ iteration: e.iteration, pair: `${i}-${j}`, distance: e.distance[i][j] });
  }
  return rows;
}

/** The last `between` event's matrix as cells (i, j, distance), i != j. */
export function lastDistanceMatrix(
  events: readonly ArchipelagoEvent[],
): { iteration: number; cells: { from: number; to: number; distance: number }[] } | null {
  let last: Extract<ArchipelagoEvent, { type: 'between' }> | null = null;
  for (const e of events) if (e.type === 'between' && (last === null || e.iteration >= last.iteration)) last = e;
  if (last === null || last.distance.length < 2) return null;
  const cells = last.distance.flatMap((row, i) => row.flatMap((distance, j) => (i === j ? [] : [{ from: i, to: j, distance }])));
  return { iteration: last.iteration, cells };
}

/** The archipelago's distinct genotypes (as a share of the sampled members) and mean pair distance over iterations. */
export function betweenSeries(events: readonly ArchipelagoEvent[]): { iteration: number; measure: string; value: number }[] {
  return events.flatMap((e) =>
    e.type === 'between'
      ? [
          { iteration: e.iteration, measure: 'distinct genotypes / sampled', value: e.distinct / e.sampled },
          { iteration: e.iteration, measure: 'mean distance between islands', value: e.meanDistance },
        ]
      : [],
  );
}

/** Per island and iteration taken in: immigrants received, accepted, and still there k iterations later (summed over its sources). */
export function intakeRows(events: readonly ArchipelagoEvent[]): { island: number; iteration: number; measure: string; count: number }[] {
  const sums = new Map<string, { island: number; iteration: number; received: number; accepted: number; survived: number }>();
  for (const e of events) {
    if (e.type !== 'survival') continue;
    const key = `${e.to}@${e.iteration}`;
    const s = sums.get(key) ?? { island: e.to, iteration: e.iteration, received: 0, accepted: 0, survived: 0 };
    s.received += e.received;
    s.accepted += e.accepted;
    s.survived += e.survived;
    sums.set(key, s);
  }
  return [...sums.values()].flatMap((s) => [
    { island: s.island, iteration: s.iteration, measure: 'received', count: s.received },
    { island: s.island, iteration: s.iteration, measure: 'accepted', count: s.accepted },
    { island: s.island, iteration: s.iteration, measure: 'survived', count: s.survived },
  ]);
}

/** Per cell and iteration: the median over the runs that reached it of the mean pair distance and of distinct / sampled. */
export function betweenMedians(
  runs: readonly RunRecord[],
): { cell: string; iteration: number; measure: string; value: number; runs: number }[] {
  const groups = new Map<string, { cell: string; iteration: number; distance: number[]; distinct: number[] }>();
  for (const r of runs) {
    for (const p of r.between ?? []) {
      const key = `${r.cell}\u0000${p.iteration}`;
      const g = groups.get(key) ?? { cell: r.cell, iteration: p.iteration, distance: [], distinct: [] };
      g.distance.push(p.meanDistance);
      g.distinct.push(p.distinct / p.sampled);
      groups.set(key, g);
    }
  }
  return [...groups.values()].flatMap((g) => [
    { cell: g.cell, iteration: g.iteration, measure: 'mean distance between islands', value: median(g.distance), runs: g.distance.length },
    { cell: g.cell, iteration: g.iteration, measure: 'distinct genotypes / sampled', value: median(g.distinct), runs: g.distinct.length },
  ]);
}

/** Per cell: the median over runs of the acceptance rate (accepted / received) and survival rate (survived / checked). */
export function intakeRates(
  runs: readonly RunRecord[],
  cells: readonly string[],
): { cell: string; measure: string; value: number; runs: number }[] {
  const rows: { cell: string; measure: string; value: number; runs: number }[] = [];
  for (const cell of cells) {
    const own = runs.filter((r) => r.cell === cell);
    const accept = own.flatMap((r) => (r.migrantsReceived ? [r.migrantsAccepted / r.migrantsReceived] : []));
    const survive = own.flatMap((r) => (r.immigrantsChecked ? [(r.immigrantsSurvived ?? 0) / r.immigrantsChecked] : []));
    if (accept.length > 0) rows.push({ cell, measure: 'accepted / received', value: median(accept), runs: accept.length });
    if (survive.length > 0) rows.push({ cell, measure: 'survived / accepted', value: median(survive), runs: survive.length });
  }
  return rows;
}

/** One cell of a takeover study: measured takeover times beside the prediction (docs/takeover.md). */
export interface TakeoverRow {
  cell: string;
  runs: number;
  /** Runs in which every island was taken over. */
  takenOver: number;
  q1: number;
  median: number;
  q3: number;
  eccentricity: number;
  interval: number;
  panmictic: number;
  predicted: number;
}

/** The takeover rows of a study's cells in takeover mode (none for other studies). Random topologies are drawn with the study's first seed. */
export function takeoverRows(runs: readonly RunRecord[], cells: readonly ManifestCell[], firstSeed: number): TakeoverRow[] {
  const rows: TakeoverRow[] = [];
  for (const cell of cells) {
    const { config } = cell;
    const own = runs.filter((r) => r.cell === cell.id && r.takeover);
    if (own.length === 0 || config.ga.mode !== 'takeover') continue;
    const times = own.map((r) => r.takeover!.iteration ?? Infinity);
    const p = predictTakeover({
      edges: edgesOf(config.topology, config.islands, firstSeed),
      islands: config.islands,
      bestIsland: config.ga.bestIsland,
      interval: config.migration.interval,
      populationSize: config.ga.populationSize,
    });
    rows.push({
      cell: cell.id,
      runs: own.length,
      takenOver: times.filter((t) => t !== Infinity).length,
      ...quartiles(times),
      eccentricity: p.eccentricity,
      interval: config.migration.interval,
      panmictic: p.panmictic,
      predicted: p.predicted,
    });
  }
  return rows;
}

/** The takeover rows as text columns: cell, runs, taken over, median [Q1, Q3], eccentricity, interval, predicted, difference. */
export function takeoverTable(rows: readonly TakeoverRow[]): { header: string[]; rows: string[][] } {
  const f = (x: number) => (Number.isFinite(x) ? (Number.isInteger(x) ? String(x) : x.toFixed(1)) : '∞');
  return {
    header: ['cell', 'runs', 'taken over', 'takeover median [Q1, Q3]', 'eccentricity', 'interval', 'predicted', 'median - predicted'],
    rows: rows.map((r) => [
      r.cell,
      String(r.runs),
      String(r.takenOver),
      `${f(r.median)} [${f(r.q1)}, ${f(r.q3)}]`,
      f(r.eccentricity),
      String(r.interval),
      r.predicted.toFixed(1),
      f(r.median - r.predicted),
    ]),
  };
}
