/**
 * Migrants to a host that stopped reading are bounded: each host of a run says, every
 * `ackEvery` bytes of migrants it has read from a peer, how many it has read in all
 * (`read`); a sender holds at most `budget` bytes unread per peer and drops (and counts)
 * what goes past it until the peer reads again.
 *
 * Why: the broker keeps what a stopped reader (a SIGSTOPped or swapping host) has not
 * taken, and once that passes half its `max_pending` (64 MiB by default) it stalls every
 * client that publishes to that reader, the coordinator's `alive` included. The healthy
 * hosts' heartbeats then wait behind migrants, and they are declared lost for another's
 * stall. Bounded below that threshold, only the stopped host goes silent.
 */
import { UNREAD_MIGRANT_BYTES } from '../defaults.ts';

/** Migrants not sent to one peer because it had stopped reading. */
export interface Unsent {
  messages: number;
  bytes: number;
}

export class MigrantFlow {
  /** Per peer host: bytes sent, bytes it said it read, and what was dropped. */
  private readonly sent = new Map<string, number>();
  private readonly readBy = new Map<string, number>();
  private readonly unsent = new Map<string, Unsent>();
  /** Peers dropped to since they last read (one line each time one stops reading). */
  private readonly stalled = new Set<string>();
  /** Per peer host: bytes read from it, and the count last told to it. */
  private readonly readFrom = new Map<string, number>();
  private readonly told = new Map<string, number>();
  readonly budget: number;
  readonly ackEvery: number;

  /** `peers`: the run's other hosts; they share the bound on what one reader may hold unread. */
  constructor(peers: number, total = UNREAD_MIGRANT_BYTES) {
    this.budget = Math.max(64 * 1024, Math.floor(total / Math.max(1, peers)));
    this.ackEvery = Math.max(1, Math.floor(this.budget / 8));
  }

  /**
   * Whether `bytes` of migrants may go to `peer` now. One message always goes while the
   * peer holds less than the budget unread; past it, the message is counted as unsent.
   * Returns 'dropped-first' for the first drop since the peer last read (worth one line).
   */
  admit(peer: string, bytes: number): 'send' | 'dropped' | 'dropped-first' {
    const sent = this.sent.get(peer) ?? 0;
    if (sent - (this.readBy.get(peer) ?? 0) <= this.budget) {
      this.sent.set(peer, sent + bytes);
      return 'send';
    }
    const unsent = this.unsent.get(peer) ?? { messages: 0, bytes: 0 };
    unsent.messages++;
    unsent.bytes += bytes;
    this.unsent.set(peer, unsent);
    const first = !this.stalled.has(peer);
    this.stalled.add(peer);
    return first ? 'dropped-first' : 'dropped';
  }

  /** `peer` says it has read `total` bytes of what this host sent it (a count never goes back). */
  read(peer: string, total: number): void {
    if (!(total > (this.readBy.get(peer) ?? 0))) return;
    this.readBy.set(peer, Math.min(total, this.sent.get(peer) ?? 0));
    if ((this.sent.get(peer) ?? 0) - total <= this.budget) this.stalled.delete(peer);
  }

  /** `bytes` of migrants read from `peer`: the total to tell it now, or null (not due yet). */
  received(peer: string, bytes: number): number | null {
    const total = (this.readFrom.get(peer) ?? 0) + bytes;
    this.readFrom.set(peer, total);
    if (total - (this.told.get(peer) ?? 0) < this.ackEvery) return null;
    this.told.set(peer, total);
    return total;
  }

  /** Each peer that was sent less than it was given, with what it missed. */
  unsentTo(): [string, Unsent][] {
    return [...this.unsent];
  }
}
