/**
 * One run's islands on hosts of a NATS broker: connect, wait for the hosts, and hand the
 * archipelago a launcher that places its islands on them (`startRun(config, { launcher })`).
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../config/errors.ts';
import { connectBus, Subjects } from './bus.ts';
import { checkPrefix, parseNatsUrl } from './nats-url.ts';
import { BusCodec, type DropCounter } from './bus-codec.ts';
import { BusEndpoint } from './bus-endpoint.ts';
import { clusterKeyOf, UNSIGNED_WARNING } from './bus-key.ts';
import { ClusterLauncher } from './cluster-launcher.ts';
import { DEFAULT_PREFIX, DEFAULT_WAIT_SECONDS } from './defaults.ts';
import { HostDirectory } from './host-directory.ts';
import { checkHostCount, type ClusterOptions } from './study.ts';

export interface ClusterRun {
  launcher: ClusterLauncher;
  /** Islands the chosen hosts offer together (the run's default island count). */
  islands: number;
  /** The broker's URL as shown to people (no password). */
  broker: string;
  dropped: DropCounter;
  /** Disconnects (after the run). */
  close(): Promise<void>;
}

/**
 * Connects and waits for `options.hosts` idle hosts.
 * @throws ConfigError (exit 2) for a bad URL or prefix, an unreachable broker, or too few hosts within the wait.
 */
export async function joinCluster(options: ClusterOptions): Promise<ClusterRun> {
  const address = parseNatsUrl(options.nats);
  const subjects = new Subjects(checkPrefix(options.prefix ?? DEFAULT_PREFIX));
  const wanted = checkHostCount(options.hosts);
  const waitMs = options.waitMs ?? DEFAULT_WAIT_SECONDS * 1000;
  const key = clusterKeyOf(options);
  const nc = await connectBus(address, { name: `nqueens-islands solve on ${os.hostname()}` });
  const bus = new BusEndpoint(nc, new BusCodec(randomBytes(6).toString('hex'), key), options.log);
  const { dropped } = bus;
  const directory = new HostDirectory(bus, subjects, { onRefused: options.log }, options.heartbeatMs);
  let launcher: ClusterLauncher | null = null;
  const close = async () => {
    if (launcher) launcher.closing = true;
    directory.close();
    // Without its broker a drain would wait for the reconnect attempts: close at once.
    if (launcher?.brokerLost) await nc.close().catch(() => {});
    else if (!nc.isClosed()) await nc.drain().catch(() => {});
  };
  const idle = () => [...directory.hosts.values()].filter((h) => !h.busy);
  if (!(await directory.waitFor(wanted, waitMs, (h) => !h.busy))) {
    const names = idle().map((h) => h.name).join(', ');
    await close();
    throw new ConfigError(`--hosts ${wanted}: only ${idle().length} idle host${idle().length === 1 ? '' : 's'} answered on ${address.display} within ${waitMs / 1000} s${names ? ` (${names})` : ''}; start more with: nqueens-islands host --nats URL`);
  }
  // Said once the run is going to happen (a refusal above stays one line).
  if (!key) options.log?.(UNSIGNED_WARNING);
  // By name: island ids go to the same hosts whenever the same hosts are there.
  const hosts = idle().slice(0, wanted).sort((a, b) => a.name.localeCompare(b.name));
  const islands = hosts.reduce((sum, h) => sum + h.islands, 0);
  launcher = new ClusterLauncher(bus, subjects, hosts, directory);
  return { launcher, islands, broker: address.display, dropped, close };
}
