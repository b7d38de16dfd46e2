/**
 * The library: `import { solve, startRun, runExperiment, verify, topologies } from 'nqueens-islands'`.
 * The CLI is a layer over the same modules: a config here is what a config file holds, checked
 * by the same schema, and `solve()` resolves to the very record `solve --json` prints.
 */
import path from 'node:path';
import type { Observable } from 'rxjs';
import type { ArchipelagoEvent } from './archipelago/events.ts';
import { TOPOLOGY_KINDS, type Edge, type TopologyKind, type TopologySpec } from './topology/topology.ts';
import { buildTopology } from './topology/schema.ts';
import type { IslandHosts } from './archipelago/launcher.ts';
import type { ClusterOptions } from './cluster/study/study.ts';
import { resolveRunConfig, systemEnv, type ResolveEnv } from './config/resolve.ts';
import type { RunConfigInput } from './config/schema.ts';
import { experimentFromObject, loadExperiment } from './experiment/load.ts';
import type { StudyEdits } from './experiment/study-edits.ts';
import type { ExperimentInput } from './experiment/schema.ts';
import { runStudy, type StudyHooks, type StudyOutcome } from './experiment/runner.ts';
import { checkTuple, type TupleReport } from './problem/check-tuple.ts';
import { checkNumberArray, parseTuple } from './problem/tuple.ts';
import { RowArray, type Rows } from './problem/genes.ts';
import { writeError } from './io/write-file.ts';
import { ConfigError } from './config/errors.ts';
import { cannotListen } from './serve/options.ts';
import { writeRecord, type SolveRecord } from './run/result-record.ts';
import { checkBeforeRun, checkpointSeconds } from './run/pre-run.ts';
import { withSeed, type SeededRunConfig } from './run/start-run.ts';
import { DEFAULT_CHECKPOINT_EVERY } from './config/defaults.ts';
import { runPipeline } from './run/pipeline.ts';
import { OutputNotWrittenError } from './run/errors.ts';
import { ContainedObservable } from './run/contained-events.ts';

export type {
  ArchipelagoEvent,
  ArchipelagoResult,
  BetweenEvent,
  CheckpointEvent,
  DoneEvent,
  IslandErrorEvent,
  IslandResult,
  IslandSummary,
  MigrationEvent,
  ProgressEvent,
  SolutionEvent,
  StartedEvent,
  SurvivalEvent,
} from './archipelago/events.ts';
export type { TakeoverResult } from './ga/modes/coordinator-hook.ts';
export type { EmigrantSelectionName, ReplacementName, ExtraEmigrantSelections, ExtraReplacements } from './config/migration-policies.ts';
export { PAPER_CPU_MODEL } from './config/run-time.ts';
export type { RunConfig } from './config/run-config.ts';
export type { RunConfigInput } from './config/schema.ts';
export type { IslandGroup } from './archipelago/island-options.ts';
export type { IslandGroupInput } from './config/island-groups.ts';
export type { IslandSettings } from './run/island-settings.ts';
export type { Ending, IslandRecord, SolveRecord } from './run/result-record.ts';
export type { DroppedCounts } from './archipelago/launcher.ts';
export type { TupleReport } from './problem/check-tuple.ts';
export { RowArray, type Rows } from './problem/genes.ts';
export type { StudyHooks, StudyOutcome } from './experiment/runner.ts';
export type { RunRecord } from './experiment/records.ts';
export type { MachineProvenance, Provenance } from './provenance.ts';
export type { ExperimentInput } from './experiment/schema.ts';
export type { StudyEdits } from './experiment/study-edits.ts';
export { bundleStudy } from './experiment/load.ts';
export type { Edge, TopologyKind, TopologySpec } from './topology/topology.ts';
export type { SeededRunConfig } from './run/start-run.ts';
export { InputError } from './io/errors.ts';
import { largeNAdvice as adviceFor, paperSeconds as estimateSeconds } from './config/run-time.ts';
import { figureData as studyFigureData, type CellFigureData, type StudyReport } from './report/study-report.ts';
import { busOptions, CLUSTER_CALL_OPTIONS } from './cluster/library-options.ts';
import {
  abortSignal,
  anything,
  callback,
  checkedArgument,
  checkedOptions,
  fileName,
  flag,
  islandHosts,
  list,
  nonNegativeInteger,
  object,
  options as optionsOf,
  positiveInteger,
  text,
  type OptionSchema,
} from './config/library-options.ts';
export { ConfigError } from './config/errors.ts';
export { NoSolutionError, OutputNotWrittenError, RunFailedError } from './run/errors.ts';
export type { IslandHosts } from './archipelago/launcher.ts';
export type { ClusterOptions } from './cluster/study/study.ts';
export { studyReport, type StudyReport, type CellFigureData } from './report/study-report.ts';
export type { StudySummary, CellSummary, Comparison } from './report/statistics/summary.ts';
export { ERT_TARGETS, type TargetErt } from './report/statistics/target-ert.ts';
export type { ServeOptions, StudyServeOptions, ViewServer } from './serve/serve.ts';
import { SERVE_CHECKS, SERVE_PORT, serveExperiment, serveRunHandle, STUDY_SERVE_CHECKS, type StudyServeOptions } from './serve/serve.ts';
import type { ServeOptions, ViewServer } from './serve/serve.ts';
import { withStudyView } from './serve/study-hooks.ts';
// Across machines (docs/distributed.md): hosts and joinCluster live at 'nqueens-islands/cluster'.

/** A run in progress. */
export interface RunHandle {
  /**
   * Everything the run reports (see docs/events.md); completes when the run ends. An error
   * thrown by a subscriber's callback is contained: that subscriber is dropped, the run goes
   * on, and the error becomes a process warning (src/run/contained-events.ts).
   */
  events$: Observable<ArchipelagoEvent>;
  /**
   * The record `solve --json` prints. Rejects with RunFailedError when an island fails under
   * `onIslandError: 'fail'`, and with OutputNotWrittenError, which holds the record, when
   * `output.file` cannot be written at the end.
   */
  result: Promise<SolveRecord>;
  /** Ends the run early; `result` then says `ended: 'stopped'` with the best so far (or the solution, if one came first). */
  stop(): void;
  /** The resolved config, seed decided. */
  config: SeededRunConfig;
}

export interface RunOptions {
  /** Aborting it is `stop()`. */
  signal?: AbortSignal;
  /**
   * Run the islands on hosts elsewhere (`joinCluster` from 'nqueens-islands/cluster'; close it after the
   * run): `islands` then defaults to what the hosts offer, and the record names `hosts` and each island's `host`.
   */
  cluster?: IslandHosts;
  /**
   * Checkpoint the run into `file` every `everySeconds` (default 60), as `solve --checkpoint`
   * does (`solve --resume FILE` continues it); each is also a `checkpoint` event. A write that
   * fails is a process warning and the run goes on. Refused (ConfigError, nothing started)
   * with a `cluster`, whose islands are not checkpointed.
   */
  checkpoint?: { file: string; everySeconds?: number };
}

const RUN_OPTIONS = optionsOf({
  signal: abortSignal,
  cluster: islandHosts,
  // The period: checkpointSeconds checks it in its own words.
  checkpoint: optionsOf({ everySeconds: anything }, { file: fileName }),
} satisfies Record<keyof RunOptions, OptionSchema>);

/**
 * A run config as a config file holds it (only `n` is required), validated and with every
 * default filled in; a missing seed is drawn here.
 * @throws ConfigError (an InputError) naming the key and what was expected.
 */
export function resolveConfig(config: RunConfigInput): SeededRunConfig {
  return resolveOn(config, systemEnv());
}

/** `resolveConfig` with the machine facts given (islands across hosts default to what the hosts offer). */
function resolveOn(config: RunConfigInput, env: ResolveEnv): SeededRunConfig {
  return withSeed(resolveRunConfig(config, 'config', {}, env));
}

/**
 * Starts a run of the island model. N = 1 is answered at once.
 * @throws ConfigError for a bad config, or a checkpoint with a cluster; InputError for an
 * `output.file` or `checkpoint.file` that cannot be written (a missing folder, a read-only
 * file, ...); NoSolutionError for N = 2 and 3 (nothing is started).
 */
export function startRun(config: RunConfigInput, options: RunOptions = {}): RunHandle {
  const { cluster, checkpoint, signal } = checkedOptions(options, 'startRun options', RUN_OPTIONS);
  const seeded = resolveOn(config, cluster ? { ...systemEnv(), availableParallelism: cluster.islands } : systemEnv());
  // The CLI's checks too (run/pre-run.ts): a result or checkpoint file that cannot be written is refused before the run.
  checkBeforeRun(seeded.islands, {
    result: { name: 'output.file', file: seeded.output.file },
    ...(checkpoint ? { checkpoint: { name: 'checkpoint.file', file: checkpoint.file } } : {}),
  });
  const run = runPipeline(seeded, {
    ...(cluster ? { launcher: cluster.launcher } : {}),
    ...(signal ? { signal } : {}),
    ...(checkpoint
      ? {
          checkpoints: {
            file: checkpoint.file,
            everyMs: checkpointSeconds('checkpoint.everySeconds', checkpoint.everySeconds ?? DEFAULT_CHECKPOINT_EVERY) * 1000,
            onWrite: warnUnwritten(checkpoint.file),
          },
        }
      : {}),
  });
  const result = run.outcome.then(({ record, failure }) => {
    if (failure) throw failure;
    if (seeded.output.file !== null) writeOutput(seeded.output.file, record);
    return record;
  });
  return { events$: ContainedObservable.of(run.events$), result, stop: () => run.stop(), config: seeded };
}

/** A finished record is never lost to its output failing: the rejection carries it. */
function writeOutput(file: string, record: SolveRecord): void {
  try {
    writeRecord(file, record);
  } catch (error) {
    throw new OutputNotWrittenError(`${writeError('output.file', file, error)}; the record is this error's \`record\``, record, {
      cause: error,
    });
  }
}

/** A library run has no stderr of its own: a checkpoint that could not be written is a process warning. */
function warnUnwritten(file: string): (event: unknown, error: unknown, repeated: boolean) => void {
  return (_event, error, repeated) => {
    if (error !== null && !repeated)
      process.emitWarning(`${writeError('checkpoint.file', file, error)}; the run goes on (the previous checkpoint, if any, stays)`);
  };
}

/**
 * Solves one board: `await solve({ n: 16, islands: 2, topology: { kind: 'ring' } })`.
 * Resolves to the record `solve --json` prints (also when a limit ends the run unsolved:
 * then `solved` is false). Writes `output.file` when the config names one (when that fails at
 * the end, it rejects with OutputNotWrittenError, whose `record` is the finished record).
 */
export async function solve(config: RunConfigInput, options: RunOptions = {}): Promise<SolveRecord> {
  return startRun(config, options).result;
}

export interface ExperimentOptions {
  /** The study folder: missing or empty, or (with `resume`) the folder of the same study. Default `results/<name>`, as the CLI's. */
  out?: string;
  /** Continue an interrupted study in `out`. */
  resume?: boolean;
  /** Keep every run's event log in `out/events/` (what the report's curves are drawn from). */
  events?: boolean;
  /** Aborting stops the current run (not recorded); resume later. */
  signal?: AbortSignal;
  hooks?: StudyHooks;
  /** Spread the runs over hosts of a NATS broker (docs/distributed.md); each record then names its `host`. */
  cluster?: ClusterOptions;
  /** Changes to a study given as a file, as the CLI's `--set KEY=VALUE` and `--repeats K` (the file is left as it is). */
  edits?: StudyEdits;
  /** Serve the study's live view as it runs, as `experiment --serve` (docs/live-view.md); `onServe` gets it (its `url`, its `close()`). */
  serve?: StudyServeOptions;
}

/** Every hook a study takes (a misspelt one would be dropped without a word). */
const STUDY_HOOKS = {
  onPlan: callback,
  onSetAside: callback,
  onNote: callback,
  onRunStart: callback,
  onRunEvents: callback,
  onRunEnd: callback,
  onRetry: callback,
  onHosts: callback,
} satisfies Record<keyof StudyHooks, OptionSchema>;

const EXPERIMENT_OPTIONS = optionsOf({
  out: text,
  resume: flag,
  events: flag,
  signal: abortSignal,
  hooks: optionsOf(STUDY_HOOKS),
  cluster: object,
  edits: object,
  serve: STUDY_SERVE_CHECKS,
} satisfies Record<keyof ExperimentOptions, OptionSchema>);

/**
 * Runs a study (an experiment file's path, or the same content as an object) into a folder
 * that `nqueens-islands report` reads.
 * @throws ConfigError for a bad study or an unusable folder, before any run starts.
 */
export async function runExperiment(study: string | ExperimentInput, given?: ExperimentOptions): Promise<StudyOutcome> {
  const options = checkedOptions(given, 'runExperiment options', EXPERIMENT_OPTIONS);
  const experiment = typeof study === 'string' ? loadExperiment(study, undefined, options.edits) : experimentFromObject(study);
  const outDir = options.out ?? path.join('results', experiment.name);
  const cluster = options.cluster ? busOptions(options.cluster, 'runExperiment options: cluster', CLUSTER_CALL_OPTIONS) : null;
  const view = options.serve ? await serveExperiment(experiment, outDir, options.serve, 'runExperiment options') : null;
  const studyOptions = {
    outDir,
    resume: options.resume ?? false,
    events: options.events ?? false,
    signal: options.signal,
    hooks: withStudyView(options.hooks ?? {}, view),
  };
  try {
    if (!cluster) return await runStudy(experiment, studyOptions);
    // Loaded on use: the NATS client is no cost to a study on this machine.
    const { runStudyOnCluster } = await import('./cluster/study/study.ts');
    return await runStudyOnCluster(experiment, { ...studyOptions, ...cluster });
  } catch (error) {
    // A study that did not start (a bad folder, no broker): its view goes too.
    await view?.close();
    throw error;
  } finally {
    view?.finish();
  }
}

/**
 * Serves the view of a run started with `startRun` (docs/live-view.md): call it right after
 * `startRun`, before awaiting anything, so no event is missed. Resolves once it listens; it
 * serves until `close()`.
 * @throws ConfigError for a bad option, or a port it cannot listen on.
 */
export async function serveRun(run: Pick<RunHandle, 'config' | 'events$'>, options: ServeOptions): Promise<ViewServer> {
  const at = checkedOptions(options, 'serveRun options', SERVE_CHECKS);
  checkedArgument(at.port, 'serveRun options: port', SERVE_PORT);
  try {
    return await serveRunHandle(run, { ...at, port: at.port! });
  } catch (error) {
    const why = cannotListen(error, { ...at, port: at.port! });
    throw why === null ? error : new ConfigError(`serveRun options: port: ${why}`);
  }
}

/**
 * Checks one 1-based tuple (`[2, 4, 1, 3]` or text such as `"(2, 4, 1, 3)"`): permutation?,
 * the paper's fitness, and whether the independent validator accepts it as a solution.
 * @throws TupleSyntaxError (an InputError) for rows outside 1..N, an empty tuple, or anything
 * that is neither an array of row numbers nor text holding one.
 */
export function verify(tuple: Rows | string): TupleReport {
  // From JavaScript anything may come: null, [], an object; each is a TupleSyntaxError naming what was expected.
  // A run's typed rows (`RowArray`, from N = 2^20 on) hold positive integers by their type; checkTuple checks their range.
  const rows =
    typeof tuple === 'string'
      ? parseTuple(tuple)
      : tuple instanceof RowArray && tuple.length > 0
        ? tuple
        : checkNumberArray(tuple, 'tuple');
  return checkTuple(rows, 'tuple');
}

/** The topologies `topology.kind` takes, and the directed edges each gives for a number of islands. */
export const topologies: {
  readonly kinds: readonly TopologyKind[];
  /** Directed [from, to] pairs; the seed matters only to `random`. */
  edges(spec: TopologySpec, islands: number, seed?: number): Edge[];
} = Object.freeze({
  // Frozen, as every registry the library exports: a caller's change would reach every run.
  kinds: TOPOLOGY_KINDS,
  edges: (spec: TopologySpec, islands: number, seed = 0) =>
    buildTopology(spec, islands, checkedArgument(seed, 'topologies.edges: seed', nonNegativeInteger)),
});

/** Estimated wall seconds for paper mode to solve `n` with `parallel` islands at once (docs/large-n.md). @throws ConfigError */
export function paperSeconds(n: number, parallel: number): number {
  return estimateSeconds(
    checkedArgument(n, 'paperSeconds: n', positiveInteger),
    checkedArgument(parallel, 'paperSeconds: parallel', positiveInteger),
  );
}

/** The one line `solve` prints before a paper-mode run its estimate puts past an hour, else null. @throws ConfigError */
export function largeNAdvice(run: { n: number; ga: { mode: string } }, parallel: number): string | null {
  const given = checkedArgument(run, 'largeNAdvice: run', object) as { n: unknown; ga: unknown };
  checkedArgument(given.n, 'largeNAdvice: run.n', positiveInteger);
  checkedArgument(given.ga, 'largeNAdvice: run.ga', object);
  return adviceFor(run as Parameters<typeof adviceFor>[0], checkedArgument(parallel, 'largeNAdvice: parallel', positiveInteger));
}

/** Each figure's data of a study's report (`studyReport(dir).study`), per cell id. @throws ConfigError */
export function figureData(study: StudyReport['study']): Record<string, CellFigureData> {
  const given = checkedArgument(study, 'figureData: study', object) as unknown as Record<string, unknown>;
  checkedArgument(given.runs, 'figureData: study.runs', list);
  checkedArgument(given.manifest, 'figureData: study.manifest', object);
  return studyFigureData(study);
}
