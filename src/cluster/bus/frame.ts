/**
 * A bus message's frame [header | body | mac]: the header names the bus format, the tool
 * version, the sender, its sequence number and the message's scope; the mac, with a cluster
 * key, is a GMAC (AES-256-GCM) over the subject and exactly the frame's bytes before it
 * (key.ts, docs/distributed.md, "Security model").
 */
import { createCipheriv, type KeyObject } from 'node:crypto';
import { toolInfo } from '../../package-info.ts';
import { BUS_FORMAT } from './messages.ts';

/** A frame's fields. Its layout: format (u8), then tool, from and scope (each a u8 length and its UTF-8 bytes), seq (f64, big-endian), flags (u8: 1 signed), body, mac (MAC_BYTES, 16, when signed). */
export interface Frame {
  format: number;
  tool: string;
  /** The sender's id (a host's id, a coordinator's). */
  from: string;
  /** The sender's message count, 1, 2, ...: a receiver takes each sender's messages in increasing order only. */
  seq: number;
  /** '' (the cluster's key), or the study or run whose key signs it. */
  scope: string;
  /** The packed message: a view into the frame. */
  body: Uint8Array;
  /** The GMAC over the subject and the frame up to it (`macOf`; a view into the frame), or null unsigned. */
  mac: Uint8Array | null;
}

export const MAC_BYTES = 16;
const SIGNED = 1;

/**
 * The frame of `body` (its one copy), unsigned when `sign` is not given, else with the MAC
 * `sign` computes over the frame's bytes before it (a tool or scope over 255 bytes is cut: a
 * receiver then refuses it).
 */
export function writeFrame(
  fields: Omit<Frame, 'mac' | 'format' | 'tool'> & { format?: number; tool?: string },
  sign?: (signed: Uint8Array) => Uint8Array,
): Buffer {
  const tool = Buffer.from(fields.tool ?? toolInfo().version, 'utf8').subarray(0, 255);
  const from = Buffer.from(fields.from, 'utf8').subarray(0, 255);
  const scope = Buffer.from(fields.scope, 'utf8').subarray(0, 255);
  const head = 1 + 1 + tool.length + 1 + from.length + 1 + scope.length + 8 + 1;
  const frame = Buffer.allocUnsafe(head + fields.body.length + (sign ? MAC_BYTES : 0));
  let at = frame.writeUInt8(fields.format ?? BUS_FORMAT, 0);
  for (const part of [tool, from, scope]) {
    at = frame.writeUInt8(part.length, at);
    at += part.copy(frame, at);
  }
  at = frame.writeDoubleBE(fields.seq, at);
  at = frame.writeUInt8(sign ? SIGNED : 0, at);
  frame.set(fields.body, at);
  if (sign) frame.set(sign(frame.subarray(0, head + fields.body.length)), head + fields.body.length);
  return frame;
}

/** A frame's fields (views into `data`, no copy), or null when it is not a whole frame of this layout. */
export function readFrame(data: Uint8Array): Frame | null {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  const need = (n: number) => at + n <= bytes.length;
  if (!need(1)) return null;
  const format = bytes[at++];
  const strings: string[] = [];
  for (let k = 0; k < 3; k++) {
    if (!need(1)) return null;
    const length = bytes[at++];
    if (!need(length)) return null;
    strings.push(bytes.toString('utf8', at, at + length));
    at += length;
  }
  if (!need(9)) return null;
  const seq = bytes.readDoubleBE(at);
  const flags = bytes[at + 8];
  at += 9;
  if (flags & ~SIGNED) return null;
  const macAt = flags & SIGNED ? bytes.length - MAC_BYTES : bytes.length;
  if (macAt < at) return null;
  return {
    format,
    tool: strings[0],
    from: strings[1],
    scope: strings[2],
    seq,
    body: bytes.subarray(at, macAt),
    mac: flags & SIGNED ? bytes.subarray(macAt) : null,
  };
}

/**
 * The MAC of a frame's signed bytes, for `subject` (NATS subjects hold no NUL): a GMAC, the
 * AES-256-GCM tag of no plaintext with the subject and the bytes as associated data, under
 * the sender's key (bus-key.ts `macKeyOf`) with its sequence number as the nonce. A sender
 * never uses a sequence number twice, so no key meets a nonce twice, as GCM requires.
 * AES-GCM runs in hardware: 40 kB in about 7 µs, where HMAC-SHA256 took about 40.
 */
export function macOf(key: KeyObject, seq: number, subject: string, signed: Uint8Array): Buffer {
  const nonce = Buffer.alloc(12);
  nonce.writeUInt32BE(Math.floor(seq / 2 ** 32), 4);
  nonce.writeUInt32BE(seq >>> 0, 8);
  const gmac = createCipheriv('aes-256-gcm', key, nonce);
  gmac.setAAD(Buffer.from(`${subject}\u0000`, 'utf8'));
  gmac.setAAD(signed);
  gmac.final();
  return gmac.getAuthTag();
}
