import type { Argv, CommandModule } from 'yargs';
import { lastValue } from '../../schema/flag-value.ts';
import { CLUSTER_OPTIONS } from '../../cluster/flags.ts';
import { SERVE_OPTIONS } from '../../serve/flags.ts';
import type { ExperimentArgs } from './experiment-run.ts';

/** Changing a study without copying its file (docs/experiments.md). */
const EDIT_OPTIONS = {
  set: {
    type: 'string',
    array: true,
    requiresArg: true,
    describe:
      'change the study without copying its file: KEY=VALUE, a dotted key of the experiment file, the value as YAML (repeats=3, sweep.n=[8, 12], base.overrides.limits.maxIterations=500); repeatable',
  },
  repeats: {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    describe: "runs per cell: the first K of the study's seeds (a smaller study to try it out)",
  },
  bundle: {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    describe:
      'write the study (with --set/--repeats) to FILE as one self-contained file, its base run config inlined (for a Kubernetes ConfigMap); runs nothing',
  },
} as const;

/** Sizing a design before it runs (docs/experiments.md, "Designs that can answer"). */
const PLAN_OPTIONS = {
  plan: {
    type: 'boolean',
    default: false,
    describe: "print the design (each family's tests and the smallest adjusted p its seeds can reach) and run nothing",
  },
  pilot: {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    describe: 'with --plan: an earlier study folder whose paired log ratios of evaluations size this study for 80% power',
  },
  detect: {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    describe: 'with --plan --pilot: the paired ratio of evaluations to detect (default 0.8)',
  },
} as const;

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
      .options(EDIT_OPTIONS)
      .option('resume', { type: 'boolean', default: false, describe: 'continue an interrupted study in --out: skip its finished runs' })
      .option('events', {
        type: 'boolean',
        default: false,
        describe: "also write each run's progress samples and migration log to events/",
      })
      .option('shard', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe:
          'run only slice I of N of the study (I from 1), into its own records file in --out; auto: from Slurm (SLURM_ARRAY_TASK_ID, _MIN, _MAX, _COUNT) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX with NQI_SHARD_COUNT); see docs/hpc.md',
      })
      .option('status', {
        type: 'boolean',
        default: false,
        describe: 'read <file> as a result folder and show its runs recorded, per shard for a study run in shards',
      })
      .option('mixed-builds', {
        type: 'boolean',
        default: false,
        describe:
          "resume although this build's commit, uncommitted changes or Node version differ from the study's (the manifest records it)",
      })
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'no progress bar or progress lines on stderr' })
      .options(PLAN_OPTIONS)
      .options(CLUSTER_OPTIONS)
      .options(SERVE_OPTIONS)
      .example('$0 experiment config/experiments/topology.yaml --out results/topology', 'run a study')
      .example('$0 experiment config/experiments/topology.yaml --out results/topology --resume', 'finish an interrupted one')
      .example('$0 experiment config/experiments/topology.yaml --out results/topology --shard 2/8', 'run the 2nd of 8 slices (one per job)')
      .example('$0 experiment config/experiments/topology.yaml --repeats 2 --set sweep.n=[16]', 'a smaller study, the file unchanged')
      .example('$0 experiment config/experiments/islands.yaml --bundle study.yaml', 'one file for a ConfigMap (docs/hpc.md)')
      .example('$0 experiment results/topology --status', "the study's progress, per shard")
      .example('$0 experiment config/experiments/topology.yaml --plan --pilot results/pilot', 'can its seeds answer? how many would?')
      .example(
        '$0 experiment config/experiments/topology.yaml --nats nats://lab-server:4222 --hosts 3',
        'spread its runs over three `host` machines',
      ) as unknown as Argv<ExperimentArgs>,
  handler: async (args) => (await import('./experiment-run.ts')).experiment(args),
};
