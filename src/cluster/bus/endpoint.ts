/**
 * One process's end of the bus: its connection and its codec. Every message it sends is
 * encoded (and signed) for the subject it goes to; every message it receives goes through
 * a handler that can never break the NATS client: a throw inside a subscription's callback
 * would end the client's reader loop (which then prints `reader closed` on stdout) and leave
 * the process deaf, so a handler that throws counts as one malformed message instead.
 */
import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { BusCodec, Decoded, DecodeOptions } from './codec.ts';
import { BUS_MESSAGES, MAX_BUS_BYTES, type BusMessage, type BusMessageType } from './messages.ts';
import { partsOf, PartsAssembly } from './parts.ts';
import { CLUSTER_KEY_ENV } from './key.ts';
import { safeText } from './text.ts';

export interface ListenOptions {
  /** A message of another tool version or bus format (already counted): the caller may name its sender. */
  onForeign?(decoded: Extract<Decoded<BusMessageType>, { kind: 'foreign' }>): void;
}

/** How a `requestFrom` ended: the answer taken, nobody subscribed to the subject, or no answer taken in time. */
export type Answer<T extends BusMessageType> =
  | { kind: 'answer'; message: BusMessage<T>; from: string }
  | { kind: 'no-responders' }
  /** `foreign`: the last answer of another tool version or bus format, for the line that names it. */
  | { kind: 'timeout'; foreign: string | null };

export class BusEndpoint {
  private warnedUnauthenticated = false;
  private hinted = false;

  constructor(
    readonly nc: NatsConnection,
    readonly codec: BusCodec,
    /** One line when the first message without a valid signature is dropped. */
    private readonly log: (line: string) => void = () => {},
  ) {}

  get dropped() {
    return this.codec.dropped;
  }

  publish(subject: string, message: BusMessage): void {
    if (!this.nc.isClosed()) for (const frame of this.frames(subject, message)) this.nc.publish(subject, frame);
  }

  /**
   * What carries `message` to `subject`: its frame, or, larger than the broker's `max_payload`
   * (read at each send: a broker restarted with another setting is followed), its parts (parts.ts).
   */
  private frames(subject: string, message: BusMessage): Uint8Array[] {
    const frame = this.codec.encode(subject, message);
    const parts = partsOf(frame, this.nc.info?.max_payload ?? Infinity);
    return parts ? parts.map((part) => this.codec.encode(subject, part)) : [frame];
  }

  request(subject: string, message: BusMessage, timeoutMs: number): Promise<Msg> {
    return this.nc.request(subject, this.codec.encode(subject, message), { timeout: timeoutMs });
  }

  /**
   * A request whose answer must come from one party: `take` says which decoded answer counts
   * (its sender, its run). Any other reply on the request's inbox (a bystander answering first,
   * a forgery, a replay) is dropped and counted, and the wait goes on: the first reply wins
   * nothing. A request's inbox is its own, so a reply is out of its sender's order on purpose.
   */
  requestFrom<T extends BusMessageType>(
    subject: string,
    message: BusMessage,
    types: readonly T[],
    take: (message: BusMessage<T>, from: string) => boolean,
    timeoutMs: number,
  ): Promise<Answer<T>> {
    return new Promise((resolve) => {
      if (this.nc.isClosed()) return resolve({ kind: 'timeout', foreign: null });
      const inbox = createInbox();
      let foreign: string | null = null;
      const end = (answer: Answer<T>) => {
        clearTimeout(timer);
        sub.unsubscribe();
        resolve(answer);
      };
      const timer = setTimeout(() => end({ kind: 'timeout', foreign }), timeoutMs);
      const sub = this.nc.subscribe(inbox, {
        callback: (error, msg) => {
          if (error) return;
          // The broker's own "no responders" status (503, no payload): nobody listens on `subject`.
          if (msg.data.length === 0 && msg.headers?.code === 503) return end({ kind: 'no-responders' });
          try {
            const decoded = this.decode(msg, types, { unordered: true });
            if (decoded.kind === 'foreign') foreign = decoded.from;
            else if (decoded.kind === 'ok' && take(decoded.message, decoded.from))
              end({ kind: 'answer', message: decoded.message, from: decoded.from });
            else if (decoded.kind === 'ok') this.dropped.unauthenticated++;
          } catch {
            this.dropped.malformed++;
          }
        },
      });
      // Only the last part asks for the answer: the receiver answers once the whole is in.
      const frames = this.frames(subject, message);
      frames.forEach((frame, i) => this.nc.publish(subject, frame, i === frames.length - 1 ? { reply: inbox } : undefined));
    });
  }

  /** Answers a request (its reply subject is what the answer is signed for). */
  respond(msg: Msg, message: BusMessage): void {
    if (msg.reply && !this.nc.isClosed()) msg.respond(this.codec.encode(msg.reply, message));
  }

  /** '' or, for a process without a key that heard signed messages, why keyed parties will not answer it. */
  keyHint(): string {
    return this.codec.sawSigned && !this.codec.signed
      ? `; the hosts sign their messages with a cluster key and this process has none, so they drop what it sends (set ${CLUSTER_KEY_ENV} or --cluster-key-file)`
      : '';
  }

  /** Decodes what arrived on `msg.subject` (a reply, a work message); drops are counted. */
  decode<T extends BusMessageType>(msg: { subject: string; data: Uint8Array }, types: readonly T[], options?: DecodeOptions): Decoded<T> {
    const decoded = this.codec.decode(msg.subject, msg.data, types, options);
    if (this.codec.sawSigned && !this.hinted) {
      this.hinted = true;
      this.log(`heard a signed message on ${safeText(msg.subject, 200)}${this.keyHint()}`);
    }
    if (decoded.kind === 'unauthenticated' && !this.warnedUnauthenticated) {
      this.warnedUnauthenticated = true;
      this.log(
        `dropped a message on ${safeText(msg.subject, 200)} without a valid signature under this cluster key (a replay, a party without the key, or one with another key); further ones are only counted`,
      );
    }
    return decoded;
  }

  /** Subscribes `handle` to the messages of `types` on `subject`; anything else is dropped and counted. */
  listen<T extends BusMessageType>(
    subject: string,
    types: readonly T[],
    handle: (message: BusMessage<T>, from: string, msg: Msg) => void,
    options: ListenOptions = {},
  ): Subscription {
    // Only a type that may be large comes in parts: a control message's bound stays checked on its raw bytes.
    const limit = Math.max(...types.map((t) => BUS_MESSAGES[t].limit));
    const parts = limit >= MAX_BUS_BYTES ? new PartsAssembly(limit) : null;
    return this.nc.subscribe(subject, {
      callback: (error, msg) => {
        if (error) return;
        try {
          const decoded = parts ? this.whole(msg, types, parts) : this.decode(msg, types);
          if (decoded?.kind === 'ok') handle(decoded.message, decoded.from, msg);
          else if (decoded?.kind === 'foreign') options.onForeign?.(decoded);
        } catch {
          this.dropped.malformed++;
        }
      },
    });
  }

  /**
   * A message that may come in parts: null while parts are missing, else the whole decoded.
   * The whole is signed by its sender for the subject and checked as its own type; it is taken
   * out of its sender's order (its parts, sent after it was framed, were checked in order).
   */
  private whole<T extends BusMessageType>(msg: Msg, types: readonly T[], parts: PartsAssembly): Decoded<T> | null {
    const decoded = this.decode(msg, [...types, 'part']);
    if (decoded.kind !== 'ok' || decoded.message.type !== 'part') return decoded;
    const added = parts.add(decoded.from, decoded.message);
    // Batches dropped for the bounds on what is held unfinished count as malformed, as a lost part does.
    this.dropped.malformed += parts.takeDropped() + (added.kind === 'dropped' ? 1 : 0);
    if (added.kind !== 'whole') return null;
    const whole = this.decode({ subject: msg.subject, data: added.frame }, types, { unordered: true });
    if (whole.kind !== 'ok' || whole.from === decoded.from) return whole;
    this.dropped.unauthenticated++;
    return null;
  }
}
