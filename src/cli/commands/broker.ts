import type { Argv, CommandModule } from 'yargs';
import type { BrokerArgs } from './broker-run.ts';

export const brokerCommand: CommandModule<object, BrokerArgs> = {
  command: 'broker',
  describe: 'Start a NATS broker for a cluster on this machine: nats-server from PATH, JetStream on, loopback only, a temporary store',
  builder: (y: Argv) =>
    y.example(
      '$0 broker',
      'prints nats://127.0.0.1:PORT; then in other terminals: host --nats URL, and solve or experiment with --nats URL --hosts N',
    ),
  handler: async (args) => (await import('./broker-run.ts')).broker(args),
};
