/**
 * One process's end of the bus codec: every message's body msgpack (msgpackr with the thread
 * codec's options), packed once, in a frame (frame.ts) signed under the cluster key (key.ts).
 *
 * Whatever arrives from the network is untrusted: a message larger than its type's bound is
 * refused before it is decoded; one that does not decode, fit its schema (messages.ts), carry
 * a valid signature or is a replay is dropped and counted, never a crash; one from another
 * tool version or bus format is told apart so it can be refused by name, and with a key only
 * one whose signature holds says anything more than its version.
 */
import { createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { Packr } from 'msgpackr';
import { toolInfo } from '../../package-info.ts';
import { macKeyOf, type ClusterKey } from './key.ts';
import { MAC_BYTES, macOf, readFrame, writeFrame, type Frame } from './frame.ts';
import { BUS_FORMAT, BUS_MESSAGES, scopeOf, type BusMessage, type BusMessageType } from './messages.ts';
import { safeText } from './text.ts';

const bodyPackr = new Packr({ moreTypes: true });

/** Why a message was dropped; `host` prints the counts when it leaves, `solve` and `experiment` at the end. */
export type DropReason = 'malformed' | 'foreign' | 'unauthenticated' | 'invalid';

/** Messages dropped since start, by reason. */
export class DropCounter {
  /** Did not decode, fit its schema, or broke its handler. */
  malformed = 0;
  /** From another tool version or bus format. */
  foreign = 0;
  /** No valid signature under a cluster key, a replay, or from a party not of its run. */
  unauthenticated = 0;
  /** A claimed result (solution, best, report, study record) that fails the independent checks. */
  invalid = 0;
  count(decoded: { kind: string }): void {
    if (decoded.kind === 'malformed' || decoded.kind === 'foreign' || decoded.kind === 'unauthenticated' || decoded.kind === 'invalid')
      this[decoded.kind]++;
  }
  get total(): number {
    return this.malformed + this.foreign + this.unauthenticated + this.invalid;
  }
  /** `3 bus messages dropped (2 malformed, 1 unauthenticated)`, or '' when none was. */
  describe(): string {
    if (this.total === 0) return '';
    const parts = (['malformed', 'foreign', 'unauthenticated', 'invalid'] as const).flatMap((k) => (this[k] ? [`${this[k]} ${k}`] : []));
    return `${this.total} bus message${this.total === 1 ? '' : 's'} dropped (${parts.join(', ')})`;
  }
}

export type Decoded<T extends BusMessageType> =
  /** `from`: the sender's id (authenticated when a cluster key is set). */
  | { kind: 'ok'; message: BusMessage<T>; from: string }
  /**
   * From another tool version or bus format: `from` says which (escaped), for a one-line
   * refusal; `body` what it says, when it can be read and, with a key, its signature holds
   * (a frame of another bus format cannot be checked: it is named, never read).
   */
  | { kind: 'foreign'; from: string; body: unknown }
  | { kind: 'malformed' }
  | { kind: 'unauthenticated' };

export interface DecodeOptions {
  /**
   * Skip the sequence check, for a message whose order against its sender's others is not
   * kept: a work message JetStream redelivers on purpose, or a request's reply, which the
   * client hands over through a promise (after messages behind it in the same read were
   * already dispatched). Such a message is still signed for its subject: a reply for the
   * request's own one-time inbox (a replay can reach no other request), a work message for
   * its study's queue (a replayed one only repeats a run, recorded once).
   */
  unordered?: boolean;
}

/**
 * One process's end of the bus: it signs what it sends (with its id and a sequence number)
 * and checks what it receives. One per connection: sequence numbers are checked per sender,
 * which NATS delivers in order on one connection.
 */
export class BusCodec {
  private seq = 0;
  /** Each sender's last sequence number taken (only with a key: without one anybody may claim any). */
  private readonly last = new Map<string, number>();
  /** Each sender's derived key in a run or study, by scope and sender; a few hundred at a time. */
  private readonly keys = new Map<string, KeyObject>();

  constructor(
    /** This process's id on the bus. */
    readonly self: string,
    private readonly key: ClusterKey | null,
    readonly dropped = new DropCounter(),
  ) {}

  /** Without a key: a signed frame was seen (hosts with a key this process lacks: `BusEndpoint` gives the hint). */
  sawSigned = false;

  get signed(): boolean {
    return this.key !== null;
  }

  /** A codec under the same key for another sender (its own sequence numbers and drop counts). */
  sibling(self: string): BusCodec {
    return new BusCodec(self, this.key);
  }

  private keyOf(scope: string, sender: string): KeyObject {
    const name = `${scope}\u0000${sender}`;
    let key = this.keys.get(name);
    if (!key) {
      if (this.keys.size >= 256) this.keys.clear();
      key = createSecretKey(macKeyOf(this.key!, scope, sender));
      this.keys.set(name, key);
    }
    return key;
  }

  /** The bytes to publish `message` on `subject` (a message is signed for one subject): its body packed once, copied once into its frame. */
  encode(subject: string, message: BusMessage): Uint8Array {
    const seq = ++this.seq;
    const scope = scopeOf(message);
    const key = this.key ? this.keyOf(scope, this.self) : null;
    return writeFrame(
      { from: this.self, seq, scope, body: bodyPackr.pack(message) },
      key ? (signed) => macOf(key, seq, subject, signed) : undefined,
    );
  }

  /**
   * Decodes a message that arrived on `subject`, expected to be one of `types`; never throws.
   * Counts what it drops (a foreign message too; the caller may name its sender).
   */
  decode<T extends BusMessageType>(subject: string, data: Uint8Array, types: readonly T[], options: DecodeOptions = {}): Decoded<T> {
    const decoded = this.check(subject, data, types, options);
    if (decoded.kind !== 'ok') this.dropped.count(decoded);
    return decoded;
  }

  private check<T extends BusMessageType>(subject: string, data: Uint8Array, types: readonly T[], options: DecodeOptions): Decoded<T> {
    if (!(data instanceof Uint8Array) || data.length === 0) return { kind: 'malformed' };
    let limit = 0;
    for (const t of types) limit = Math.max(limit, BUS_MESSAGES[t].limit);
    if (data.length > limit) return { kind: 'malformed' };
    if (data[0] !== BUS_FORMAT) return foreignMessage(data, this.key === null);
    const frame = readFrame(data);
    if (!frame) return { kind: 'malformed' };
    const { from, seq, scope, mac, body } = frame;
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(from) || !Number.isSafeInteger(seq) || seq < 1 || scope.length > 64) return { kind: 'malformed' };
    if (mac !== null && !this.key) this.sawSigned = true;
    // Checked before anything in the body is decoded (another tool version's too): the MAC covers every byte sent but itself.
    if (this.key && !this.authentic(frame, subject, data)) return { kind: 'unauthenticated' };
    if (frame.tool !== toolInfo().version) return { kind: 'foreign', from: versionOf(frame.tool, frame.format), body: unpackQuietly(body) };
    if (this.key && !options.unordered) {
      if (seq <= (this.last.get(from) ?? 0)) return { kind: 'unauthenticated' };
      this.last.set(from, seq);
    }
    const message = unpackQuietly(body) as { type?: unknown } | null;
    const type = message?.type;
    if (!types.includes(type as T)) return { kind: 'malformed' };
    const parsed = BUS_MESSAGES[type as T].schema.safeParse(message);
    if (!parsed.success) return { kind: 'malformed' };
    const decodedMessage = parsed.data as BusMessage<T>;
    // Signed for this scope: a run's message cannot be passed off as another run's.
    if (scopeOf(decodedMessage) !== scope) return { kind: 'unauthenticated' };
    return { kind: 'ok', message: decodedMessage, from };
  }

  private authentic({ mac, scope, from, seq }: Frame, subject: string, data: Uint8Array): boolean {
    if (mac === null) return false;
    return timingSafeEqual(mac, macOf(this.keyOf(scope, from), seq, subject, data.subarray(0, data.length - MAC_BYTES)));
  }
}

/** `nqueens-islands 0.4.0 (bus format 4)`, from what a frame says (escaped: it came from the bus). */
function versionOf(tool: string, format: number): string {
  return `${toolInfo().name} ${safeText(tool, 40)} (bus format ${format})`;
}

/**
 * A message not in this format: a frame of another format (its header keeps format and tool
 * first) or a msgpack envelope of formats 1 and 2 names its sender's version; anything else
 * is malformed. Its signature cannot be checked: what it says is read only on a bus trusted
 * as it is (`keyless`).
 */
function foreignMessage(data: Uint8Array, keyless: boolean): Decoded<never> {
  const frame = data[0] < 0x80 ? readFrame(data) : null;
  if (frame) return { kind: 'foreign', from: versionOf(frame.tool, frame.format), body: undefined };
  const envelope = unpackQuietly(data) as { format?: unknown; tool?: unknown; body?: unknown } | null;
  if (
    envelope === null ||
    typeof envelope !== 'object' ||
    typeof envelope.format !== 'number' ||
    envelope.format === BUS_FORMAT ||
    typeof envelope.tool !== 'string'
  )
    return { kind: 'malformed' };
  // Format 1 carried the body as an object, 2 as packed bytes: either way a sender that says it is a host can be named.
  const body = !keyless ? undefined : envelope.body instanceof Uint8Array ? unpackQuietly(envelope.body) : envelope.body;
  return { kind: 'foreign', from: versionOf(envelope.tool, envelope.format), body };
}

function unpackQuietly(bytes: Uint8Array): unknown {
  try {
    return bodyPackr.unpack(bytes) as unknown;
  } catch {
    return undefined;
  }
}

/** This side's version, as a refusal names it. */
export function ownVersion(): string {
  return `${toolInfo().name} ${toolInfo().version} (bus format ${BUS_FORMAT})`;
}
