/**
 * What `solve` shows while a run goes, besides the run itself: the live view, the started
 * note, plain progress lines and the --trace file (src/cli/commands/solve-run.ts starts and
 * closes them).
 */
import { displayName } from '../config/config-file.ts';
import type { CheckpointFile } from '../run/checkpoint.ts';
import type { PipelineRun } from '../run/pipeline.ts';
import type { SeededRunConfig } from '../run/start-run.ts';
import { TraceWriter } from '../run/trace.ts';
import { printError } from './output.ts';
import { PROGRESS_LINE_SECONDS, showProgressLines } from './progress-lines.ts';
import { solveEstimate } from '../config/run-time.ts';
import { availableParallelism } from 'node:os';

/**
 * What follows a run while it goes: the live view (a terminal), the started note, plain
 * progress lines (stderr not a terminal, src/cli/progress-lines.ts) and the --trace file.
 */
export async function watchRun(
  run: PipelineRun,
  config: SeededRunConfig,
  args: { quiet: boolean; trace?: string; resume?: string },
  { live, notes, resumed }: { live: boolean; notes: boolean; resumed: CheckpointFile | null },
) {
  const view = live
    ? (await import('./live-view.ts')).showLiveView(run.events$, {
        n: config.n,
        islands: config.islands,
        seed: config.seed,
        topology: config.topology.kind,
        migration: `${config.migration.mode} every ${config.migration.interval}`,
      })
    : null;
  const lines =
    !args.quiet && !process.stderr.isTTY
      ? showProgressLines(run.events$, printError, {
          startEvaluations: resumed?.islands.reduce((sum, island) => sum + island.state.evaluations, 0) ?? 0,
          // Long enough to be worth saying: past two progress lines.
          estimate: solveEstimate(config, Math.min(config.islands, availableParallelism()), 2 * PROGRESS_LINE_SECONDS),
        })
      : null;
  const trace = args.trace === undefined ? null : new TraceWriter(args.trace, config);
  const subscription = run.events$.subscribe((event) => {
    trace?.write(event);
    if (event.type !== 'started' || !notes) return;
    const from = resumed ? `, resumed from ${displayName(args.resume!)}${resumed.epoch === null ? '' : ` at epoch ${resumed.epoch}`}` : '';
    printError(
      `started N=${config.n} on ${event.islands} island${event.islands === 1 ? '' : 's'}, seed ${config.seed}${from}; Ctrl-C stops and prints the best so far`,
    );
  });
  return {
    trace,
    close() {
      view?.close();
      lines?.close();
      subscription.unsubscribe();
    },
  };
}
