/** The runs of a study, in the order they run, and what a study (or a shard of it) starts from. */
import type { Experiment, ResolvedCell } from './load.ts';
import type { Manifest } from './records.ts';
import { conflictingRepeats, recordMisfit, studyShape } from './record-consistency.ts';
import { readRuns, runKey, setAsideFile, setAsideLines } from './store.ts';

export interface PlannedRun {
  cell: ResolvedCell;
  seed: number;
}

/** Every run of the study, seed-major. */
export function planRuns(experiment: Experiment): PlannedRun[] {
  return experiment.seeds.flatMap((seed) => experiment.cells.map((cell) => ({ cell, seed })));
}

/** What a study (or one shard of it) works from: its manifest, its records file, its runs and those done. */
export interface StudyFiles {
  manifest: Manifest;
  runsFile: string;
  /** This process's runs, in study order: the whole study, or a shard's slice. */
  plan: PlannedRun[];
  /** Keys (runKey) of the runs already in `runsFile`. */
  done: Set<string>;
  droppedBytes: number;
  /** Records that do not fit the study, moved out of `runsFile` on resume (their runs are run again); null when none. */
  setAside: SetAside | null;
}

export interface SetAside {
  count: number;
  /** Where they went (`runs.set-aside.jsonl`). */
  file: string;
  /** The first of them and what is wrong with it, as `line 3 (base@7): seed 7 is not one of ...`. */
  first: string;
}

/**
 * The runs recorded in `runsFile`, as keys, after cutting a half-written last line off.
 * Lines that `report` would refuse are set aside: a complete line that is no run record, and
 * a record that does not fit the study (a cell, seed or values not the study's, a "solved"
 * without a valid solution, a count its islands do not add up to, ...: record-consistency.ts).
 * Their runs are run again, and the folder can then be reported.
 */
export function recordedRuns(runsFile: string, manifest: Manifest): Pick<StudyFiles, 'done' | 'droppedBytes' | 'setAside'> {
  const misfits = new Map<number, string>();
  const { runs, lines, droppedBytes } = readRuns(runsFile, true, (line, why) => misfits.set(line, `line ${line}: ${why}`));
  const study = studyShape(manifest);
  runs.forEach((run, i) => {
    const wrong = recordMisfit(run, study);
    if (wrong !== null) misfits.set(lines[i], `line ${lines[i]} (${run.cell}@${run.seed}): ${wrong}`);
  });
  // Among the records that fit: a misfit goes anyway, and a valid record beside it stands alone.
  const fitting = runs.map((_, i) => i).filter((i) => !misfits.has(lines[i]));
  for (const pair of conflictingRepeats(fitting.map((i) => runs[i])))
    for (const i of pair.map((k) => fitting[k]))
      misfits.set(lines[i], `line ${lines[i]} (${runs[i].cell}@${runs[i].seed}): one of two different records of this run`);
  if (misfits.size > 0) setAsideLines(runsFile, new Set(misfits.keys()));
  const done = new Set(runs.filter((_, i) => !misfits.has(lines[i])).map((run) => runKey(run.cell, run.seed)));
  const first = [...misfits.keys()].sort((a, b) => a - b)[0];
  const setAside = misfits.size === 0 ? null : { count: misfits.size, file: setAsideFile(runsFile), first: misfits.get(first)! };
  return { done, droppedBytes, setAside };
}
