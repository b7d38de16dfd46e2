import type { Argv, CommandModule } from 'yargs';
import { lastValue, numberInHelp } from '../../schema/flag-value.ts';
import { MAX_BOARD_N } from '../../problem/board.ts';
import { withRunConfigFlags } from '../run-flags.ts';
import { CLUSTER_OPTIONS } from '../../cluster/flags.ts';
import { SERVE_OPTIONS } from '../../serve/flags.ts';
import type { SolveArgs } from './solve-run.ts';
import { DEFAULT_CHECKPOINT_EVERY } from '../../config/defaults.ts';

export const solveCommand: CommandModule<object, SolveArgs> = {
  command: 'solve',
  describe: 'Solve N-Queens with the island-model GA (one island per core by default)',
  builder: async (y: Argv) =>
    (await withRunConfigFlags(y))
      .option('json', { type: 'boolean', default: false, describe: 'print one JSON object with the result' })
      .option('board', { type: 'boolean', default: false, describe: `draw the board (N <= ${MAX_BOARD_N})` })
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'no live view, and no started/checkpoint notes on stderr' })
      .option('all', { type: 'boolean', default: false, describe: 'print long solutions in full' })
      .option('trace', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe: "write the run's events (progress samples, migrations, solution) to FILE as JSON lines; draw them with report --run FILE",
      })
      .option('checkpoint', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        group: 'Checkpoints:',
        describe: "save every island's state to FILE now and then (atomic: the last good one always survives)",
      })
      .option('checkpoint-every', {
        type: 'string',
        ...numberInHelp(),
        requiresArg: true,
        coerce: lastValue,
        group: 'Checkpoints:',
        describe: `seconds between checkpoints (> 0; default ${DEFAULT_CHECKPOINT_EVERY})`,
      })
      .options(CLUSTER_OPTIONS)
      .options(SERVE_OPTIONS)
      .option('resume', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        group: 'Checkpoints:',
        describe:
          'continue the run saved in FILE; only --max-iterations, --max-evaluations, --time-limit, --on-island-error, --out and --threads may change',
      })
      .example('$0 solve -n 200', 'all cores, default migration')
      .example(
        '$0 solve -n 64 --islands 4 --topology ring --migration sync --interval 10 --migrants 2 --seed 7',
        'repeatable: sync migration and a seed give the same run every time',
      )
      .example('$0 solve --config config/paper.yaml -n 25', "the paper's GA on one island")
      .example('$0 solve -n 5000 --checkpoint run.ckpt --checkpoint-every 300', 'a long run that survives a reboot')
      .example('$0 solve --resume run.ckpt', 'continue it')
      .example('$0 solve -n 500 --islands 8 --topology ring --serve 0', 'watch it in the browser (the URL is the first line on stderr)')
      .example(
        '$0 solve -n 64 --islands 256 --threads 2 --seed 1',
        'many islands on two worker threads: an island costs its populations, not a thread',
      )
      .example(
        '$0 solve -n 1000 --islands 8 --nats nats://lab1:4222 --hosts 2',
        "islands on two machines' `host` processes",
      ) as unknown as Argv<SolveArgs>,
  // Imported on use: `--help` and the other commands start without threads, zod or rxjs.
  handler: async (args) => (await import('./solve-run.ts')).solve(args),
};
