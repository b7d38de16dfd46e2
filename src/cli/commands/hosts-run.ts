/** The work behind `hosts`, imported only when the command runs (it loads the NATS client). */
import type { ArgumentsCamelCase } from 'yargs';
import { authFromArgs, waitSeconds, type NatsArgs } from '../../cluster/flags.ts';
import { listHosts } from '../../cluster/host/list.ts';
import { printError, printLine } from '../output.ts';

export interface HostsArgs extends NatsArgs {
  nats: string;
  wait?: string;
  json: boolean;
}

export async function hosts(args: ArgumentsCamelCase<HostsArgs>): Promise<void> {
  const listing = await listHosts({
    nats: String(args.nats),
    auth: authFromArgs(args),
    ...(args.clusterKeyFile !== undefined ? { clusterKeyFile: String(args.clusterKeyFile) } : {}),
    ...(args.natsPrefix !== undefined ? { prefix: String(args.natsPrefix) } : {}),
    ...(args.wait !== undefined ? { waitMs: waitSeconds(args.wait) * 1000 } : {}),
  });
  if (args.json) {
    printLine(JSON.stringify(listing, null, 2));
    return;
  }
  if (listing.hosts.length === 0) {
    printError(`no host answered on ${listing.broker} (prefix ${listing.prefix}); start one with: nqueens-islands host --nats URL`);
    return;
  }
  const rows = [
    ['host', 'islands', 'version', 'state', 'held by'],
    ...listing.hosts.map((h) => [
      h.name,
      String(h.islands),
      `${h.version}${h.compatible ? '' : ' (refused)'}`,
      h.state,
      h.lease ? `${h.lease.holder}${h.lease.since ? ` since ${h.lease.since}` : ''}` : '-',
    ]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  printLine(`${listing.hosts.length} host${listing.hosts.length === 1 ? '' : 's'} on ${listing.broker} (prefix ${listing.prefix}):`);
  for (const row of rows) printLine(row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]))).join('  '));
}
