import type { Argv, CommandModule } from 'yargs';
import { lastValue, numberInHelp } from '../../schema/flag-value.ts';
import { DEFAULT_ISLAND_NICE } from '../../cluster/defaults.ts';
import { NATS_OPTION } from '../../cluster/flags.ts';
import type { HostArgs } from './host-run.ts';

export const hostCommand: CommandModule<object, HostArgs> = {
  command: 'host',
  describe: "Offer this machine's cores to runs and studies on a NATS broker (runs until Ctrl-C)",
  builder: (y: Argv) =>
    y
      .options(NATS_OPTION)
      .demandOption('nats', 'host needs --nats URL: the broker the coordinators use')
      .option('islands', {
        type: 'string',
        ...numberInHelp(),
        requiresArg: true,
        coerce: lastValue,
        describe: 'islands this host offers (default: its cores)',
      })
      .option('island-nice', {
        type: 'string',
        ...numberInHelp(),
        requiresArg: true,
        coerce: lastValue,
        describe: `how far below the thread that carries runs over the bus the islands run, in Linux nice steps 0-19 (default ${DEFAULT_ISLAND_NICE}: a stop or migrants arriving get a core at once)`,
      })
      .option('name', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe: 'how coordinators name this host (default: hostname and a short tag)',
      })
      .option('extension', {
        type: 'string',
        array: true,
        requiresArg: true,
        describe:
          'a module of this machine whose GA modes and policies runs may name (repeatable); a host never loads code a message names',
      })
      .example('$0 host --nats nats://lab-server:4222', 'serve every core until Ctrl-C')
      .example(
        '$0 host --nats nats://alice:secret@lab-server:4222 --islands 8 --name node3',
        'with a user and password',
      ) as unknown as Argv<HostArgs>,
  handler: async (args) => (await import('./host-run.ts')).host(args),
};
