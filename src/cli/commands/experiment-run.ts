/** The work behind `experiment`, imported only when the command runs (the study runner pulls in threads, zod and rxjs). */
import path from 'node:path';
import type { ArgumentsCamelCase } from 'yargs';
import { loadExperiment } from '../../experiment/load.ts';
import { progressBar } from '../../experiment/progress.ts';
import { runStudy } from '../../experiment/runner.ts';
import { printError } from '../output.ts';
import { claimSignals, SIGNAL_EXIT_CODE } from '../signals.ts';

export interface ExperimentArgs {
  file: string;
  out?: string;
  resume: boolean;
  events: boolean;
}


export async function experiment(args: ArgumentsCamelCase<ExperimentArgs>): Promise<void> {
  const experiment = loadExperiment(args.file);
  const outDir = args.out ?? path.join('results', experiment.name);
  const controller = new AbortController();
  // The first signal stops the current run (the study can be resumed); a second quits at once.
  const release = claimSignals((signal) => (controller.signal.aborted ? process.exit(SIGNAL_EXIT_CODE[signal]) : controller.abort()));
  const bar = progressBar();
  bar.hooks.onRetry = (planned, error) => printError(`run ${planned.cell.id} seed ${planned.seed}: ${error}; running it once more`);
  try {
    const outcome = await runStudy(experiment, { outDir, resume: args.resume, events: args.events, signal: controller.signal, hooks: bar.hooks });
    bar.stop();
    if (outcome.droppedBytes > 0) printError(`${outDir}/runs.jsonl: dropped a half-written last line (${outcome.droppedBytes} bytes) left by an interrupted run`);
    const done = outcome.skipped + outcome.completed;
    if (outcome.interrupted) {
      printError(`interrupted: ${done} of ${outcome.total} runs are in ${outDir}; continue with: nqueens-islands experiment ${args.file} --out ${outDir} --resume`);
      // 128 + SIGINT, as shells expect of a study stopped by Ctrl-C (or SIGTERM).
      process.exitCode = SIGNAL_EXIT_CODE.SIGINT;
    } else {
      printError(`${outcome.total} run${outcome.total === 1 ? '' : 's'} (${outcome.completed} new) in ${outDir}; summary: nqueens-islands report ${outDir}`);
    }
  } finally {
    bar.stop();
    release();
  }
}
