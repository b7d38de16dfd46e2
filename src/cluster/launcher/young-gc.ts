/**
 * A relay's own young-generation collection, every `YOUNG_GC_BYTES` of migrants it relays.
 *
 * Why: a host's main thread allocates little on the JavaScript heap but some 200 kB of
 * ArrayBuffers an iteration (each 40 kB migrants message is received from its island, framed,
 * joined by the NATS client for the socket, read from the socket and decoded). Its young
 * generation then fills slowly (V8 grows it to 16 MB when start-up leaves much alive), so the
 * buffers' external memory reaches V8's limit first, and V8 answers with a full mark-compact
 * every 100 or so iterations (30-40 a run of 1500, 0.2-0.4 s of CPU on the main thread and
 * V8's helpers). A scavenge every few MB frees those buffers while they are young, for well
 * under a millisecond each (docs/performance.md, "A host's island").
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** Migrant bytes relayed (sent and received) between two young collections: about 25 iterations at N = 1000. */
export const YOUNG_GC_BYTES = 2 * 1024 * 1024;

type Gc = (options: { type: 'minor' }) => void;

let gc: Gc | null | undefined;

/** V8's collector, or null if this Node does not give it (then nothing is collected early). */
function collector(): Gc | null {
  if (gc === undefined) {
    try {
      // Exposed in a context made after the flag is set; the process's own global stays as it was.
      v8.setFlagsFromString('--expose-gc');
      const found = vm.runInNewContext('gc') as unknown;
      gc = typeof found === 'function' ? (found as Gc) : null;
    } catch {
      gc = null;
    }
  }
  return gc;
}

/** Counts relayed bytes and collects the young generation every `YOUNG_GC_BYTES`. */
export class YoungCollection {
  private bytes = 0;
  private readonly gc = collector();

  relayed(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes < YOUNG_GC_BYTES || !this.gc) return;
    this.bytes = 0;
    this.gc({ type: 'minor' });
  }
}
