/**
 * Hosts are leased: a coordinator reserves each host it uses with a compare-and-set create in
 * the prefix's KV bucket (`P_hosts`, key = host id) before it sends the host any work, keeps
 * the lease alive with revision-checked updates, and releases it with a revision-checked
 * delete. Entries live LEASE_TTL_MS after their last write (the bucket's max age), so the
 * lease of a coordinator that died expires on its own. Two coordinators never share a host:
 * the second takes other idle hosts, or waits (saying for what) until --wait ends, then is
 * told which hosts are busy and with whom.
 *
 * Leases order honest coordinators; they are not a lock against a hostile one (that one is
 * kept out by the broker's permissions and the run's signatures, docs/distributed.md).
 */
import os from 'node:os';
import { jetstream, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ConfigError } from '../../config/errors.ts';
import type { Subjects } from '../bus/connection.ts';
import { DEFAULT_HEARTBEAT_MS, leaseTtlMs } from '../defaults.ts';
import { safeText } from '../bus/text.ts';
import type { HostDirectory, KnownHost } from './host-directory.ts';
import { checkLeaseBucket } from './shared-state.ts';

/** What a lease says about its holder (shown by waiting coordinators and `hosts`). */
export interface LeaseHolder {
  holder: string;
  /** ISO time the lease was taken. */
  since: string;
}

/** The lease bucket of a prefix: dots in the prefix become underscores (bucket names allow none). */
export function leaseBucket(subjects: Subjects): string {
  return `${subjects.prefix.replace(/\./g, '_')}_hosts`;
}

/** Opens (creating if need be) the prefix's lease bucket: in memory, one value per key, entries expire leaseTtlMs() (LEASE_TTL_MS) after their last write. */
export async function openLeaseBucket(nc: NatsConnection, subjects: Subjects): Promise<KV> {
  let kv: KV;
  try {
    kv = await new Kvm(jetstream(nc)).create(leaseBucket(subjects), { history: 1, ttl: leaseTtlMs(), storage: StorageType.Memory });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `cannot reserve hosts: the broker's KV bucket ${leaseBucket(subjects)} is not available (${why}); the broker needs JetStream (nats-server -js)`,
    );
  }
  // An existing bucket is taken as it was made: check it.
  await checkLeaseBucket(kv, leaseBucket(subjects));
  return kv;
}

/** The holder of each leased host among `ids` (absent: free); a value that does not read counts as held by "someone". */
export async function leaseHolders(kv: KV, ids: readonly string[]): Promise<Map<string, LeaseHolder>> {
  const held = new Map<string, LeaseHolder>();
  await Promise.all(
    ids.map(async (id) => {
      const entry = await kv.get(id).catch(() => null);
      if (!entry || entry.operation !== 'PUT') return;
      let holder: LeaseHolder = { holder: 'someone', since: '' };
      try {
        const value = entry.json<Partial<LeaseHolder>>();
        holder = {
          holder: safeText(String(value.holder ?? 'someone'), 100),
          since: typeof value.since === 'string' ? safeText(value.since, 40) : '',
        };
      } catch {
        // counted as held: a lease we cannot read is still a lease
      }
      held.set(id, holder);
    }),
  );
  return held;
}

const studyKey = (session: string) => `study-${session}`;

/**
 * Removes the streams of studies whose coordinator is gone (its lease expired): a study
 * ended by a lost broker or a killed coordinator could not remove its own.
 */
export async function removeAbandonedStudies(jsm: JetStreamManager, leases: HostLeases, subjects: Subjects): Promise<void> {
  const own = new RegExp(`^${subjects.studyStream('').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([0-9a-f]{16})$`);
  for await (const name of jsm.streams.names()) {
    const session = own.exec(name)?.[1];
    if (session !== undefined && !(await leases.studyAlive(session))) await jsm.streams.delete(name).catch(() => {});
  }
}

/** This process as a lease names it: `solve on lab1 (pid 1234)`. */
export function holderName(what: string): string {
  return `${what} on ${os.hostname()} (pid ${process.pid})`;
}

export class HostLeases {
  /** Host id → revision of our lease. */
  private readonly held = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private readonly value: string;
  /** The renewal under way (one at a time: two would race each other's revision). */
  private renewing: Promise<string[]> | null = null;

  constructor(
    private kv: KV,
    holder: string,
    private readonly log: (line: string) => void = () => {},
    /** Opens the bucket again (creating it): a broker restarted without its memory has lost it. */
    private readonly reopen?: () => Promise<KV>,
    /** The client's connection state (bus.ts `connectionState`): no renewal is tried while it is away. */
    private readonly connection: { readonly connected: boolean } = { connected: true },
  ) {
    this.value = JSON.stringify({ holder, since: new Date().toISOString() } satisfies LeaseHolder);
    this.timer = setInterval(() => this.connection.connected && void this.renew(), leaseTtlMs() / 3);
    this.timer.unref();
  }

  /** Takes the lease on `id` if it is free (compare-and-set); false if someone holds it. */
  async take(id: string): Promise<boolean> {
    if (this.held.has(id)) return true;
    try {
      this.held.set(id, await this.kv.create(id, this.value));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Leases `wanted` idle hosts of `directory` (in name order), waiting up to `waitMs`; logs
   * one line whenever what it waits for changes.
   * @throws ConfigError naming how many idle hosts answered and which are busy, and with whom.
   */
  async reserve(directory: HostDirectory, wanted: number, waitMs: number, broker: string): Promise<KnownHost[]> {
    const deadline = Date.now() + waitMs;
    let said = '';
    // Hosts answer the directory's `discover` at once: give them that moment before judging.
    await directory.waitFor(wanted, Math.min(waitMs, DEFAULT_HEARTBEAT_MS), (h) => !h.busy);
    for (;;) {
      const known = [...directory.hosts.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
      const idle = known.filter((h) => !h.busy);
      const holders = await leaseHolders(
        this.kv,
        known.map((h) => h.id),
      );
      const free = idle.filter((h) => !holders.has(h.id));
      if (free.length >= wanted) {
        const chosen = free.slice(0, wanted);
        const got: KnownHost[] = [];
        for (const host of chosen) {
          if (!(await this.take(host.id))) break;
          got.push(host);
        }
        if (got.length === wanted) return got;
        // Another coordinator took one between our read and our create: let go of all, try again shortly.
        await Promise.all(got.map((h) => this.release(h.id)));
      }
      const busy = known
        .filter((h) => h.busy || holders.has(h.id))
        .map((h) => (holders.has(h.id) ? `${h.name} (held by ${holders.get(h.id)!.holder})` : h.name));
      const left = deadline - Date.now();
      if (left <= 0) {
        const names = free.map((h) => h.name).join(', ');
        throw new ConfigError(
          `--hosts ${wanted}: only ${free.length} idle host${free.length === 1 ? '' : 's'} answered on ${broker} within ${waitMs / 1000} s${names ? ` (${names})` : ''}${busy.length ? `; busy: ${busy.join(', ')}` : ''}; start more with: nqueens-islands host --nats URL`,
        );
      }
      const now = `waiting up to ${Math.ceil(left / 1000)} s for ${wanted} idle host${wanted === 1 ? '' : 's'} on ${broker}: ${free.length} free${busy.length ? `, busy: ${busy.join(', ')}` : ''}`;
      const gist = now.replace(/up to \d+ s /, '');
      if (gist !== said) this.log(now);
      said = gist;
      // The next heartbeat (hosts beat every second), a little jitter so two waiting coordinators do not retry in step.
      await directory.nextBeat(Math.min(left, 1000) + Math.floor(Math.random() * 100));
    }
  }

  /**
   * Keeps every lease alive (every third of its life, and after a reconnect); a lease lost
   * (expired and taken by another) is said once. Returns the ids of the leases lost.
   */
  renew(): Promise<string[]> {
    this.renewing ??= this.renewAll().finally(() => (this.renewing = null));
    return this.renewing;
  }

  private async renewAll(): Promise<string[]> {
    // Opened again first (create binds to an existing bucket): after a broker restart the bucket is gone, and a get
    // from a missing bucket is answered by nobody, so it would wait out the client's whole timeout (5 s) first.
    if (this.reopen) this.kv = await this.reopen().catch(() => this.kv);
    const lost: string[] = [];
    for (const id of [...this.held.keys()]) {
      // Unknown (the broker cannot say now): kept, and tried again at the next renewal.
      if ((await this.keep(id)) !== false) continue;
      if (this.held.delete(id)) {
        this.log(`lost the lease on host ${id}`);
        lost.push(id);
      }
    }
    return lost;
  }

  /**
   * Keeps the lease on `id` if it is still ours: the entry is read, and one holding our value
   * is updated at the revision read (compare-and-set); one that is gone (with the bucket,
   * when the broker restarted) is created again. Our own last revision would not do: a
   * bucket created again numbers from 1, so another's new lease can carry it. False if
   * another holds the host now; null if the broker cannot say (tried again next time).
   */
  private async keep(id: string): Promise<boolean | null> {
    try {
      const entry = await this.read(id);
      // Released meanwhile: not to be taken again.
      if (!this.held.has(id)) return null;
      if (entry?.operation === 'PUT') {
        if (entry.string() !== this.value) return false;
        this.held.set(id, await this.kv.update(id, this.value, entry.revision));
      } else {
        this.held.set(id, await this.kv.create(id, this.value));
      }
      return true;
    } catch {
      return null;
    }
  }

  /** The entry of `id`; the bucket is opened again (created) if it is gone. */
  private async read(id: string): Promise<KvEntry | null> {
    try {
      return await this.kv.get(id);
    } catch (error) {
      if (!this.reopen) throw error;
      this.kv = await this.reopen();
      return this.kv.get(id);
    }
  }

  /** A study's own lease (key `study-<session>`): its stream belongs to a live study while the lease lives. */
  async holdStudy(session: string): Promise<void> {
    if (!(await this.take(studyKey(session)))) throw new Error(`study ${session}: its lease is taken`);
  }

  /** Whether a study's lease is alive (anyone's). */
  async studyAlive(session: string): Promise<boolean> {
    return (await leaseHolders(this.kv, [studyKey(session)])).size > 0;
  }

  /** Releases one lease (only if it is still ours: revision-checked). */
  async release(id: string): Promise<void> {
    const revision = this.held.get(id);
    if (revision === undefined) return;
    this.held.delete(id);
    await this.kv.delete(id, { previousSeq: revision }).catch(() => {});
  }

  /** Stops refreshing and releases every lease (without `release`, when the broker is gone, they expire). */
  async close(release = true): Promise<void> {
    clearInterval(this.timer);
    if (release) {
      await this.renewing; // a renewal under way could otherwise take a lease again after its release
      await Promise.all([...this.held.keys()].map((id) => this.release(id)));
    }
    this.held.clear();
  }
}
