/**
 * The thread messages a bus message carries (an island's task, its control messages, its
 * report, migrants), checked where they land against the archipelago's own shapes
 * (archipelago/message-shapes.ts): one definition of each, held to messages.ts's types.
 */
import { decode } from '../../archipelago/codec.ts';
import { FOREIGN_MESSAGE_SHAPES, type ForeignMessages } from '../../archipelago/message-shapes.ts';

/** A thread message carried in a bus message, checked against its shape; null when it does not decode or fit. */
export function carried<K extends keyof ForeignMessages>(kind: K, data: Uint8Array): ForeignMessages[K] | null {
  let value: unknown;
  try {
    value = decode(data);
  } catch {
    return null;
  }
  const parsed = FOREIGN_MESSAGE_SHAPES[kind].safeParse(value);
  return parsed.success ? (parsed.data as ForeignMessages[K]) : null;
}
