/**
 * The work behind `broker`: a nats-server of this machine's PATH on loopback, with JetStream
 * in a temporary store that goes when it stops (src/cluster/local-broker.ts). Its URL goes to
 * stdout (for `$(...)`), the rest to stderr. For trying a cluster on one machine; a broker
 * other machines use is configured as docs/distributed.md shows.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase } from 'yargs';
import { ConfigError } from '../../config/errors.ts';
import { BrokerStartError, describeExit, startLocalBroker } from '../../cluster/local-broker.ts';
import { EXIT } from '../errors.ts';
import { printError, printLine, printLog, setExitCode } from '../output.ts';
import { claimSignals } from '../signals.ts';

export type BrokerArgs = object;

/** nats-server on PATH, or null. */
export function findOnPath(name: string, pathVariable = process.env.PATH ?? ''): string | null {
  for (const dir of pathVariable.split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

export async function broker(_args: ArgumentsCamelCase<BrokerArgs>): Promise<void> {
  const executable = findOnPath('nats-server');
  if (executable === null)
    throw new ConfigError(
      'broker: no nats-server on PATH; install it (apt-get install nats-server, brew install nats-server, or https://github.com/nats-io/nats-server/releases)',
    );
  // The server never outlives this process (local-broker.ts): a signal or a SIGKILL before it is ready ends it too.
  const server = await startLocalBroker(executable).catch((error: unknown) => {
    if (!(error instanceof BrokerStartError)) throw error;
    printError(`broker: ${error.message}`);
    setExitCode(EXIT.islandFailed);
    return null;
  });
  if (server === null) return;
  printLine(server.url);
  printLog(`broker ready on ${server.url} (nats-server ${executable}, JetStream in a temporary store, loopback only); Ctrl-C stops it`);
  let stopping = false;
  const release = claimSignals(() => {
    stopping = true;
    void server.stop();
  });
  const exit = await server.exited;
  release();
  if (stopping) return printLog('broker stopped; its store is removed');
  // Ended by something else (killed, crashed): its clients have lost their broker.
  printError(`broker: nats-server ended on its own (${describeExit(exit)}); its store is removed`);
  setExitCode(EXIT.islandFailed);
}
