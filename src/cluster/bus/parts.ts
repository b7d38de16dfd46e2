/**
 * A message larger than the broker's `max_payload` (nats-server's default is 1 MB) travels in
 * parts: its whole signed frame is cut into `part` messages, each signed itself, sent one after
 * another on the same subject; the receiver puts the frame back together and checks it as if
 * it had come whole (its type's bound, schema and signature). A sender's messages arrive in
 * order on one connection, so a part out of order or of another batch means the rest was lost:
 * the batch is dropped and counted, as a lost message would be (a request is sent again).
 */
import { randomBytes } from 'node:crypto';
import type { BusMessage } from './messages.ts';

/** Bytes of a payload a part's own frame and fields take, at most (its data is what is left). */
export const PART_OVERHEAD = 1024;
/** Senders with a message half received, per subscription; the oldest goes when a new one comes. */
const MAX_SENDERS = 64;
/** ms a half-received message waits for its next part before it is dropped. */
export const PART_GAP_MS = 10_000;

/** `frame` cut into parts that each fit `maxPayload`, or null when it fits whole (or no part could). */
export function partsOf(frame: Uint8Array, maxPayload: number): BusMessage<'part'>[] | null {
  const room = maxPayload - PART_OVERHEAD;
  if (frame.length <= maxPayload || room < PART_OVERHEAD) return null;
  const batch = randomBytes(8).toString('hex');
  const count = Math.ceil(frame.length / room);
  return Array.from({ length: count }, (_, index) => ({
    type: 'part' as const,
    batch,
    index,
    count,
    bytes: frame.subarray(index * room, Math.min(frame.length, (index + 1) * room)),
  }));
}

/** What one part did: the whole frame is here, more is to come, or the batch was dropped. */
export type Assembled = { kind: 'whole'; frame: Uint8Array } | { kind: 'more' } | { kind: 'dropped' };

/**
 * The frames being put back together on one subscription, one per sender, each at most
 * `limit` bytes. What is held unfinished is bounded, whoever sends it (a party without the
 * key can send parts too: a part's signature is checked only on the whole): in all at most
 * `limit` bytes, the oldest batches dropped first to make room, and a batch whose next part
 * has not come within `gapMs` is dropped (a sender sends its parts back to back). Each batch
 * dropped is counted by the caller.
 */
export class PartsAssembly {
  private readonly pending = new Map<string, Pending>();
  private held = 0;
  /** Batches dropped for the bounds (stale, or evicted for room), since the last call to `takeDropped`. */
  private evicted = 0;

  constructor(
    private readonly limit: number,
    private readonly gapMs = PART_GAP_MS,
    private readonly now: () => number = Date.now,
  ) {}

  add(from: string, part: BusMessage<'part'>): Assembled {
    const { pending } = this;
    this.dropStale();
    let entry = pending.get(from);
    if (part.index === 0) {
      if (entry) this.forget(from, entry);
      if (pending.size >= MAX_SENDERS) this.evictOldest();
      entry = { batch: part.batch, count: part.count, next: 0, bytes: 0, chunks: [], at: this.now() };
      pending.set(from, entry);
    }
    if (!entry || entry.batch !== part.batch || entry.count !== part.count || entry.next !== part.index) return this.drop(from);
    if (entry.bytes + part.bytes.length > this.limit) return this.drop(from);
    while (this.held + part.bytes.length > this.limit && pending.size > 1) this.evictOldest(from);
    entry.bytes += part.bytes.length;
    this.held += part.bytes.length;
    // A copy: the part's bytes are a view into the client's read buffer.
    entry.chunks.push(Uint8Array.from(part.bytes));
    entry.next++;
    entry.at = this.now();
    if (entry.next < entry.count) return { kind: 'more' };
    this.forget(from, entry);
    return { kind: 'whole', frame: Buffer.concat(entry.chunks) };
  }

  /** Batches dropped for the bounds since the last call (stale or evicted): the caller counts them. */
  takeDropped(): number {
    const dropped = this.evicted;
    this.evicted = 0;
    return dropped;
  }

  /** Bytes held in unfinished batches. */
  get heldBytes(): number {
    return this.held;
  }

  private dropStale(): void {
    const oldest = this.now() - this.gapMs;
    for (const [from, entry] of this.pending) {
      if (entry.at >= oldest) continue;
      this.forget(from, entry);
      this.evicted++;
    }
  }

  /** Drops the batch that started first (not `keep`'s). */
  private evictOldest(keep?: string): void {
    for (const [from, entry] of this.pending) {
      if (from === keep) continue;
      this.forget(from, entry);
      this.evicted++;
      return;
    }
  }

  private forget(from: string, entry: Pending): void {
    this.held -= entry.bytes;
    this.pending.delete(from);
  }

  private drop(from: string): Assembled {
    const entry = this.pending.get(from);
    if (entry) this.forget(from, entry);
    return { kind: 'dropped' };
  }
}

interface Pending {
  batch: string;
  count: number;
  next: number;
  bytes: number;
  chunks: Uint8Array[];
  /** When its last part came. */
  at: number;
}
