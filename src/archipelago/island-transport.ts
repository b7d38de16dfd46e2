import type { ControlMessage, MigrantsMessage } from './messages.ts';

/**
 * What an island needs to migrate and report, whatever carries the bytes. The GA loop
 * only sees this; a network transport would be a second implementation.
 */
export interface IslandTransport {
  /** In-neighbours, ascending; `receive(i)` reads from `sources[i]`. */
  readonly sources: readonly number[];
  /** Out-neighbours, ascending. */
  readonly targets: readonly number[];
  /** Sends one migrants message along every out-edge, encoded at once (its arrays may be views of live state). */
  send(message: MigrantsMessage): void;
  /** The next message that has arrived from `sources[index]`, without waiting or yielding. */
  receive(index: number): MigrantsMessage | undefined;
  /** A message to the coordinator, encoded at once (its arrays may be views of live state). */
  report(message: ControlMessage): void;
  close(): void;
}
