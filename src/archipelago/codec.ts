import { Packr } from 'msgpackr';
import type { Message } from './messages.ts';

/** The one encoder/decoder of thread messages; `moreTypes` keeps typed arrays typed. */
const packr = new Packr({ moreTypes: true });

/**
 * Encodes a message into a fresh Uint8Array that owns exactly its bytes. msgpackr writes
 * into a shared scratch buffer (and Node pools small Buffers), so its output must be
 * copied before it is transferred or kept past the next `encode`.
 */
export function encode(message: Message): Uint8Array<ArrayBuffer> {
  return new Uint8Array(packr.pack(message));
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
