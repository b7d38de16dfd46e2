/** The work behind `experiment`, imported only when the command runs (the study runner pulls in threads, zod and rxjs). */
import path from 'node:path';
import type { ArgumentsCamelCase } from 'yargs';
import { loadExperiment } from '../../experiment/load.ts';
import { progressBar } from '../../experiment/progress.ts';
import { runStudy } from '../../experiment/runner.ts';
import { printError } from '../output.ts';

export interface ExperimentArgs {
  file: string;
  out?: string;
  resume: boolean;
  events: boolean;
}

/** Exit code of a study stopped by Ctrl-C or SIGTERM (128 + SIGINT), as shells expect. */
const EXIT_INTERRUPTED = 130;

export async function experiment(args: ArgumentsCamelCase<ExperimentArgs>): Promise<void> {
  const experiment = loadExperiment(args.file);
  const outDir = args.out ?? path.join('results', experiment.name);
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const bar = progressBar();
  bar.hooks.onRetry = (planned, error) => printError(`run ${planned.cell.id} seed ${planned.seed}: ${error}; running it once more`);
  try {
    const outcome = await runStudy(experiment, { outDir, resume: args.resume, events: args.events, signal: controller.signal, hooks: bar.hooks });
    bar.stop();
    if (outcome.droppedBytes > 0) printError(`${outDir}/runs.jsonl: dropped a half-written last line (${outcome.droppedBytes} bytes) left by an interrupted run`);
    const done = outcome.skipped + outcome.completed;
    if (outcome.interrupted) {
      printError(`interrupted: ${done} of ${outcome.total} runs are in ${outDir}; continue with: nqueens-islands experiment ${args.file} --out ${outDir} --resume`);
      process.exitCode = EXIT_INTERRUPTED;
    } else {
      printError(`${outcome.total} run${outcome.total === 1 ? '' : 's'} (${outcome.completed} new) in ${outDir}; summary: nqueens-islands report ${outDir}`);
    }
  } finally {
    bar.stop();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
