/**
 * The live view, served (docs/live-view.md): a run as it goes (`serveRun`), a study as it goes
 * (`serveStudy`), and the same page for what is on disk: a trace or event log
 * (`serveRunFile`) and a study folder (`serveStudyFolder`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Observable } from 'rxjs';
import type { ArchipelagoEvent } from '../archipelago/events.ts';
import type { Experiment } from '../experiment/load.ts';
import type { RunRecord } from '../experiment/records.ts';
import { toolInfo } from '../package-info.ts';
import { machineProvenance } from '../provenance.ts';
import { readRuns, RUNS_FILE } from '../experiment/store.ts';
import { eventLogPath } from '../experiment/runner.ts';
import { readStudy } from '../report/data/study-data.ts';
import { traceHeader } from '../run/trace.ts';
import type { SeededRunConfig } from '../run/start-run.ts';
import { newRunCursor, RunState, runHeader, type RunSource } from './run-state.ts';
import { replayFile } from './replay.ts';
import { cannotListen, type ServeOptions } from './options.ts';
import { ConfigError } from '../config/errors.ts';
import { z } from 'zod';
import { callback, options, text, type OptionSchema } from '../config/library-options.ts';
import { expected, int } from '../schema/fields.ts';
import { startViewServer, type ViewData, type ViewServer, type ViewSource, type ViewStream } from './server.ts';
import { recordEnd, StudyState, type StudyPlan } from './study-state.ts';

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

/** What a study page fetches: the runs of the cell it shows overlaid (`cell?id=CELL`). */
function studyData(state: StudyState): ViewData {
  return { '/cell': (query) => state.cellRuns(query.get('id') ?? '') };
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
    if (!replayed.finished && record) replayed.end(recordEnd(record));
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
  const server = await startViewServer(studySource(state, dir), options, studyData(state));
  return {
    ...server,
    opened: () => {
      for (const record of readRuns(path.join(dir, RUNS_FILE)).runs) state.runEnded(record);
    },
    runEvents: (cell, seed, events$) => {
      const live = state.runStarted(cell, seed);
      // A stream that ends before the run's record (a host that went, a run given back): no longer going on.
      if (live) events$.subscribe({ next: (event) => live.add(event), complete: () => state.runGone(cell, seed, live) });
    },
    runEnded: (record) => state.runEnded(record),
    finish: () => state.finish(),
  };
}

/** What the view of a study run from `experiment` knows of it (`experiment --serve`, `runExperiment`'s `serve`). */
export function experimentPlan(experiment: Experiment): StudyPlan {
  const { name, seeds, cells } = experiment;
  return { name, seeds, cells, provenance: machineProvenance(), tool: toolInfo() };
}

/** The library's serve options, checked as its calls' options are (config/library-options.ts). */
export const SERVE_PORT = int(0, { max: 65535 });
const SERVE_FIELDS = {
  port: SERVE_PORT,
  host: text,
  stallSeconds: z
    .number({ error: expected('a number of seconds > 0') })
    .positive({ error: expected('a number of seconds > 0') })
    .finite(),
} satisfies Record<keyof ServeOptions, OptionSchema>;
export const SERVE_CHECKS = options(SERVE_FIELDS);

/** `runExperiment`'s `serve`: where to serve the study's view (docs/live-view.md), and who gets it. */
export interface StudyServeOptions extends ServeOptions {
  /** Gets the view once it listens, before the first run: its `url`, and its `close()` (it stays up after the study until then). */
  onServe(view: ViewServer): void;
}

export const STUDY_SERVE_CHECKS = options({ ...SERVE_FIELDS, onServe: callback } satisfies Record<keyof StudyServeOptions, OptionSchema>);

/**
 * The library's study view: served before the study's first run and handed to `onServe`.
 * @throws ConfigError (`what: serve...`) without `onServe` (the view could never be closed) or when it cannot listen.
 */
export async function serveExperiment(experiment: Experiment, dir: string, given: StudyServeOptions, what: string): Promise<StudyServer> {
  const { onServe, ...at } = given;
  if (typeof onServe !== 'function') throw new ConfigError(`${what}: serve.onServe: expected a function that takes the view`);
  let view: StudyServer;
  try {
    view = await serveStudy(experimentPlan(experiment), dir, at);
  } catch (error) {
    const why = cannotListen(error, at);
    throw why === null ? error : new ConfigError(`${what}: serve.port: ${why}`);
  }
  onServe(view);
  return view;
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
  return startViewServer(studySource(state, dir), options, studyData(state));
}
