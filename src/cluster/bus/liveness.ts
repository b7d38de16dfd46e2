/**
 * When silence means a party is lost (docs/distributed.md, *Lost hosts*): a party not heard
 * for MISSED_HEARTBEATS whole counted periods is lost, and a period's check is counted only
 * once this process has read everything the broker had for it.
 *
 * Why not wall time: a listener that was not scheduled (a loaded machine, a long pause of its
 * own event loop) or a broker slow to deliver reads the heartbeats late, and wall time would
 * charge that to the party: a coordinator that stalled took its healthy hosts for lost. So
 * once a period the listener asks the broker for a round trip (PING/PONG, in order with the
 * messages on the connection): when the answer is in, every heartbeat the broker held for it
 * was read. A late check counts as one period, whatever it waited; a check the broker does not
 * answer counts nothing, and while the broker is away the silence starts again.
 * A stopped party is found between MISSED_HEARTBEATS and MISSED_HEARTBEATS + 1 periods after
 * it was last heard, when the listener runs on time; later by as much as the listener stalls.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { MISSED_HEARTBEATS } from '../defaults.ts';

export class Liveness<K> {
  /** Checks completed so far, and the count at which each party was last heard. */
  private checks = 0;
  private readonly heardAt = new Map<K, number>();
  /** The round trip in flight (0: none); a later one stands for it after the broker was away. */
  private asking = 0;
  private asked = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection,
    /** The connection's state (connection.ts `connectionState`). */
    private readonly connection: { readonly connected: boolean },
    periodMs: number,
    private readonly onLost: (party: K) => void,
  ) {
    this.timer = setInterval(() => this.check(), periodMs);
  }

  /** `party` was heard now (its silence starts again). */
  heard(party: K): void {
    this.heardAt.set(party, this.checks);
  }

  /** `party` is not watched any more (it left, or was lost). */
  forget(party: K): void {
    this.heardAt.delete(party);
  }

  close(): void {
    clearInterval(this.timer);
    this.heardAt.clear();
  }

  private check(): void {
    // While the broker is away nobody can be heard: the silence starts again from the reconnect.
    if (!this.connection.connected) {
      for (const party of this.heardAt.keys()) this.heardAt.set(party, this.checks);
      this.asking = 0;
      return;
    }
    // The last round trip is not answered yet (the broker or this process is slow): no time counts.
    if (this.asking !== 0 || this.nc.isClosed()) return;
    const token = ++this.asked;
    this.asking = token;
    const settle = (counted: boolean) => {
      if (this.asking !== token) return;
      this.asking = 0;
      if (counted) this.count();
    };
    this.nc.flush().then(
      () => settle(true),
      () => settle(false),
    );
  }

  private count(): void {
    this.checks++;
    for (const [party, at] of [...this.heardAt])
      if (this.checks - at > MISSED_HEARTBEATS && this.heardAt.has(party)) {
        this.heardAt.delete(party);
        this.onLost(party);
      }
  }
}
