/**
 * What a run record says of itself must agree, wherever a record lands (the report reads a
 * study folder, a coordinator takes a host's record): "solved" with a valid solution (checked
 * with the problem's own validator, never taken on trust) and fitness 0; "unsolved" with
 * nothing at fitness 0 (no solution, finder, island or trajectory point: an unsolved run is
 * censored at its evaluations, and one that reached 0 would count as a failure it is not);
 * and islands and a trajectory that are a course of this run (the trajectory's fitness never
 * rises, its evaluations never fall nor pass the run's, no best is below the run's).
 */
import { validateSolution } from '../problem/validate.ts';
import { canonicalJson } from '../provenance.ts';
import type { Manifest, RunRecord } from './records.ts';

/** What a study's record is checked against: its cells by id and its seeds (looked up, not searched, per record). */
export interface StudyShape {
  cells: ReadonlyMap<string, Manifest['cells'][number]>;
  /** Each cell's sweep values as canonical JSON: a record carries its cell's. */
  values: ReadonlyMap<string, string>;
  seeds: ReadonlySet<number>;
  manifest: Manifest;
}

export function studyShape(manifest: Manifest): StudyShape {
  // Reversed: of two cells of one id, the first is kept, as a search would find it.
  const cells = new Map(manifest.cells.map((c) => [c.id, c] as const).reverse());
  const values = new Map([...cells].map(([id, c]) => [id, canonicalJson(c.values)]));
  return { cells, values, seeds: new Set(manifest.seeds), manifest };
}

/**
 * What is wrong with one record of a study, or null when it fits: a cell or seed the study
 * does not have, another cell's values, or a record that contradicts itself. `report`
 * refuses a folder with such a record; `--resume` sets it aside and runs its run again.
 */
export function recordMisfit(run: RunRecord, study: StudyShape): string | null {
  const cell = study.cells.get(run.cell);
  if (cell === undefined) return `cell ${JSON.stringify(run.cell)} is not one of the study's ${study.manifest.cells.length} cells`;
  if (canonicalJson(run.values) !== study.values.get(run.cell))
    return `values ${JSON.stringify(run.values)} are not its cell's (${JSON.stringify(cell.values)})`;
  if (!study.seeds.has(run.seed)) return `seed ${run.seed} is not one of the study's seeds (${study.manifest.seeds.length} per cell)`;
  if (run.error) return null;
  return recordContradiction(run, cell.config.n, cell.config.islands);
}

/**
 * Why the record contradicts itself, or null; with `islands`, also a record whose islands or
 * finder are not islands of its run. Records of failed runs (`error` set) are not asked.
 */
export function recordContradiction(run: RunRecord, n: number, islands?: number): string | null {
  const own = (run.solved ? solvedMisfit(run, n) : unsolvedMisfit(run)) ?? courseMisfit(run);
  return own ?? (islands === undefined ? null : placeMisfit(run, islands));
}

/**
 * The islands it lists and its finder are islands of its run, each listed once. (A record may
 * list no islands: hand-made ones do, and claim nothing of them; threads may be 0: N <= 3 runs none.)
 */
function placeMisfit(run: RunRecord, islands: number): string | null {
  const ids = run.islands.map((i) => i.id);
  if (ids.some((id, i) => id >= islands || ids.indexOf(id) !== i))
    return `lists islands ${JSON.stringify(ids)}, expected each of 0 to ${islands - 1} at most once`;
  if (run.foundBy !== null && run.foundBy >= islands) return `names island ${run.foundBy} as its finder, of ${islands} islands`;
  return null;
}

function solvedMisfit(run: RunRecord, n: number): string | null {
  if (!Array.isArray(run.solution)) return 'is solved but holds no solution';
  const check = validateSolution(run.solution, n);
  if (!check.valid) return `is solved but its solution is not one: ${check.reason}`;
  if (run.fitness !== 0) return `is solved with fitness ${run.fitness}, expected 0`;
  const last = run.trajectory?.at(-1);
  if (last !== undefined && last[1] !== 0) return `is solved but its trajectory ends at fitness ${last[1]}, expected 0`;
  return null;
}

/** An unsolved run is censored at its evaluations: nothing in it may have reached fitness 0. */
function unsolvedMisfit(run: RunRecord): string | null {
  if (run.fitness === 0) return 'is unsolved with fitness 0, which only a solution has';
  if (run.solution !== null) return 'is unsolved but holds a solution';
  if (run.foundBy !== null) return `is unsolved but names island ${run.foundBy} as its finder`;
  const island = run.islands.find((i) => i.bestFitness === 0);
  if (island !== undefined) return `is unsolved but its island ${island.id} reached fitness 0`;
  if (run.trajectory?.some(([, fitness]) => fitness === 0)) return 'is unsolved but its trajectory reaches fitness 0';
  return null;
}

/** The islands and the trajectory must be a course of this run: the run's best is the best of all. */
function courseMisfit(run: RunRecord): string | null {
  const island = run.islands.find((i) => i.bestFitness < run.fitness);
  if (island !== undefined) return `has fitness ${run.fitness} but its island ${island.id} reached ${island.bestFitness}`;
  const points = run.trajectory ?? [];
  for (let i = 0; i < points.length; i++) {
    const [evaluations, fitness] = points[i];
    const [before, best] = i === 0 ? [0, Infinity] : points[i - 1];
    if (evaluations < before || fitness > best) return `has a trajectory that goes back at point ${i + 1} (${JSON.stringify(points[i])})`;
    if (evaluations > run.evaluations)
      return `has a trajectory point past its ${run.evaluations} evaluations (${JSON.stringify(points[i])})`;
    if (fitness < run.fitness) return `has a trajectory point below its fitness ${run.fitness} (${JSON.stringify(points[i])})`;
  }
  return null;
}
