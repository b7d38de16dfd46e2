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
import { MEASURE_NAMES } from '../archipelago/island-counters.ts';
import type { IslandRecord, Manifest, RunRecord } from './records.ts';
import { CLOCK_SLACK_MS } from './record-schema.ts';
import { runKey } from './store.ts';

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
  const when = timeMisfit(run, study.manifest.startedAt, Date.now());
  if (when !== null || run.error) return when;
  return recordContradiction(run, cell.config.n, cell.config.islands);
}

/**
 * When the record says it finished, against the study: not before the study started, not in
 * the future, and after its own run's time (`startupSeconds` + `seconds`) since the start.
 */
function timeMisfit(run: RunRecord, startedAt: string, now: number): string | null {
  const finished = Date.parse(run.finishedAt);
  const start = Date.parse(startedAt);
  if (finished > now + CLOCK_SLACK_MS) return `finishedAt: ${run.finishedAt} is in the future (now ${new Date(now).toISOString()})`;
  if (!(finished >= start - CLOCK_SLACK_MS)) return `finishedAt: ${run.finishedAt} is before the study started (${startedAt})`;
  const took = run.seconds + (run.startupSeconds ?? 0);
  if (took * 1000 > finished - start + CLOCK_SLACK_MS)
    return `seconds: ${took} s of run (seconds + startupSeconds) is more than the study had run by its finishedAt, ${run.finishedAt} (started ${startedAt})`;
  return null;
}

/**
 * Why the record contradicts itself, or null; with `islands`, also a record whose islands or
 * finder are not islands of its run. Records of failed runs (`error` set) are not asked.
 */
export function recordContradiction(run: RunRecord, n: number, islands?: number): string | null {
  const own = (run.solved ? solvedMisfit(run, n) : unsolvedMisfit(run)) ?? courseMisfit(run);
  return own ?? (islands === undefined ? null : placeMisfit(run, islands)) ?? countsMisfit(run);
}

/** The run's counts over its islands, as the record's builder makes them (run-result.ts, island-counters.ts): sums, and the finder's or the most iterations. */
function countsMisfit(run: RunRecord): string | null {
  const { islands } = run;
  if (islands.length === 0) return null;
  const sum = (count: (island: IslandRecord) => number) => islands.reduce((total, island) => total + count(island), 0);
  const evaluations = sum((i) => i.evaluations);
  if (run.evaluations !== evaluations) return `evaluations: ${run.evaluations} is not its islands' sum, ${evaluations}`;
  const after = run.evaluationsAfterSolution;
  const afterSum = sum((i) => i.evaluationsAfterSolution ?? 0);
  if (after !== null && after !== afterSum) return `evaluationsAfterSolution: ${after} is not its islands' sum, ${afterSum}`;
  for (const name of MEASURE_NAMES) {
    const total = run[name];
    if (total !== undefined && total !== sum((i) => i[name] ?? 0))
      return `${name}: ${total} is not its islands' sum, ${sum((i) => i[name] ?? 0)}`;
  }
  if (run.migrantsAccepted > (run.migrantsReceived ?? Infinity))
    return `migrantsAccepted: ${run.migrantsAccepted} is more than the ${run.migrantsReceived} it received`;
  if ((run.immigrantsSurvived ?? 0) > (run.immigrantsChecked ?? Infinity))
    return `immigrantsSurvived: ${run.immigrantsSurvived} is more than the ${run.immigrantsChecked} checked`;
  return iterationsMisfit(run);
}

/** Solved: the run's iterations are its finder's (its own may run on to the barrier); unsolved: the most any island ran. */
function iterationsMisfit(run: RunRecord): string | null {
  const finder = run.foundBy === null ? undefined : run.islands.find((i) => i.id === run.foundBy);
  if (run.solved && finder !== undefined && run.iterations > finder.iterations)
    return `iterations: ${run.iterations} is more than its finder, island ${finder.id}, ran (${finder.iterations})`;
  const most = Math.max(...run.islands.map((i) => i.iterations));
  if (!run.solved && run.iterations !== most) return `iterations: ${run.iterations} is not the most its islands ran, ${most}`;
  return null;
}

/**
 * The islands it lists and its finder are islands of its run, each listed once. (A record may
 * list no islands: hand-made ones do, and claim nothing of them; threads may be 0: N <= 3 runs none.)
 */
function placeMisfit(run: RunRecord, islands: number): string | null {
  const ids = run.islands.map((i) => i.id);
  // Its counts are its islands' sums (countsMisfit): it lists all of them or none.
  if (ids.some((id, i) => id >= islands || ids.indexOf(id) !== i) || (ids.length > 0 && ids.length !== islands))
    return `islands: lists ${JSON.stringify(ids)}, expected each of 0 to ${islands - 1} once`;
  if (run.threads !== undefined && run.threads > islands) return `threads: ${run.threads}, more than its ${islands} islands`;
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

/**
 * Records that repeat a run of an earlier record with other contents, as [index, index of the
 * first]: one run has one record, so one of the two is not this study's run (a copy from
 * elsewhere, a file edited). A byte-for-byte repeat (a line written twice) is not listed.
 */
export function conflictingRepeats(runs: readonly RunRecord[]): Array<[number, number]> {
  const first = new Map<string, number>();
  const conflicts: Array<[number, number]> = [];
  runs.forEach((run, i) => {
    const key = runKey(run.cell, run.seed);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, i);
    else if (canonicalJson(run) !== canonicalJson(runs[earlier])) conflicts.push([i, earlier]);
  });
  return conflicts;
}
