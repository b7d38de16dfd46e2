/**
 * Who is on the broker: every host of a prefix that answers within a short wait (a
 * `discover`, then heartbeats), with its islands, version, whether it is busy, and who holds
 * its lease. For `nqueens-islands hosts` and for code (`listHosts`). Everything shown comes
 * from the bus, so names and texts are sanitised (bus/text.ts).
 */
import { randomBytes } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connectBus, leaveBus, Subjects } from '../bus/connection.ts';
import { BusCodec, ownVersion } from '../bus/codec.ts';
import { BusEndpoint } from '../bus/endpoint.ts';
import { clusterKeyOf, type ClusterKeySource } from '../bus/key.ts';
import { busAddress } from '../bus/credentials.ts';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_PREFIX, MAX_HOST_ISLANDS } from '../defaults.ts';
import { leaseBucket, leaseHolders, type LeaseHolder } from '../leases/host-lease.ts';
import { safeName, safeText } from '../bus/text.ts';
import { checkPrefix, type NatsAuth } from '../../config/nats-url.ts';
import type { OptionSchema } from '../../config/library-options.ts';
import { BUS, busOptions, busSchema, timerMs } from '../library-options.ts';

/** The most hosts a listing shows. */
const MAX_LISTED = 10_000;

/** With the cluster key (NQI_CLUSTER_KEY, `clusterKeyFile`), only hosts that sign with it are listed. */
export interface ListHostsOptions extends ClusterKeySource {
  nats: string;
  auth?: NatsAuth;
  prefix?: string;
  /** How long to listen (ms): a little more than one heartbeat period by default, so every live host is heard. */
  waitMs?: number;
}

export interface ListedHost {
  id: string;
  name: string;
  islands: number;
  /** Tool version and bus format: `nqueens-islands 0.1.0 (bus format 1)`. */
  version: string;
  /** False for a host of another version or bus format (a coordinator refuses it). */
  compatible: boolean;
  /** `busy`: running islands or serving a study (its heartbeat says so) or leased to a coordinator. */
  state: 'idle' | 'busy';
  /** The coordinator holding its lease (the run or study it serves), or null. */
  lease: LeaseHolder | null;
}

export interface HostListing {
  /** The broker's URL as shown to people (no password). */
  broker: string;
  prefix: string;
  hosts: ListedHost[];
}

const LIST_HOSTS_OPTIONS = busSchema({ ...BUS, waitMs: timerMs } satisfies Record<keyof ListHostsOptions, OptionSchema>);

/** Hosts of the prefix, by name. @throws ConfigError for a bad URL or prefix, or an unreachable broker. */
export async function listHosts(given: ListHostsOptions): Promise<HostListing> {
  const options = busOptions(given, 'listHosts options', LIST_HOSTS_OPTIONS);
  const address = busAddress(options.nats, options.auth);
  const prefix = checkPrefix(options.prefix ?? DEFAULT_PREFIX);
  const subjects = new Subjects(prefix);
  // Key files are read before any connection: a missing one is said at once, not after the broker.
  const key = clusterKeyOf(options);
  const nc = await connectBus(address, { name: 'nqueens-islands hosts' });
  try {
    const seen = new Map<string, Omit<ListedHost, 'lease'> & { busy: boolean }>();
    const bus = new BusEndpoint(nc, new BusCodec(randomBytes(6).toString('hex'), key));
    const sub = bus.listen(
      subjects.heartbeat,
      ['host'],
      (beat) => {
        if (!seen.has(beat.id) && seen.size >= MAX_LISTED) return;
        seen.set(beat.id, {
          id: beat.id,
          name: safeName(beat.name),
          islands: Math.min(beat.islands, MAX_HOST_ISLANDS),
          version: ownVersion(),
          compatible: true,
          busy: beat.busy,
          state: 'idle',
        });
      },
      {
        // Another version: shown by what it says, read loosely.
        onForeign: (decoded) => {
          const body = decoded.body as { type?: unknown; id?: unknown; name?: unknown; islands?: unknown; busy?: unknown } | null;
          if (body?.type !== 'host' || typeof body.id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(body.id)) return;
          // Anyone can announce a new id in every message: the listing keeps a bounded number.
          if (!seen.has(body.id) && seen.size >= MAX_LISTED) return;
          const islands =
            typeof body.islands === 'number' && Number.isInteger(body.islands) && body.islands > 0
              ? Math.min(body.islands, MAX_HOST_ISLANDS)
              : 0;
          seen.set(body.id, {
            id: body.id,
            name: safeName(String(body.name)),
            islands,
            version: safeText(decoded.from, 100),
            compatible: false,
            busy: body.busy === true,
            state: 'idle',
          });
        },
      },
    );
    bus.publish(subjects.discover, { type: 'discover' });
    await new Promise((resolve) => setTimeout(resolve, options.waitMs ?? DEFAULT_HEARTBEAT_MS * 1.5));
    sub.unsubscribe();
    // Leases: read only (a listing creates no bucket); none when no coordinator ever made one.
    const kv = await new Kvm(jetstream(nc)).open(leaseBucket(subjects)).catch(() => null);
    const holders = kv ? await leaseHolders(kv, [...seen.keys()]) : new Map<string, LeaseHolder>();
    const hosts = [...seen.values()].map(({ busy, ...host }): ListedHost => {
      const lease = holders.get(host.id) ?? null;
      return { ...host, state: busy || lease ? 'busy' : 'idle', lease };
    });
    hosts.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return { broker: address.display, prefix, hosts };
  } finally {
    await leaveBus(nc);
  }
}
