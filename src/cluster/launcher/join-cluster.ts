/**
 * Hosts of a NATS broker joined for runs: connect, lease the hosts, and hand the run pipeline
 * a launcher that places a run's islands on them (`startRun(config, { cluster })`).
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { connectBus, connectionState, leaveBus, Subjects } from '../bus/connection.ts';
import { checkPrefix } from '../../config/nats-url.ts';
import { busAddress } from '../bus/credentials.ts';
import { BusCodec, type DropCounter } from '../bus/codec.ts';
import { BusEndpoint } from '../bus/endpoint.ts';
import { clusterKeyOf, UNSIGNED_WARNING } from '../bus/key.ts';
import type { Launcher } from '../../archipelago/launcher.ts';
import { warmRunPaths } from '../host/warm-up.ts';
import { ClusterLauncher } from './cluster-launcher.ts';
import { DEFAULT_PREFIX, DEFAULT_WAIT_SECONDS } from '../defaults.ts';
import { HostDirectory } from '../leases/host-directory.ts';
import { holderName, HostLeases, openLeaseBucket } from '../leases/host-lease.ts';
import { checkHostCount, type ClusterOptions } from '../study/study.ts';
import { busOptions, CLUSTER_CALL_OPTIONS } from '../library-options.ts';

/** Hosts joined for runs (`joinCluster`): pass it as `startRun(config, { cluster })` for one run or many; `close()` after the last. */
export interface JoinedCluster {
  /** What the run pipeline launches on; what it supports and knows it says itself (`capabilities`, `report()`). */
  launcher: Launcher;
  /** Islands the chosen hosts offer together (the run's default island count). */
  islands: number;
  /** The broker's URL as shown to people (no password). */
  broker: string;
  /** Bus messages dropped since joining (the record's `bus.dropped` at each run's end). */
  dropped: DropCounter;
  /** Releases the hosts and disconnects (after the last run). */
  close(): Promise<void>;
}

/**
 * Connects and leases `options.hosts` idle hosts (host-lease.ts), waiting for them up to `waitMs`; `close()` releases them.
 * @throws ConfigError (exit 2) for a bad URL or prefix, an unreachable broker, or too few free hosts within the wait.
 */
export async function joinCluster(given: ClusterOptions): Promise<JoinedCluster> {
  const options = busOptions(given, 'joinCluster options', CLUSTER_CALL_OPTIONS);
  const address = busAddress(options.nats, options.auth);
  const subjects = new Subjects(checkPrefix(options.prefix ?? DEFAULT_PREFIX));
  const wanted = checkHostCount(options.hosts);
  const waitMs = options.waitMs ?? DEFAULT_WAIT_SECONDS * 1000;
  const key = clusterKeyOf(options);
  const nc = await connectBus(address, { name: `nqueens-islands solve on ${os.hostname()}` });
  const bus = new BusEndpoint(nc, new BusCodec(randomBytes(6).toString('hex'), key), options.log);
  const { dropped } = bus;
  const directory = new HostDirectory(bus, subjects, { onRefused: options.log }, options.heartbeatMs);
  let launcher: ClusterLauncher | null = null;
  let leases: HostLeases | null = null;
  const close = async () => {
    if (launcher) launcher.closing = true;
    directory.close();
    // Without its broker a drain (or a release) would wait for the reconnect attempts: close at once; the leases expire.
    const brokerLost = launcher?.report().brokerLost ?? false;
    await leases?.close(!brokerLost && !nc.isClosed());
    if (brokerLost) await nc.close().catch(() => {});
    else await leaveBus(nc);
  };
  let hosts;
  try {
    const open = () => openLeaseBucket(nc, subjects);
    leases = new HostLeases(await open(), holderName('solve'), options.log, open, connectionState(nc));
    // By name: island ids go to the same hosts whenever the same hosts are there.
    const reserving = leases.reserve(directory, wanted, waitMs, address.display);
    warmRunPaths(bus.codec); // while the hosts answer
    hosts = await reserving;
  } catch (error) {
    await close();
    throw error;
  }
  // Said once the run is going to happen (a refusal above stays one line).
  if (!key) options.log?.(UNSIGNED_WARNING);
  const islands = hosts.reduce((sum, h) => sum + h.islands, 0);
  const held = leases;
  launcher = new ClusterLauncher(bus, subjects, hosts, directory, options.log, () => held.renew());
  return { launcher, islands, broker: address.display, dropped, close };
}
