/** The runs of a study, in the order they run, and what a study (or a shard of it) starts from. */
import type { Experiment, ResolvedCell } from './load.ts';
import type { Manifest } from './records.ts';
import { readRuns, runKey } from './store.ts';

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
}

/** The runs recorded in `runsFile`, as keys, after cutting a half-written last line off. */
export function recordedRuns(runsFile: string): { done: Set<string>; droppedBytes: number } {
  const runs = readRuns(runsFile, true);
  return { done: new Set(runs.runs.map((run) => runKey(run.cell, run.seed))), droppedBytes: runs.droppedBytes };
}
