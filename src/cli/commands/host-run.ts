/** The work behind `host`, imported only when the command runs (it loads the NATS client and the island code). */
import type { ArgumentsCamelCase } from 'yargs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { authFromArgs, keyFileOf, positiveNumber, type NatsArgs } from '../../cluster/flags.ts';
import { checkHostName } from '../../cluster/host/names.ts';
import { readRegularFile } from '../../io/read-file.ts';
import { checkIslandNice, startHost } from '../../cluster/host/host.ts';
import { numberLiteral } from '../../schema/flag-value.ts';
import { printLog, setExitCode } from '../output.ts';
import { claimSignals } from '../signals.ts';

export interface HostArgs extends NatsArgs {
  nats: string;
  islands?: string;
  islandNice?: string;
  name?: string;
  clusterKeyFile?: string;
  extension?: string[];
}

/** `--extension FILE`: a module of this machine whose default export is an extension; checked to be a readable file here. */
function extensionUrl(file: string): string {
  readRegularFile(file, {
    name: `--extension ${file}`,
    expected: 'a JavaScript module (an extension: docs/ARCHITECTURE.md)',
    maxBytes: 16 * 1024 * 1024,
  });
  return pathToFileURL(path.resolve(file)).href;
}

function islandNiceOf(raw: unknown): number {
  const text = String(raw).trim();
  return checkIslandNice(numberLiteral(text), text);
}

/** Exit code when the broker went away and did not come back. */
const EXIT_BROKER_LOST = 3;

export async function host(args: ArgumentsCamelCase<HostArgs>): Promise<void> {
  const name = args.name === undefined ? undefined : checkHostName(String(args.name));
  const host = await startHost({
    nats: String(args.nats),
    auth: authFromArgs(args),
    ...(args.natsPrefix !== undefined ? { prefix: String(args.natsPrefix) } : {}),
    ...(args.islands !== undefined ? { islands: positiveNumber('--islands', args.islands, true) } : {}),
    ...(args.islandNice !== undefined ? { islandNice: islandNiceOf(args.islandNice) } : {}),
    ...(name !== undefined ? { name } : {}),
    ...keyFileOf(args),
    ...(args.extension?.length ? { extensions: args.extension.map((file) => extensionUrl(String(file))) } : {}),
    log: printLog,
  });
  printLog(`host ${host.name} ready: ${host.islands} island${host.islands === 1 ? '' : 's'} on ${host.broker}; Ctrl-C leaves`);
  // The first signal leaves cleanly; a later one quits at once (src/cli/signals.ts).
  const release = claimSignals((signal) => {
    printLog(`${signal}: leaving${host.busyWith ? `; ${host.busyWith}` : ''}`);
    void host.stop();
  });
  const how = await host.closed;
  release();
  const dropped = host.dropped.total ? `; ${host.dropped.describe()}` : '';
  if (how === 'broker-lost') {
    printLog(`lost the NATS broker; ${host.runsDone} run${host.runsDone === 1 ? '' : 's'} done${dropped}`);
    setExitCode(EXIT_BROKER_LOST);
  } else {
    printLog(`host ${host.name} left after ${host.runsDone} run${host.runsDone === 1 ? '' : 's'}${dropped}`);
  }
}
