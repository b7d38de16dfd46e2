import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { loadExperiment } from '../../experiment/load.ts';
import { progressBar } from '../../experiment/progress.ts';
import { runStudy } from '../../experiment/runner.ts';
import { printError } from '../output.ts';

interface ExperimentArgs {
  file: string;
  out?: string;
  resume: boolean;
  events: boolean;
}

/** Exit code of a study stopped by Ctrl-C or SIGTERM (128 + SIGINT), as shells expect. */
const EXIT_INTERRUPTED = 130;

async function run(args: ArgumentsCamelCase<ExperimentArgs>): Promise<void> {
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
      printError(`${outcome.total} runs (${outcome.completed} new) in ${outDir}; summary: nqueens-islands report ${outDir}`);
    }
  } finally {
    bar.stop();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

export const experimentCommand: CommandModule<object, ExperimentArgs> = {
  command: 'experiment <file>',
  describe: 'Run a migration study described in an experiment file (YAML/JSON)',
  builder: (y: Argv) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'experiment file: base config, sweep, repeats, seeds, baseline' })
      .option('out', { type: 'string', requiresArg: true, describe: 'result folder (default results/<experiment name>)' })
      .option('resume', { type: 'boolean', default: false, describe: 'continue an interrupted study in --out: skip its finished runs' })
      .option('events', { type: 'boolean', default: false, describe: 'also write each run\'s progress samples and migration log to events/' })
      .example('$0 experiment config/experiments/topology.yaml --out results/topology', 'run a study')
      .example('$0 experiment config/experiments/topology.yaml --out results/topology --resume', 'finish an interrupted one') as unknown as Argv<ExperimentArgs>,
  handler: run,
};
