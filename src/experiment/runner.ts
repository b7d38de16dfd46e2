/**
 * Runs a study: every (cell, seed) once, one run at a time so each gets all the cores.
 * The order is seed-major (seed 1 in every cell, then seed 2, ...): a study stopped early
 * still has complete pairs for the paired tests, and slow drifts of the machine (other
 * load, heat) fall on all cells alike instead of on the cells that happened to run last.
 */
import { mkdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ArchipelagoEvent } from '../archipelago/events.ts';
import type { Launcher } from '../archipelago/launcher.ts';
import { LocalHost } from '../archipelago/local-host.ts';
import { ConfigError } from '../config/errors.ts';
import { isPlainObject, valueAt } from '../config/overrides.ts';
import { toolInfo } from '../package-info.ts';
import { canonicalJson, machineProvenance } from '../provenance.ts';
import { RunFailedError, startSeededRun } from '../run/start-run.ts';
import type { Experiment, ResolvedCell } from './load.ts';
import { isRepeatable } from '../archipelago/modes/registry.ts';
import { environment, MANIFEST_FORMAT, toRunRecord, type Manifest, type RunRecord } from './records.ts';
import { lockStudyFolder } from './lock.ts';
import {
  appendLineSync,
  EVENTS_DIR,
  MANIFEST_FILE,
  makeStudyFolder,
  prepareFolder,
  readManifest,
  readRuns,
  runKey,
  RUNS_FILE,
  writeFileAtomic,
  writeManifest,
} from './store.ts';
import { cellFileName } from './sweep.ts';

export interface PlannedRun {
  cell: ResolvedCell;
  seed: number;
}

/** Every run of the study, seed-major. */
export function planRuns(experiment: Experiment): PlannedRun[] {
  return experiment.seeds.flatMap((seed) => experiment.cells.map((cell) => ({ cell, seed })));
}

/** Event-log file of one run, relative to the study folder (one file per cell and seed, see cellFileName). */
export function eventLogPath(cell: string, seed: number, name: (cell: string) => string = cellFileName): string {
  return path.join(EVENTS_DIR, `${name(cell)}__seed-${seed}.jsonl`);
}

export interface StudyHooks {
  /** Before the first run: how many runs there are and how many were already done. */
  onPlan?(total: number, done: number): void;
  onRunStart?(run: PlannedRun, index: number): void;
  onRunEnd?(record: RunRecord, index: number): void;
  /** A run whose island failed is run once more. */
  onRetry?(run: PlannedRun, error: string): void;
  /** Distributed studies: every host and what it runs, whenever that changes. */
  onHosts?(hosts: readonly HostActivity[]): void;
}

/** A host of a distributed study, as the progress display shows it. */
export interface HostActivity {
  name: string;
  /** Runs it finished in this invocation. */
  runs: number;
  /** `cell seed N` of the run it is on, or null when idle. */
  current: string | null;
}

export interface StudyOptions {
  outDir: string;
  resume: boolean;
  /** Write each run's progress samples and migration log to events/. */
  events: boolean;
  /** Aborting stops the current run; it is not recorded, and the study can be resumed. */
  signal?: AbortSignal;
  hooks?: StudyHooks;
  /** Where the runs' islands run (kept up across runs); default: a local worker pool for this study. */
  host?: Launcher;
}

export interface StudyOutcome {
  total: number;
  /** Finished before this invocation (resume). */
  skipped: number;
  /** Finished by this invocation. */
  completed: number;
  /** Bytes of a half-written line dropped from runs.jsonl on resume. */
  droppedBytes: number;
  interrupted: boolean;
}

function newManifest(experiment: Experiment, events: boolean): Manifest {
  return {
    format: MANIFEST_FORMAT,
    name: experiment.name,
    description: experiment.description,
    experiment: {
      file: path.resolve(experiment.file),
      sha256: experiment.sha256,
      text: experiment.text,
      inputs: experiment.inputs,
      studySha256: experiment.studySha256,
    },
    keys: experiment.keys,
    seeds: experiment.seeds,
    baseline: experiment.baseline,
    cells: experiment.cells.map(({ id, values, baseline, config }) => ({
      id,
      values,
      baseline,
      repeatable: isRepeatable(config.migration.mode),
      config,
    })),
    repeatable: experiment.cells.every((cell) => isRepeatable(cell.config.migration.mode)),
    events,
    tool: toolInfo(),
    provenance: machineProvenance(),
    environment: environment(),
    startedAt: new Date().toISOString(),
    resumedAt: [],
  };
}

/**
 * On resume: the folder must hold this very study, made by this version, else its runs would
 * be mixed with another's. One line says which of the three differs.
 */
function checkSameStudy(manifest: Manifest, experiment: Experiment, outDir: string): void {
  const where = path.join(outDir, MANIFEST_FILE);
  const short = (hash: string | undefined) => (hash === undefined ? 'none' : `${hash.slice(0, 12)}...`);
  const { name, version } = toolInfo();
  const madeBy = manifest.provenance?.version ?? manifest.tool.version;
  if (madeBy !== version) {
    throw new ConfigError(
      `${where}: the study in this folder was made by ${name} ${madeBy}, this is ${version}; resume it with ${madeBy} or choose another --out`,
    );
  }
  const before = manifest.experiment.studySha256 ?? manifest.experiment.sha256;
  if (before !== experiment.studySha256) {
    const changed = experiment.inputs.find((input, i) => manifest.experiment.inputs?.[i]?.sha256 !== input.sha256) ?? experiment.inputs[0];
    throw new ConfigError(
      `${where}: the study in this folder was made from other files (study sha256 ${short(before)}, now ${short(experiment.studySha256)}: ${changed.file} differs); resume with the same files or choose another --out`,
    );
  }
  for (const cell of experiment.cells) {
    const saved = manifest.cells.find((c) => c.id === cell.id);
    const key = saved === undefined ? null : firstDifference(saved.config, cell.config);
    if (saved === undefined || key !== null) {
      const what =
        saved === undefined
          ? 'is not in it'
          : `now resolves ${key} to ${JSON.stringify(valueAt(cell.config, key!))} instead of ${JSON.stringify(valueAt(saved.config, key!))}`;
      throw new ConfigError(
        `${where}: cell ${cell.id} ${what} (a changed default, or this machine's core count when islands is null); choose another --out`,
      );
    }
  }
}

/** The first dotted key (in canonical order) at which two JSON values differ, or null when they are equal. */
function firstDifference(a: unknown, b: unknown, prefix = ''): string | null {
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const found = firstDifference(a[key], b[key], prefix === '' ? key : `${prefix}.${key}`);
      if (found !== null) return found;
    }
    return null;
  }
  return canonicalJson(a) === canonicalJson(b) ? null : prefix;
}

/** Runs one planned run to its end (or until `signal` aborts it); returns its record and events. */
async function runOne(
  planned: PlannedRun,
  host: Launcher,
  keepEvents: boolean,
  signal: AbortSignal | undefined,
): Promise<{ record: RunRecord; events: string[] } | null> {
  const run = startSeededRun({ ...planned.cell.config, seed: planned.seed }, { launcher: host });
  const events: string[] = [];
  const subscription = run.events$.subscribe((event: ArchipelagoEvent) => {
    if (keepEvents && event.type !== 'done') events.push(JSON.stringify(event));
  });
  const abort = () => run.stop();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    // With onIslandError: fail a failed island rejects the run; its result still says
    // which island failed, so it is recorded (and retried) like any other failed run.
    const result = await run.result.catch((error: unknown) => {
      if (error instanceof RunFailedError) return error.result;
      throw error;
    });
    if (signal?.aborted) return null;
    return { record: toRunRecord(planned.cell, result, { ...planned.cell.config, seed: planned.seed }), events };
  } finally {
    signal?.removeEventListener('abort', abort);
    subscription.unsubscribe();
  }
}

/** A study folder made ready: what is left to run, and how a finished run is saved. */
export interface OpenStudy {
  /** The runs not yet in runs.jsonl, seed-major. */
  todo: PlannedRun[];
  /** Counts so far (`completed` grows with each `save`). */
  outcome: StudyOutcome;
  /** Event logs are kept: asked for now, or when the study was started (a resumed study keeps its options). */
  events: boolean;
  /** Saves a finished run: its event log (when kept), then its line in runs.jsonl; calls onRunEnd. */
  save(planned: PlannedRun, finished: { record: RunRecord; events: string[] }): void;
  /** Releases the folder's lock (src/experiment/lock.ts); call it once the study ends, however it ends. */
  close(): void;
}

/**
 * Makes `outDir` ready for the study: a new study needs a missing or empty folder; `resume`
 * continues what an interrupted study in the folder has not finished. Local and distributed
 * studies (src/cluster) share it, so both keep the same files and crash rules. The folder is
 * locked until `close()`: a second writer is refused.
 * @throws ConfigError for a folder that cannot be used or is in use (the CLI exits 2, nothing written).
 */
export function openStudy(experiment: Experiment, options: Omit<StudyOptions, 'signal'>): OpenStudy {
  const { outDir } = options;
  const made = makeStudyFolder(outDir);
  let release: (() => void) | null = null;
  try {
    release = lockStudyFolder(outDir);
    return { ...prepareStudy(experiment, options), close: release };
  } catch (error) {
    // A study refused leaves no folder behind that it made. Without the lock only empty folders
    // go (rmdir): another writer may have locked the folder between our mkdir and our lock
    // (three `experiment --resume` at once on a new folder), and its files are not ours to remove.
    if (made !== undefined) {
      if (release !== null) rmSync(made, { recursive: true, force: true });
      else removeEmptyFolders(outDir, made);
    }
    release?.();
    throw error;
  }
}

/** Removes `dir`, then each folder above it up to `top`, while they are empty. */
function removeEmptyFolders(dir: string, top: string): void {
  const last = path.resolve(top);
  for (let folder = path.resolve(dir); ; folder = path.dirname(folder)) {
    try {
      rmdirSync(folder);
    } catch {
      return;
    }
    if (folder === last || path.dirname(folder) === folder) return;
  }
}

function prepareStudy(experiment: Experiment, options: Omit<StudyOptions, 'signal'>): Omit<OpenStudy, 'close'> {
  const { outDir, hooks = {} } = options;
  const mode = prepareFolder(outDir, options.resume);
  const manifestFile = path.join(outDir, MANIFEST_FILE);
  const runsFile = path.join(outDir, RUNS_FILE);
  let manifest: Manifest;
  let droppedBytes = 0;
  const done = new Set<string>();
  if (mode === 'resume') {
    manifest = readManifest(manifestFile);
    checkSameStudy(manifest, experiment, outDir);
    const runs = readRuns(runsFile, true);
    droppedBytes = runs.droppedBytes;
    for (const run of runs.runs) done.add(runKey(run.cell, run.seed));
    manifest.resumedAt.push(new Date().toISOString());
    manifest.events ||= options.events;
  } else {
    manifest = newManifest(experiment, options.events);
  }
  const { events } = manifest;
  writeManifest(outDir, manifest);
  if (events) mkdirSync(path.join(outDir, EVENTS_DIR), { recursive: true });

  const plan = planRuns(experiment);
  const todo = plan.filter((p) => !done.has(runKey(p.cell.id, p.seed)));
  const outcome: StudyOutcome = {
    total: plan.length,
    skipped: plan.length - todo.length,
    completed: 0,
    droppedBytes,
    interrupted: todo.length > 0,
  };
  hooks.onPlan?.(plan.length, outcome.skipped);
  return {
    todo,
    outcome,
    events,
    save(planned, finished) {
      // The event log first: a run is finished once its line is in runs.jsonl, and by then its log is whole.
      if (events)
        writeFileAtomic(path.join(outDir, eventLogPath(planned.cell.id, planned.seed)), finished.events.map((e) => `${e}\n`).join(''));
      appendLineSync(runsFile, JSON.stringify(finished.record));
      const index = outcome.skipped + outcome.completed++;
      outcome.interrupted = outcome.skipped + outcome.completed < outcome.total;
      hooks.onRunEnd?.(finished.record, index);
    },
  };
}

/**
 * Runs the study into `outDir`, one run after another on this machine (see `openStudy` for the folder).
 * @throws ConfigError for a folder that cannot be used (the CLI exits 2, nothing written).
 */
export async function runStudy(experiment: Experiment, options: StudyOptions): Promise<StudyOutcome> {
  const { signal, hooks = {} } = options;
  const study = openStudy(experiment, options);
  const { outcome } = study;
  // One warm pool for the whole study: each run gets fresh islands, ports and shared memory
  // on workers that stay up, so a run's cost is its search, not thread start-up.
  const ownHost = options.host ? null : new LocalHost(Math.max(0, ...study.todo.map((p) => p.cell.config.islands)));
  const host = options.host ?? ownHost!;
  try {
    for (const planned of study.todo) {
      if (signal?.aborted) break;
      hooks.onRunStart?.(planned, outcome.skipped + outcome.completed);
      let finished = await runOne(planned, host, study.events, signal);
      // A failed worker says nothing about the GA: run it again once before recording the failure.
      if (finished?.record.error) {
        hooks.onRetry?.(planned, finished.record.error);
        finished = await runOne(planned, host, study.events, signal);
      }
      if (finished === null) break;
      study.save(planned, finished);
    }
  } finally {
    study.close();
    await ownHost?.close();
  }
  return outcome;
}
