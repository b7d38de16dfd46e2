import { createLogUpdate } from 'log-update';
import type { Observable, Subscription } from 'rxjs';
import type { ArchipelagoEvent, ProgressEvent } from '../archipelago/events.ts';
import { safeText } from '../io/terminal.ts';

const SPARKS = '▁▂▃▄▅▆▇█';
const TREND_LENGTH = 24;
const REDRAW_MS = 150;

/** A small trend of best fitness, higher bars for worse fitness, scaled to the island's own range. */
export function sparkline(values: readonly number[]): string {
  if (values.length === 0) return '';
  let [min, max] = [Infinity, -Infinity];
  for (const v of values) [min, max] = [Math.min(min, v), Math.max(max, v)];
  const span = max - min || 1;
  return values.map((v) => SPARKS[Math.round(((v - min) / span) * (SPARKS.length - 1))]).join('');
}

export interface IslandRow {
  last: ProgressEvent;
  trend: number[];
}

export interface LiveViewHeader {
  n: number;
  islands: number;
  topology: string;
  migration: string;
  seed: number;
}

/** One line per island, from its latest progress: what the view shows, and what it leaves on screen at the end. */
export function islandLines(rows: ReadonlyMap<number, IslandRow>): string[] {
  return [...rows]
    .sort((a, b) => a[0] - b[0])
    .map(
      ([id, { last, trend }]) =>
        `  island ${String(id).padStart(2)}  iteration ${String(last.iteration).padStart(7)}  best ${String(last.bestFitness).padStart(4)}  ` +
        `mean ${last.meanFitness.toFixed(1).padStart(6)}  diversity ${last.diversity.toFixed(2)}  ` +
        `migrants ${last.migrantsSent}/${last.migrantsAccepted}  ${sparkline(trend)}`,
    );
}

/** Formats the live view's lines from the latest progress of each island. */
export function renderLiveView(header: LiveViewHeader, rows: ReadonlyMap<number, IslandRow>, seconds: number): string {
  let evaluations = 0;
  for (const row of rows.values()) evaluations += row.last.evaluations;
  const rate = seconds > 0 ? evaluations / seconds : 0;
  const lines = [
    `N=${header.n}  islands ${header.islands}  ${header.topology} ${header.migration}  seed ${header.seed}  ` +
      `${seconds.toFixed(1)} s  ${(evaluations / 1e6).toFixed(2)}M evaluations  ${(rate / 1e6).toFixed(2)}M/s`,
    ...islandLines(rows),
  ];
  return lines.join('\n');
}

/**
 * Each line cut to the terminal's width less one column: a line that wraps takes two rows,
 * which the next redraw does not erase, and a narrow terminal would fill its scrollback
 * with copies of the view. The view's characters are one column each.
 */
export function fitWidth(text: string, columns: number): string {
  const width = Math.max(1, columns - 1);
  return text
    .split('\n')
    .map((line) => {
      const chars = [...line];
      return chars.length > width ? chars.slice(0, width).join('') : line;
    })
    .join('\n');
}

/**
 * The terminal as log-update sees it. A terminal that reports 0 columns or rows (some
 * emulators, serial consoles) would get nothing drawn: 80 × 24 is assumed then.
 */
export function terminalFor(stream: NodeJS.WriteStream): { write(text: string): boolean; columns: number; rows: number } {
  return {
    write: (text) => stream.write(text),
    get columns() {
      return stream.columns || 80;
    },
    get rows() {
      return stream.rows || 24;
    },
  };
}

/**
 * The terminal view while a run goes on: one line per island, redrawn a few times a
 * second from the archipelago's progress events. Only for terminals; the caller
 * decides (stdout is a TTY and not --quiet / --json).
 */
export function showLiveView(events$: Observable<ArchipelagoEvent>, header: LiveViewHeader): { close(): void } {
  const terminal = terminalFor(process.stdout);
  const draw = createLogUpdate(terminal as unknown as NodeJS.WriteStream);
  const log = Object.assign((text: string) => draw(fitWidth(safeText(text), terminal.columns)), {
    clear: () => draw.clear(),
    done: () => draw.done(),
  });
  const rows = new Map<number, IslandRow>();
  const started = performance.now();
  let dirty = false;
  const subscription: Subscription = events$.subscribe((event) => {
    if (event.type !== 'progress') return;
    const row = rows.get(event.island) ?? { last: event, trend: [] };
    row.last = event;
    row.trend.push(event.bestFitness);
    if (row.trend.length > TREND_LENGTH) row.trend.shift();
    rows.set(event.island, row);
    dirty = true;
  });
  const timer = setInterval(() => {
    if (!dirty) return;
    dirty = false;
    log(renderLiveView(header, rows, (performance.now() - started) / 1000));
  }, REDRAW_MS);
  return {
    /** Stops redrawing and leaves the last frame, header and one line per island, above the result. */
    close() {
      clearInterval(timer);
      subscription.unsubscribe();
      if (rows.size > 0) log(renderLiveView(header, rows, (performance.now() - started) / 1000));
      else log.clear();
      log.done();
    },
  };
}
