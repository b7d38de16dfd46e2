import type { Argv, CommandModule } from 'yargs';
import { lastValue, numberInHelp } from '../../schema/flag-value.ts';
import { NATS_OPTION } from '../../cluster/flags.ts';
import type { HostsArgs } from './hosts-run.ts';

export const hostsCommand: CommandModule<object, HostsArgs> = {
  command: 'hosts',
  describe: 'List the hosts on a NATS broker: islands, version, idle or busy, and which coordinator holds each',
  builder: (y: Argv) =>
    y
      .options(NATS_OPTION)
      .demandOption('nats', 'hosts needs --nats URL: the broker the hosts use')
      .option('wait', {
        type: 'string',
        ...numberInHelp(),
        requiresArg: true,
        coerce: lastValue,
        describe: 'seconds to listen for hosts (default 1.5: every live host beats each second)',
      })
      .option('json', { type: 'boolean', default: false, describe: 'print the list as JSON' })
      .example('$0 hosts --nats nats://lab1:4222', 'who is there, and who is busy with what') as unknown as Argv<HostsArgs>,
  handler: async (args) => (await import('./hosts-run.ts')).hosts(args),
};
