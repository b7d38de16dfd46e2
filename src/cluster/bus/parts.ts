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

/** The frames being put back together on one subscription, one per sender, each at most `limit` bytes. */
export class PartsAssembly {
  private readonly pending = new Map<string, { batch: string; count: number; next: number; bytes: number; chunks: Uint8Array[] }>();

  constructor(private readonly limit: number) {}

  add(from: string, part: BusMessage<'part'>): Assembled {
    const { pending } = this;
    let entry = pending.get(from);
    if (part.index === 0) {
      pending.delete(from);
      if (pending.size >= MAX_SENDERS) pending.delete(pending.keys().next().value!);
      entry = { batch: part.batch, count: part.count, next: 0, bytes: 0, chunks: [] };
      pending.set(from, entry);
    }
    if (!entry || entry.batch !== part.batch || entry.count !== part.count || entry.next !== part.index) return this.drop(from);
    entry.bytes += part.bytes.length;
    if (entry.bytes > this.limit) return this.drop(from);
    // A copy: the part's bytes are a view into the client's read buffer.
    entry.chunks.push(Uint8Array.from(part.bytes));
    entry.next++;
    if (entry.next < entry.count) return { kind: 'more' };
    pending.delete(from);
    return { kind: 'whole', frame: Buffer.concat(entry.chunks) };
  }

  private drop(from: string): Assembled {
    this.pending.delete(from);
    return { kind: 'dropped' };
  }
}
