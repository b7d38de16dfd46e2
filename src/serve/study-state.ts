/**
 * What the live view shows of a study: per cell the runs done of planned, the run-length
 * ECDF and ERT with its bootstrap interval (src/report/statistics/stats.ts, as the report computes them),
 * recomputed when a run finishes; and the runs going on now, each with its own RunState so a
 * page can open one. Failed runs are counted and left out of the statistics, as in the report.
 */
import type { RunConfig } from '../config/run-config.ts';
import type { CellConfig, RunRecord } from '../experiment/records.ts';
import { ertInterval, expectedRunningTime, runLengthEcdf } from '../report/statistics/stats.ts';
import { cellRunsView, type CellRunsView } from './cell-runs.ts';
import { RunState, runHeader, type RunEnd } from './run-state.ts';

/** What a study view needs to know of the study: from the experiment file (live) or a study folder's manifest. */
export interface StudyPlan {
  name: string;
  seeds: readonly number[];
  /** A cell's config: resolved (an experiment file, live) or in the manifest's file shape (a folder). */
  cells: readonly { id: string; values: Record<string, unknown>; config: RunConfig | CellConfig }[];
  provenance: unknown;
  tool: unknown;
}

export interface CellView {
  id: string;
  values: Record<string, unknown>;
  planned: number;
  done: number;
  solved: number;
  failed: number;
  /** Expected running time in evaluations and its 95% bootstrap interval (null: no run yet; Infinity is sent as null). */
  ert: number | null;
  ertLower: number | null;
  ertUpper: number | null;
  /** The ECDF's steps: [evaluations, share of the cell's runs solved within them]. */
  ecdf: [number, number][];
}

export interface StudyView {
  kind: 'study';
  name: string;
  planned: number;
  done: number;
  cells: CellView[];
  /** `cell@seed` of each run going on now. */
  running: string[];
  /** `cell@seed` of each finished run whose events can be opened. */
  openable: string[];
  finished: boolean;
}

export class StudyState {
  private readonly runs = new Map<string, RunRecord[]>();
  private readonly cells = new Map<string, CellView>();
  readonly running = new Map<string, RunState>();
  private readonly openable: string[] = [];
  /** Bumped at each change: a reader's `seen` says what it has. */
  changes = 0;
  finished = false;

  constructor(
    readonly plan: StudyPlan,
    /** Whether a finished run's events can be opened (its event log is on disk). */
    private readonly kept: (cell: string, seed: number) => boolean,
  ) {
    for (const cell of plan.cells) this.cells.set(cell.id, cellView(cell.id, cell.values, plan.seeds.length, []));
  }

  /** A run starts (or starts again): it gets a new run state, for the caller to feed with its events. */
  runStarted(cell: string, seed: number): RunState | null {
    const config = this.plan.cells.find((c) => c.id === cell)?.config;
    if (config === undefined) return null;
    const state = new RunState(runHeader({ config: { ...config, seed }, provenance: this.plan.provenance, tool: this.plan.tool }));
    const key = runKey(cell, seed);
    this.running.set(key, state);
    this.changes++;
    return state;
  }

  /** The events of a run going on ended: it is no longer shown as going on (its record, if any, comes with runEnded). */
  runGone(cell: string, seed: number, state: RunState): void {
    const key = runKey(cell, seed);
    if (this.running.get(key) !== state) return;
    this.running.delete(key);
    this.changes++;
  }

  runEnded(record: RunRecord): void {
    const key = runKey(record.cell, record.seed);
    // A run whose events carry no end (a host's, fed by its progress): its page ends with the record.
    const live = this.running.get(key);
    if (live && !live.finished) live.end(recordEnd(record));
    this.running.delete(key);
    const list = this.runs.get(record.cell) ?? [];
    list.push(record);
    this.runs.set(record.cell, list);
    const cell = this.plan.cells.find((c) => c.id === record.cell);
    if (cell) this.cells.set(cell.id, cellView(cell.id, cell.values, this.plan.seeds.length, list));
    if (this.kept(record.cell, record.seed)) this.openable.push(key);
    this.changes++;
  }

  /** A finished run's record, or undefined. */
  record(cell: string, seed: number): RunRecord | undefined {
    return this.runs.get(cell)?.find((r) => r.seed === seed);
  }

  /** The runs of cell `id`, finished and going on (the page's overlay), or null for no such cell. */
  cellRuns(id: string): CellRunsView | null {
    if (!this.cells.has(id)) return null;
    const running = [...this.running].flatMap(([key, state]) => {
      const at = key.lastIndexOf('@');
      return key.slice(0, at) === id ? [{ seed: Number(key.slice(at + 1)), state }] : [];
    });
    return cellRunsView(id, this.plan.seeds.length, this.runs.get(id) ?? [], running);
  }

  finish(): void {
    this.finished = true;
    this.running.clear();
    this.changes++;
  }

  view(): StudyView {
    const cells = [...this.cells.values()];
    return {
      kind: 'study',
      name: this.plan.name,
      planned: this.plan.seeds.length * this.plan.cells.length,
      done: cells.reduce((sum, c) => sum + c.done, 0),
      cells,
      running: [...this.running.keys()],
      openable: this.openable,
      finished: this.finished,
    };
  }
}

/** How a run ended, as its record says (a study's event log and a host's run have no `done` event). */
export function recordEnd(record: RunRecord): RunEnd {
  return { ...record, foundAtIteration: record.solved ? record.iterations : null };
}

export function runKey(cell: string, seed: number): string {
  return `${cell}@${seed}`;
}

function cellView(id: string, values: Record<string, unknown>, planned: number, records: readonly RunRecord[]): CellView {
  const good = records.filter((r) => r.error === null);
  const solvedAt = [...new Set(good.filter((r) => r.solved).map((r) => r.evaluations))].sort((a, b) => a - b);
  const shares = runLengthEcdf(good, solvedAt);
  const ert = expectedRunningTime(good);
  const interval = good.length > 0 ? ertInterval(good) : null;
  const finite = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? null : x);
  return {
    id,
    values,
    planned,
    done: records.length,
    solved: good.filter((r) => r.solved).length,
    failed: records.length - good.length,
    ert: finite(ert),
    ertLower: finite(interval?.lower),
    ertUpper: finite(interval?.upper),
    ecdf: solvedAt.map((e, i) => [e, shares[i]]),
  };
}
