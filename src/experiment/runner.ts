/**
 * Runs a study: every (cell, seed) once, one run at a time so each gets all the cores.
 * The order is seed-major (seed 1 in every cell, then seed 2, ...): a study stopped early
 * still has complete pairs for the paired tests, and slow drifts of the machine (other
 * load, heat) fall on all cells alike instead of on the cells that happened to run last.
 */
import { rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Observable } from 'rxjs';
import type { ArchipelagoEvent } from '../archipelago/events.ts';
import { RecordEvents } from '../archipelago/record-cut.ts';
import type { Launcher } from '../archipelago/launcher.ts';
import { LocalHost } from '../archipelago/local-host.ts';
import { threadsFor } from '../archipelago/threads.ts';
import { defaultThreads } from '../config/defaults.ts';
import { ConfigError } from '../config/errors.ts';
import { machineProvenance } from '../provenance.ts';
import { runPipeline } from '../run/pipeline.ts';
import type { Experiment } from './load.ts';
import { planRuns, recordedRuns, type PlannedRun, type SetAside, type StudyFiles } from './plan.ts';
import { toRunRecord, type RunRecord } from './records.ts';
import { LOCK_FILE, lockStudyFolder, type StudyLock } from './lock.ts';
import { checkSameStudy, newManifest } from './manifest.ts';
import { shardFiles, shardLockFile } from './shard-folder.ts';
import type { Shard } from './shard.ts';
import {
  appendLineSync,
  EVENTS_DIR,
  MANIFEST_FILE,
  makeEventsFolder,
  makeStudyFolder,
  prepareFolder,
  readManifest,
  runKey,
  RUNS_FILE,
  writeFileAtomic,
  writeManifest,
} from './store.ts';
import { cellFileName } from './sweep.ts';

export { planRuns, type PlannedRun } from './plan.ts';

/** Event-log file of one run, relative to the study folder (one file per cell and seed, see cellFileName). */
export function eventLogPath(cell: string, seed: number, name: (cell: string) => string = cellFileName): string {
  return path.join(EVENTS_DIR, `${name(cell)}__seed-${seed}.jsonl`);
}

export interface StudyHooks {
  /** Before the first run: how many runs there are and how many were already done. */
  onPlan?(total: number, done: number): void;
  /** On resume, before onPlan: records that did not fit the study were set aside (their runs are run again). */
  onSetAside?(setAside: SetAside): void;
  onRunStart?(run: PlannedRun, index: number): void;
  /**
   * The events of a run as it goes (docs/events.md), e.g. for the live view; each attempt of a retried run anew.
   * A run at a host of a distributed study: its islands' progress events only, about once a second.
   */
  onRunEvents?(run: PlannedRun, events$: Observable<ArchipelagoEvent>): void;
  onRunEnd?(record: RunRecord, index: number): void;
  /** A run whose island failed is run once more. */
  onRetry?(run: PlannedRun, error: string): void;
  /** Distributed studies: every host and what it runs, whenever that changes. */
  onHosts?(hosts: readonly HostActivity[]): void;
  /** A line to tell the user: waiting for a lock's lease, or taking a stale lock over (lock.ts). */
  onNote?(line: string): void;
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
  /** Run only this shard's slice of the study, into its own records file (shard.ts); it always continues its slice. */
  shard?: Shard;
  /** Resume although this build (commit, uncommitted changes, Node version) is not the study's; the manifest records it. */
  mixedBuilds?: boolean;
}

export interface StudyOutcome {
  total: number;
  /** Finished before this invocation (resume). */
  skipped: number;
  /** Finished by this invocation. */
  completed: number;
  /** Bytes of a half-written line dropped from runs.jsonl on resume. */
  droppedBytes: number;
  /** Records that did not fit the study, set aside on resume (their runs are among those run). */
  setAside: SetAside | null;
  interrupted: boolean;
}

/** Runs one planned run through the run pipeline to its end (or until `signal` aborts it); returns its record and events. */
async function runOne(
  planned: PlannedRun,
  host: Launcher,
  keepEvents: boolean,
  signal: AbortSignal | undefined,
  hooks: StudyHooks,
): Promise<{ record: RunRecord; events: string[] } | null> {
  const run = runPipeline({ ...planned.cell.config, seed: planned.seed }, { launcher: host, ...(signal ? { signal } : {}) });
  hooks.onRunEvents?.(planned, run.events$);
  const events = new RecordEvents();
  const subscription = run.events$.subscribe((event: ArchipelagoEvent) => {
    if (keepEvents) events.add(event);
  });
  try {
    // A failed island (onIslandError: fail) is in the outcome's record too: it is recorded, and retried, like any failed run.
    const { record, result } = await run.outcome;
    if (signal?.aborted) return null;
    return { record: toRunRecord(planned.cell, record), events: events.lines(result) };
  } finally {
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
  let lock: StudyLock | null = null;
  try {
    const name = options.shard === undefined ? LOCK_FILE : shardLockFile(options.shard);
    lock = lockStudyFolder(outDir, '--out', name, options.hooks?.onNote);
    const held = lock;
    const study = prepareStudy(experiment, options);
    // A holder stopped for longer than its lease may have lost the lock: it records nothing then,
    // and says so even when it wakes to find nothing left to run (stopped before it planned).
    held.assertHeld();
    const save: OpenStudy['save'] = (planned, finished) => {
      held.assertHeld();
      study.save(planned, finished);
    };
    return { ...study, save, close: held.release };
  } catch (error) {
    // A study refused leaves no folder behind that it made. Without the lock only empty folders
    // go (rmdir): another writer may have locked the folder between our mkdir and our lock
    // (three `experiment --resume` at once on a new folder), and its files are not ours to remove.
    // A shard's folder is shared: only what is left empty once its own lock is gone.
    const ours = lock !== null && options.shard === undefined;
    if (made !== undefined && ours) rmSync(made, { recursive: true, force: true });
    lock?.release();
    if (made !== undefined && !ours) removeEmptyFolders(outDir, made);
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

/** The files of a study run by one process: runs.jsonl beside manifest.json. */
function oneProcessFiles(experiment: Experiment, options: Omit<StudyOptions, 'signal'>): StudyFiles {
  const { outDir } = options;
  const mode = prepareFolder(outDir, options.resume);
  const runsFile = path.join(outDir, RUNS_FILE);
  if (mode === 'new') {
    const manifest = newManifest(experiment, options.events);
    writeManifest(outDir, manifest);
    return { manifest, runsFile, plan: planRuns(experiment), done: new Set(), droppedBytes: 0, setAside: null };
  }
  const manifest = readManifest(path.join(outDir, MANIFEST_FILE));
  if (manifest.shards !== undefined)
    throw new ConfigError(
      `--out ${outDir}: the study in this folder runs in ${manifest.shards} shards; continue each with --shard I/${manifest.shards}`,
    );
  const differs = checkSameStudy(manifest, experiment, outDir, options.mixedBuilds);
  const now = new Date().toISOString();
  if (differs !== null) (manifest.mixedBuilds ??= []).push({ at: now, differs, provenance: machineProvenance() });
  manifest.resumedAt.push(now);
  manifest.events ||= options.events;
  writeManifest(outDir, manifest);
  return { manifest, runsFile, plan: planRuns(experiment), ...recordedRuns(runsFile, manifest) };
}

function prepareStudy(experiment: Experiment, options: Omit<StudyOptions, 'signal'>): Omit<OpenStudy, 'close'> {
  const { outDir, hooks = {} } = options;
  const { manifest, runsFile, plan, done, droppedBytes, setAside } =
    options.shard === undefined ? oneProcessFiles(experiment, options) : shardFiles(experiment, options, options.shard);
  const { events } = manifest;
  if (events) makeEventsFolder(outDir);

  const todo = plan.filter((p) => !done.has(runKey(p.cell.id, p.seed)));
  const outcome: StudyOutcome = {
    total: plan.length,
    skipped: plan.length - todo.length,
    completed: 0,
    droppedBytes,
    setAside,
    interrupted: todo.length > 0,
  };
  if (setAside !== null) hooks.onSetAside?.(setAside);
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
  // on workers that stay up, so a run's cost is its search, not thread start-up. As many
  // workers as its largest run uses (a small run's one: config/defaults.ts).
  const threads = study.todo.map(({ cell: { config } }) => threadsFor(config.islands, config.threads ?? defaultThreads(config)));
  const ownHost = options.host ? null : new LocalHost(Math.max(0, ...threads));
  const host = options.host ?? ownHost!;
  try {
    for (const planned of study.todo) {
      if (signal?.aborted) break;
      hooks.onRunStart?.(planned, outcome.skipped + outcome.completed);
      let finished = await runOne(planned, host, study.events, signal, hooks);
      // A failed worker says nothing about the GA: run it again once before recording the failure.
      if (finished?.record.error) {
        hooks.onRetry?.(planned, finished.record.error);
        finished = await runOne(planned, host, study.events, signal, hooks);
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
