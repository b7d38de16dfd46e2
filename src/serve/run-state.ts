/**
 * What the live view shows of one run, kept up to date from its events (docs/events.md) and
 * bounded however long it goes: per island its latest statistics and a decimated series of
 * them, per topology edge the migrants sent and accepted, the latest between-island distance
 * matrix and a decimated series of the archipelago's observables, immigrant survival per
 * island, the solution and the end. Each reader (a page) holds a cursor; `viewSince` returns
 * what it has not seen, so a new reader's first view is the whole state (the snapshot) and
 * later ones only what changed (the live part). Nothing here reaches back into the run.
 */
import type { ArchipelagoEvent, BetweenEvent, ProgressEvent } from '../archipelago/events.ts';
import type { TakeoverResult } from '../ga/modes/coordinator-hook.ts';
import { edgesOf, MAX_ISLANDS } from '../topology/topology.ts';
import type { Rows } from '../problem/genes.ts';
import { DecimatedSeries, newCursor, type SeriesCursor, type SeriesPart } from './series.ts';

/** Points kept per island series and for the archipelago's series: enough for a chart's width. */
const SERIES_POINTS = 512;
/** Distance matrices kept for the replay (decimated like the series), for runs of at most FRAME_ISLANDS islands. */
const FRAMES = 32;
const FRAME_ISLANDS = 64;

/** [iteration, seconds, best fitness, mean fitness, diversity] */
export type IslandPoint = [number, number, number, number, number];
/** [iteration, mean distance, distinct, sampled] */
export type BetweenPoint = [number, number, number, number];

export interface IslandNow {
  id: number;
  iteration: number;
  evaluations: number;
  best: number;
  mean: number;
  diversity: number;
  migrantsSent: number;
  migrantsAccepted: number;
  /** Immigrant survival: immigrants received, those the replacement let in (checked k iterations later), those still there. */
  received: number;
  checked: number;
  survived: number;
  takenOverAt: number | null;
  error: string | null;
}

/** What the header says: the run's identity and where it came from. */
export interface RunHeaderView {
  n: number;
  seed: number | null;
  islands: number;
  topology: string;
  /** Directed edges [from, to] of the topology, as the run built them (empty when it cannot be rebuilt). */
  edges: [number, number][];
  migration: Record<string, unknown>;
  config: unknown;
  provenance: unknown;
  tool: unknown;
}

/** [from, to, migrants sent, accepted, messages, run seconds at the latest] */
export type EdgeFlow = [number, number, number, number, number, number];

export interface RunView {
  kind: 'run';
  header?: RunHeaderView;
  seconds: number;
  islands: IslandNow[];
  series: Record<number, SeriesPart<IslandPoint>>;
  edges: EdgeFlow[];
  between?: Omit<BetweenEvent, 'type'>;
  betweenSeries?: SeriesPart<BetweenPoint>;
  /** Up to 64 islands: distance matrices over the run (decimated), for the replay's heat map. */
  frames?: SeriesPart<[number, number[][]]>;
  /** Lineage: each island's mix of origins over the run (decimated), for the replay's lineage chart. */
  lineages?: SeriesPart<[number, number[][]]>;
  started?: number;
  solution?: { island: number; iteration: number; solution: Rows; seconds: number };
  done?: RunEnd;
}

/** How the run ended (its `done` event, or a study's record). */
export interface RunEnd {
  solved: boolean;
  fitness: number;
  foundBy: number | null;
  foundAtIteration: number | null;
  evaluations: number;
  seconds: number;
  /** Takeover mode: the archipelago's takeover iteration (null: not every island) and each island's. */
  takeover?: TakeoverResult;
}

/** One reader's place in the state. */
export interface RunCursor {
  headerSent: boolean;
  series: SeriesCursor[];
  between: SeriesCursor;
  lineages: SeriesCursor;
  frames: SeriesCursor;
  /** The state's change counter when this reader last read. */
  seen: number;
}

interface Edge {
  flow: EdgeFlow;
  changed: number;
}

export class RunState {
  readonly header: RunHeaderView;
  private readonly islands: IslandNow[];
  private readonly series: DecimatedSeries<IslandPoint>[];
  private readonly edges = new Map<number, Edge>();
  private readonly betweenSeries = new DecimatedSeries<BetweenPoint>(SERIES_POINTS);
  private readonly frames = new DecimatedSeries<[number, number[][]]>(FRAMES);
  private readonly lineages = new DecimatedSeries<[number, number[][]]>(FRAMES);
  private between: { value: Omit<BetweenEvent, 'type'>; changed: number } | null = null;
  private started: number | undefined;
  private solution: RunView['solution'];
  private done: RunView['done'];
  private seconds = 0;
  /** Bumped by every event: what changed after a reader's `seen` is sent to it. */
  private changes = 0;

  constructor(header: RunHeaderView) {
    this.header = header;
    const count = header.islands;
    this.islands = Array.from({ length: count }, (_, id) => emptyIsland(id));
    this.series = Array.from({ length: count }, () => new DecimatedSeries<IslandPoint>(SERIES_POINTS));
  }

  get finished(): boolean {
    return this.done !== undefined;
  }

  add(event: ArchipelagoEvent): void {
    this.changes++;
    if ('seconds' in event && typeof event.seconds === 'number' && event.type !== 'started')
      this.seconds = Math.max(this.seconds, event.seconds);
    switch (event.type) {
      case 'started':
        this.started = event.seconds;
        return;
      case 'progress':
        return this.progress(event);
      case 'migration':
        return this.migration(event.from, event.to, event.sent, event.accepted);
      case 'between': {
        const { type: _, ...value } = event;
        this.between = { value, changed: this.changes };
        this.betweenSeries.push([event.iteration, event.meanDistance, event.distinct, event.sampled]);
        if (this.header.islands <= FRAME_ISLANDS) this.frames.push([event.iteration, event.distance]);
        if (event.lineage) this.lineages.push([event.iteration, event.lineage]);
        return;
      }
      case 'survival': {
        const island = this.islands[event.to];
        if (!island) return;
        island.received += event.received;
        island.checked += event.accepted;
        island.survived += event.survived;
        return;
      }
      case 'solution':
        this.solution = { island: event.island, iteration: event.iteration, solution: event.solution, seconds: event.seconds };
        return;
      case 'island-error': {
        const island = this.islands[event.island];
        if (island) island.error = event.message;
        return;
      }
      case 'done':
        return this.end(event.result);
      default:
        return;
    }
  }

  /** The run's end: from its `done` event, or for a study's event log (which has none) from its record. */
  end(r: RunEnd): void {
    this.changes++;
    const { solved, fitness, foundBy, foundAtIteration, evaluations, seconds, takeover } = r;
    this.done = { solved, fitness, foundBy, foundAtIteration, evaluations, seconds, ...(takeover ? { takeover } : {}) };
    // Each island's takeover as the run's end says it (a progress sample may have come before it).
    takeover?.islands.forEach((at, i) => {
      if (this.islands[i] && at !== null) this.islands[i].takenOverAt = at;
    });
  }

  /** What a reader at `cursor` has not seen; its first view is the whole state. The cursor moves on. */
  viewSince(cursor: RunCursor): RunView {
    const series: RunView['series'] = {};
    this.series.forEach((s, i) => {
      const part = s.since((cursor.series[i] ??= newCursor()));
      if (part) series[i] = part;
    });
    const edges = [...this.edges.values()].filter((e) => e.changed > cursor.seen).map((e) => e.flow);
    const betweenSeries = this.betweenSeries.since(cursor.between) ?? undefined;
    const frames = this.frames.since(cursor.frames) ?? undefined;
    const lineages = this.lineages.since(cursor.lineages) ?? undefined;
    const view: RunView = {
      kind: 'run',
      ...(cursor.headerSent ? {} : { header: this.header }),
      seconds: this.seconds,
      islands: this.islands,
      series,
      edges,
      ...(this.between && this.between.changed > cursor.seen ? { between: this.between.value } : {}),
      ...(betweenSeries ? { betweenSeries } : {}),
      ...(frames ? { frames } : {}),
      ...(lineages ? { lineages } : {}),
      ...(this.started !== undefined ? { started: this.started } : {}),
      ...(this.solution ? { solution: this.solution } : {}),
      ...(this.done ? { done: this.done } : {}),
    };
    cursor.headerSent = true;
    cursor.seen = this.changes;
    return view;
  }

  /** Where the run is now: its islands' evaluations so far and its best fitness (NaN before any sample). */
  position(): { evaluations: number; best: number } {
    let evaluations = 0;
    let best = Infinity;
    for (const island of this.islands) {
      evaluations += island.evaluations;
      // An island without a sample has NaN, which no comparison takes.
      if (island.best < best) best = island.best;
    }
    return { evaluations, best: best === Infinity ? Number.NaN : best };
  }

  /** Whether anything happened since the reader last read. */
  changedSince(cursor: RunCursor): boolean {
    return this.changes > cursor.seen || !cursor.headerSent;
  }

  private progress(event: ProgressEvent): void {
    const island = this.islands[event.island];
    if (!island) return;
    island.iteration = event.iteration;
    island.evaluations = event.evaluations;
    island.best = event.bestFitness;
    island.mean = event.meanFitness;
    island.diversity = event.diversity;
    island.migrantsSent = event.migrantsSent;
    island.migrantsAccepted = event.migrantsAccepted;
    if (event.takenOverAt !== undefined) island.takenOverAt = event.takenOverAt < 0 ? null : event.takenOverAt;
    this.series[event.island].push([event.iteration, event.seconds, event.bestFitness, event.meanFitness, event.diversity]);
  }

  private migration(from: number, to: number, sent: number, accepted: number): void {
    const key = from * MAX_ISLANDS + to;
    let edge = this.edges.get(key);
    if (!edge) this.edges.set(key, (edge = { flow: [from, to, 0, 0, 0, 0], changed: 0 }));
    edge.flow[2] += sent;
    edge.flow[3] += accepted;
    edge.flow[4]++;
    edge.flow[5] = this.seconds;
    edge.changed = this.changes;
  }
}

export function newRunCursor(): RunCursor {
  return { headerSent: false, series: [], between: newCursor(), frames: newCursor(), lineages: newCursor(), seen: -1 };
}

function emptyIsland(id: number): IslandNow {
  return {
    id,
    iteration: 0,
    evaluations: 0,
    best: Number.NaN,
    mean: Number.NaN,
    diversity: Number.NaN,
    migrantsSent: 0,
    migrantsAccepted: 0,
    received: 0,
    checked: 0,
    survived: 0,
    takenOverAt: null,
    error: null,
  };
}

/** Where a run's header comes from: a trace's first line, or a study's cell config with the run's seed. */
export type RunSource = { [K in 'config' | 'provenance' | 'tool']: unknown };

/** The header of a run from its trace's first line (or a study's manifest cell and seed). */
export function runHeader(trace: RunSource): RunHeaderView {
  const config = (trace.config ?? {}) as Record<string, unknown>;
  // A header from a file is not trusted to be sane: no more islands than a run may have.
  const islands = integerIn(config.islands, 1, MAX_ISLANDS) ?? 1;
  const seed = integerIn(config.seed, 0, Number.MAX_SAFE_INTEGER);
  const topology = (config.topology ?? { kind: 'none' }) as { kind: string };
  let edges: [number, number][] = [];
  try {
    edges = edgesOf(topology, islands, seed ?? 0).map(([from, to]) => [from, to]);
  } catch {
    // A topology this build does not know (a trace from another version): the islands are drawn without edges.
  }
  return {
    n: integerIn(config.n, 1, Number.MAX_SAFE_INTEGER) ?? 0,
    seed,
    islands,
    topology: String(topology.kind),
    edges,
    migration: (config.migration ?? {}) as Record<string, unknown>,
    config: trace.config,
    provenance: trace.provenance,
    tool: trace.tool,
  };
}

function integerIn(value: unknown, low: number, high: number): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= low && value <= high ? value : null;
}
