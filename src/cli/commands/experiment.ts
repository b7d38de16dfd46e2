import type { Argv, CommandModule } from 'yargs';
import { lastValue } from '../../schema/flag-value.ts';
import { CLUSTER_OPTIONS } from '../../cluster/flags.ts';
import { SERVE_OPTIONS } from '../../serve/flags.ts';
import type { ExperimentArgs } from './experiment-run.ts';

export const experimentCommand: CommandModule<object, ExperimentArgs> = {
  command: 'experiment <file>',
  describe: 'Run a migration study described in an experiment file (YAML/JSON)',
  builder: (y: Argv) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'experiment file: base config, sweep, repeats, seeds, baseline' })
      .option('out', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe: 'result folder (default results/<experiment name>)',
      })
      .option('resume', { type: 'boolean', default: false, describe: 'continue an interrupted study in --out: skip its finished runs' })
      .option('events', {
        type: 'boolean',
        default: false,
        describe: "also write each run's progress samples and migration log to events/",
      })
      .options(CLUSTER_OPTIONS)
      .options(SERVE_OPTIONS)
      .example('$0 experiment config/experiments/topology.yaml --out results/topology', 'run a study')
      .example('$0 experiment config/experiments/topology.yaml --out results/topology --resume', 'finish an interrupted one')
      .example(
        '$0 experiment config/experiments/topology.yaml --nats nats://lab-server:4222 --hosts 3',
        'spread its runs over three `host` machines',
      ) as unknown as Argv<ExperimentArgs>,
  handler: async (args) => (await import('./experiment-run.ts')).experiment(args),
};
