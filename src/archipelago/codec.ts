import { Packr } from 'msgpackr';
import type { Message } from './messages.ts';

/** The one encoder/decoder of thread messages; `moreTypes` keeps typed arrays typed. */
const packr = new Packr({ moreTypes: true });

/** Above this many bytes of typed arrays a message is written into a buffer of its own size (see `encode`). */
const LARGE_BYTES = 1 << 20;
/** Room left in such a buffer for the rest of the message (its fields and their names). */
const LARGE_SLACK = 1 << 16;

/**
 * Encodes a message into a fresh Uint8Array at offset 0 of a buffer it owns. msgpackr writes
 * into a shared scratch buffer (and Node pools small Buffers), so its output must be
 * copied before it is transferred or kept past the next `encode`: the buffer is then exactly
 * the message. A message carrying chromosomes (a migrant, a best, a report at N = 10^7: 40 MB
 * of genes) is instead written straight into a buffer sized for it (at most 64 KB more than
 * the message): no copy, and msgpackr's scratch buffer no longer grows to twice the message
 * and stays that size in every thread (80 MB an island at 10^7, reallocated every other message).
 */
export function encode(message: Message): Uint8Array<ArrayBuffer> {
  const typed = typedBytes(message, 4);
  if (typed < LARGE_BYTES) return new Uint8Array(packr.pack(message));
  const own = Buffer.allocUnsafeSlow(typed + LARGE_SLACK);
  packr.useBuffer(own);
  try {
    const out = packr.pack(message);
    // msgpackr writes on in place when the message fits (it has, unless its other fields were
    // larger than the slack, when it moved to a buffer of its own making: copied as before).
    return out.buffer === own.buffer ? new Uint8Array(own.buffer, out.byteOffset, out.byteLength) : new Uint8Array(out);
  } finally {
    packr.useBuffer(Buffer.allocUnsafeSlow(8192));
  }
}

/** Bytes of the typed arrays in `value` and its objects, `depth` levels down (messages nest a few). */
function typedBytes(value: unknown, depth: number): number {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (depth < 0 || typeof value !== 'object' || value === null) return 0;
  let sum = 0;
  for (const v of Object.values(value)) sum += typedBytes(v, depth - 1);
  return sum;
}

export function decode<M extends Message = Message>(bytes: Uint8Array): M {
  return packr.unpack(bytes) as M;
}

/**
 * The same encoding for data written to files (a checkpoint holds island snapshots, typed
 * arrays and all). Files are not thread messages: what `decodeData` returns is unchecked.
 */
export function encodeData(value: object): Uint8Array<ArrayBuffer> {
  return new Uint8Array(packr.pack(value));
}

export function decodeData(bytes: Uint8Array): unknown {
  return packr.unpack(bytes) as unknown;
}
