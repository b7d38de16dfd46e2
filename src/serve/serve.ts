/**
 * The live view, served (docs/live-view.md): a run as it goes (`serveRun`), a study as it goes
 * (`serveStudy`), and the same page for what is on disk: a trace or event log
 * (`serveRunFile`) and a study folder (`serveStudyFolder`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Observable } from 'rxjs';
import type { ArchipelagoEvent } from '../archipelago/events.ts';
import type { RunRecord } from '../experiment/records.ts';
import { readRuns, RUNS_FILE } from '../experiment/store.ts';
import { eventLogPath } from '../experiment/runner.ts';
import { readStudy } from '../report/data/study-data.ts';
import { traceHeader } from '../run/trace.ts';
import type { SeededRunConfig } from '../run/start-run.ts';
import { newRunCursor, RunState, runHeader, type RunSource } from './run-state.ts';
import { replayFile } from './replay.ts';
import type { ServeOptions } from './options.ts';
import { startViewServer, type ViewServer, type ViewSource, type ViewStream } from './server.ts';
import { StudyState, type StudyPlan } from './study-state.ts';

export type { ServeOptions } from './options.ts';
export type { ViewServer } from './server.ts';

/** A page's stream of one run: the snapshot, then what changed; it ends once the page has the run's end. */
export function runStream(state: RunState): ViewStream {
  const cursor = newRunCursor();
  return {
    next: () => (state.changedSince(cursor) ? state.viewSince(cursor) : null),
    get ended() {
      return state.finished && !state.changedSince(cursor);
    },
  };
}

/** A run's view, served before the run starts (its URL can be printed first); `watch` hands it the run's events. */
export interface RunServer extends ViewServer {
  /** Subscribes to the run's events at once (they are not replayed): call it as the run starts. The run is not touched otherwise. */
  watch(events$: Observable<ArchipelagoEvent>): void;
}

/** Serves the view of a run of `config` (`solve --serve`). */
export async function serveRun(config: SeededRunConfig, options: ServeOptions): Promise<RunServer> {
  const state = new RunState(runHeader(traceHeader(config)));
  const server = await startViewServer((run) => (run === null ? runStream(state) : null), options);
  return { ...server, watch: (events$) => void events$.subscribe((event) => state.add(event)) };
}

/**
 * The library's way to watch a run in the browser (docs/library.md): serves the view of a run
 * started with `startRun`, fed by its events. Call it right after `startRun` (before awaiting
 * anything): the run's state subscribes at once, so no event is missed while the server starts.
 * The server stays up until `close()`.
 */
export async function serveRunHandle(
  run: { config: SeededRunConfig; events$: Observable<ArchipelagoEvent> },
  options: ServeOptions,
): Promise<ViewServer> {
  const state = new RunState(runHeader(traceHeader(run.config)));
  run.events$.subscribe((event) => state.add(event));
  return startViewServer((key) => (key === null ? runStream(state) : null), options);
}

/** `report --run FILE --serve`: the page of a `solve --trace` file or a study's event log, read as a stream. */
export async function serveRunFile(file: string, options: ServeOptions): Promise<ViewServer> {
  const state = await replayFile(file);
  return startViewServer((run) => (run === null ? runStream(state) : null), options);
}

/** A page's stream of a study: the whole study view whenever it changed (it is small). */
function studyStream(state: StudyState): ViewStream {
  let seen = -1;
  return {
    next: () => {
      if (seen === state.changes) return null;
      seen = state.changes;
      return state.view();
    },
    get ended() {
      return state.finished && seen === state.changes;
    },
  };
}

/** A finished run's event log in the study folder `dir`, or null when the study keeps none. */
function eventLog(dir: string, cell: string, seed: number): string | null {
  const file = path.join(dir, eventLogPath(cell, seed));
  return existsSync(file) ? file : null;
}

/** The view's source for a study: the study itself, a run going on, or a finished run's event log in `dir`. */
function studySource(state: StudyState, dir: string): ViewSource {
  return (run) => {
    if (run === null) return studyStream(state);
    const live = state.running.get(run);
    if (live) return runStream(live);
    const at = run.lastIndexOf('@');
    const cell = state.plan.cells.find((c) => c.id === run.slice(0, at));
    const seed = Number(run.slice(at + 1));
    if (cell === undefined || !state.plan.seeds.includes(seed)) return null;
    const file = eventLog(dir, cell.id, seed);
    if (file === null) return null;
    return replayedLog(
      file,
      { config: { ...cell.config, seed }, provenance: state.plan.provenance, tool: state.plan.tool },
      state.record(cell.id, seed),
    );
  };
}

/** A study's finished run from its event log (null: damaged or half-written; the study view still lists it). */
async function replayedLog(file: string, header: RunSource, record: RunRecord | undefined): Promise<ViewStream | null> {
  try {
    const replayed = await replayFile(file, header);
    // A study's event log stops short of `done`: the run's record says how it ended.
    if (!replayed.finished && record) replayed.end({ ...record, foundAtIteration: record.solved ? record.iterations : null });
    return runStream(replayed);
  } catch {
    return null;
  }
}

/** What `experiment --serve` hands the study runner: each run's events as it starts (a retry starts afresh), each run's end. */
export interface StudyServer extends ViewServer {
  /** The study folder is ready: the runs already in it (a resumed study) are shown. */
  opened(): void;
  runEvents(cell: string, seed: number, events$: Observable<ArchipelagoEvent>): void;
  runEnded(record: RunRecord): void;
  /** The study is over: the pages get the last view. */
  finish(): void;
}

/** Serves a study as it goes into the folder `dir`. */
export async function serveStudy(plan: StudyPlan, dir: string, options: ServeOptions): Promise<StudyServer> {
  const state = new StudyState(plan, (cell, seed) => eventLog(dir, cell, seed) !== null);
  const server = await startViewServer(studySource(state, dir), options);
  return {
    ...server,
    opened: () => {
      for (const record of readRuns(path.join(dir, RUNS_FILE)).runs) state.runEnded(record);
    },
    runEvents: (cell, seed, events$) => {
      const live = state.runStarted(cell, seed);
      if (live) events$.subscribe((event) => live.add(event));
    },
    runEnded: (record) => state.runEnded(record),
    finish: () => state.finish(),
  };
}

/** `report DIR --serve`: the page of a study folder as it is. */
export function serveStudyFolder(dir: string, options: ServeOptions): Promise<ViewServer> {
  const study = readStudy(dir);
  const { manifest } = study;
  const plan: StudyPlan = {
    name: manifest.name,
    seeds: manifest.seeds,
    cells: manifest.cells,
    provenance: manifest.provenance ?? null,
    tool: manifest.tool,
  };
  const state = new StudyState(plan, (cell, seed) => eventLog(dir, cell, seed) !== null);
  for (const record of [...study.runs, ...study.failed]) state.runEnded(record);
  state.finish();
  return startViewServer(studySource(state, dir), options);
}
