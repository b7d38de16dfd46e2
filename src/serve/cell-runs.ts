/**
 * The runs of one study cell, for the study page's overlay (docs/live-view.md): each finished
 * run's best fitness against evaluations, from the exact trajectory its record keeps (the
 * points where its best improved, ending at its own last evaluation), and where each run
 * going on is now. What the page fetches when a cell is chosen.
 */
import type { RunRecord } from '../experiment/records.ts';
import type { RunState } from './run-state.ts';

/** Points a run's curve may have (as the run view's series): longer trajectories keep every k-th point, and their last. */
const CURVE_POINTS = 512;

export interface CellRun {
  seed: number;
  /** How the run ended (its record's `ended`: solved, limit, stopped, ...). */
  ended: string;
  solved: boolean;
  /** Unsolved and not failed: its time to a solution is only known to exceed its evaluations. */
  censored: boolean;
  evaluations: number;
  fitness: number;
  host?: string;
  /** [evaluations, best fitness], evaluations rising; the last point is the run's evaluations and fitness. */
  curve: [number, number][];
}

export interface CellRunsView {
  cell: string;
  planned: number;
  runs: CellRun[];
  /** Seeds of failed runs (an island's worker failed): not drawn, as the statistics leave them out. */
  failed: number[];
  /** Runs going on: their evaluations so far and best fitness (null before their first sample). */
  running: { seed: number; evaluations: number; best: number | null }[];
}

export function cellRunsView(
  cell: string,
  planned: number,
  records: readonly RunRecord[],
  running: readonly { seed: number; state: RunState }[],
): CellRunsView {
  const good = records.filter((r) => r.error === null);
  return {
    cell,
    planned,
    runs: good.map(cellRun).sort((a, b) => a.seed - b.seed),
    failed: records.filter((r) => r.error !== null).map((r) => r.seed),
    running: running.map(({ seed, state }) => {
      const { evaluations, best } = state.position();
      return { seed, evaluations, best: Number.isNaN(best) ? null : best };
    }),
  };
}

function cellRun(record: RunRecord): CellRun {
  return {
    seed: record.seed,
    ended: String(record.ended ?? (record.solved ? 'solved' : 'limit')),
    solved: record.solved,
    censored: !record.solved,
    evaluations: record.evaluations,
    fitness: record.fitness,
    ...(record.host === undefined ? {} : { host: record.host }),
    curve: curveOf(record),
  };
}

/** The record's trajectory, thinned to CURVE_POINTS, closed at the run's last evaluation (a record before 0.2 has its end only). */
function curveOf(record: RunRecord): [number, number][] {
  const trajectory = record.trajectory ?? [];
  const n = trajectory.length;
  const stride = Math.max(1, Math.ceil(n / (CURVE_POINTS - 1)));
  const curve: [number, number][] = [];
  for (let i = 0; i < n; i += stride) curve.push([trajectory[i][0], trajectory[i][1]]);
  if ((n - 1) % stride !== 0) curve.push([trajectory[n - 1][0], trajectory[n - 1][1]]);
  const end = curve[curve.length - 1];
  if (end === undefined || end[0] < record.evaluations) curve.push([record.evaluations, record.fitness]);
  return curve;
}
