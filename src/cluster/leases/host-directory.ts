/**
 * A coordinator's view of the hosts on the broker: who is there (heartbeats, and answers to
 * `discover`), who left (a goodbye, or heartbeats missing for a few periods), and who was
 * refused for running another tool version or bus format (one line each).
 */
import type { Subscription } from '@nats-io/transport-node';
import { connectionState, type Subjects } from '../bus/connection.ts';
import { Liveness } from '../bus/liveness.ts';
import { ownVersion, type Decoded } from '../bus/codec.ts';
import { type BusMessage } from '../bus/messages.ts';
import type { BusEndpoint } from '../bus/endpoint.ts';
import { heartbeatPeriodMs, MAX_HOST_ISLANDS } from '../defaults.ts';
import { safeName } from '../bus/text.ts';
import { SayOnce } from '../bus/bounded.ts';

export interface KnownHost {
  id: string;
  name: string;
  islands: number;
  busy: boolean;
  lastSeen: number;
  /** Tool version and bus format, as `refused` lines name them. */
  version: string;
}

export interface HostDirectoryEvents {
  /** A host appeared, or its heartbeat changed (busy/idle). */
  onHost?(host: KnownHost, isNew: boolean): void;
  /** A host of another version: one call per host. */
  onRefused?(line: string): void;
}

/** Told when a host said goodbye (`left`) or stopped beating (`lost`). */
export type GoneListener = (host: KnownHost, how: 'left' | 'lost') => void;

export class HostDirectory {
  readonly hosts = new Map<string, KnownHost>();
  private readonly refused = new SayOnce(8, (line) => this.events.onRefused?.(line));
  private readonly subs: Subscription[];
  /** Who is lost: silence counted in checks this coordinator made, not in wall time (bus/liveness.ts). */
  private readonly liveness: Liveness<string>;
  private waiters: (() => void)[] = [];
  private readonly goneListeners = new Set<GoneListener>();

  constructor(
    bus: BusEndpoint,
    subjects: Subjects,
    private readonly events: HostDirectoryEvents = {},
    /** The hosts' heartbeat period (silence through MISSED_HEARTBEATS of it is a loss); a launcher's bound for terminated islands follows it. */
    readonly heartbeatMs = heartbeatPeriodMs(),
  ) {
    this.liveness = new Liveness(bus.nc, connectionState(bus.nc), heartbeatMs, (id) => this.forget(id, 'lost'));
    // A host speaks only for itself: a heartbeat or goodbye signed by another id is dropped.
    this.subs = [
      bus.listen(
        subjects.heartbeat,
        ['host'],
        (beat, from) => (from === beat.id ? this.onHeartbeat(beat) : void bus.dropped.unauthenticated++),
        { onForeign: (d) => this.onForeign(d) },
      ),
      bus.listen(subjects.leave, ['leave'], (leave, from) =>
        from === leave.id ? this.forget(leave.id, 'left') : void bus.dropped.unauthenticated++,
      ),
    ];
    // Ask every host to answer now rather than at its next heartbeat.
    bus.publish(subjects.discover, { type: 'discover' });
  }

  /** Calls `listener` for each host that leaves or is lost, until the returned function is called (a run listens for its length). */
  onGone(listener: GoneListener): () => void {
    this.goneListeners.add(listener);
    return () => void this.goneListeners.delete(listener);
  }

  /** Resolves once `count` hosts (that `accept` takes) are known, or with false after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number, accept: (host: KnownHost) => boolean = () => true): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        if ([...this.hosts.values()].filter(accept).length < count) return false;
        clearTimeout(timeout);
        resolve(true);
        return true;
      };
      const timeout = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      const waiter = () => {
        if (check()) this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      if (!check()) this.waiters.push(waiter);
    });
  }

  /** Resolves at the next heartbeat or goodbye of any host, or after `timeoutMs`. */
  nextBeat(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timeout);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      };
      const timeout = setTimeout(waiter, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  close(): void {
    this.liveness.close();
    for (const sub of this.subs) sub.unsubscribe();
    this.waiters = [];
  }

  /** A host of another version is named (once) when it says it is a host; an unreadable body is just counted. */
  private onForeign(decoded: Extract<Decoded<'host'>, { kind: 'foreign' }>): void {
    const body = decoded.body as { type?: unknown; name?: unknown } | null;
    if (body?.type !== 'host' || typeof body.name !== 'string') return;
    const who = safeName(body.name);
    this.refused.say(who, `refused host ${who}: it runs ${decoded.from}; this coordinator runs ${ownVersion()}`);
  }

  private onHeartbeat(beat: BusMessage<'host'>): void {
    const known = this.hosts.get(beat.id);
    // The name as it may be shown; the islands capped (a host's own check, checkOfferedIslands, is only as honest as the host).
    const host: KnownHost = {
      id: beat.id,
      name: safeName(beat.name),
      islands: Math.min(beat.islands, MAX_HOST_ISLANDS),
      busy: beat.busy,
      lastSeen: Date.now(),
      version: ownVersion(),
    };
    this.hosts.set(beat.id, host);
    this.liveness.heard(beat.id);
    if (!known || known.busy !== host.busy) this.events.onHost?.(host, !known);
    // Also on a busy → idle change: a waiter may be counting idle hosts.
    for (const waiter of [...this.waiters]) waiter();
  }

  private forget(id: string, how: 'left' | 'lost'): void {
    const host = this.hosts.get(id);
    if (!host) return;
    this.hosts.delete(id);
    this.liveness.forget(id);
    for (const listener of [...this.goneListeners]) listener(host, how);
    for (const waiter of [...this.waiters]) waiter();
  }
}
