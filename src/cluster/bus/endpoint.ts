/**
 * One process's end of the bus: its connection and its codec. Every message it sends is
 * encoded (and signed) for the subject it goes to; every message it receives goes through
 * a handler that can never break the NATS client: a throw inside a subscription's callback
 * would end the client's reader loop (which then prints `reader closed` on stdout) and leave
 * the process deaf, so a handler that throws counts as one malformed message instead.
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { BusCodec, Decoded, DecodeOptions } from './codec.ts';
import type { BusMessage, BusMessageType } from './messages.ts';

export interface ListenOptions {
  /** A message of another tool version or bus format (already counted): the caller may name its sender. */
  onIncompatible?(decoded: Extract<Decoded<BusMessageType>, { kind: 'incompatible' }>): void;
}

export class BusEndpoint {
  private warnedUnauthenticated = false;

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
    if (!this.nc.isClosed()) this.nc.publish(subject, this.codec.encode(subject, message));
  }

  request(subject: string, message: BusMessage, timeoutMs: number): Promise<Msg> {
    return this.nc.request(subject, this.codec.encode(subject, message), { timeout: timeoutMs });
  }

  /** Answers a request (its reply subject is what the answer is signed for). */
  respond(msg: Msg, message: BusMessage): void {
    if (msg.reply && !this.nc.isClosed()) msg.respond(this.codec.encode(msg.reply, message));
  }

  /** Decodes what arrived on `msg.subject` (a reply, a work message); drops are counted. */
  decode<T extends BusMessageType>(msg: { subject: string; data: Uint8Array }, types: readonly T[], options?: DecodeOptions): Decoded<T> {
    const decoded = this.codec.decode(msg.subject, msg.data, types, options);
    if (decoded.kind === 'unauthenticated' && !this.warnedUnauthenticated) {
      this.warnedUnauthenticated = true;
      this.log(
        `dropped a message on ${msg.subject.slice(0, 200)} without a valid signature under this cluster key (a replay, a party without the key, or one with another key); further ones are only counted`,
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
    return this.nc.subscribe(subject, {
      callback: (error, msg) => {
        if (error) return;
        try {
          const decoded = this.decode(msg, types);
          if (decoded.kind === 'ok') handle(decoded.message, decoded.from, msg);
          else if (decoded.kind === 'incompatible') options.onIncompatible?.(decoded);
        } catch {
          this.dropped.malformed++;
        }
      },
    });
  }
}
