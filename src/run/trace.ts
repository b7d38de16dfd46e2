/**
 * `solve --trace FILE`: one run's event stream as JSON lines, for `report --run FILE`. The
 * first line names the format and holds the resolved config; then every event as the
 * library's `events$` gives it (a checkpoint without its snapshots). The file is in place
 * from the start (src/io/write-file.ts, openLiveOutput: created as an exclusive temporary
 * file, no link followed, and renamed at once) and lines reach it as the run goes: whole
 * lines only, at least every FLUSH_MS, so `tail -f FILE` follows the run and a killed run
 * leaves a file whose complete lines all parse (only its last line may be cut short).
 * Streaming in place was chosen over writing the whole file at the end (the 0.4 behaviour):
 * a long run's trace is what one wants to follow while it goes.
 */
import { openLiveOutput, type OutputFile } from '../io/write-file.ts';
import type { ArchipelagoEvent } from '../archipelago/events.ts';
import type { RunConfigInput } from '../config/schema.ts';
import { toolInfo } from '../package-info.ts';
import { provenance, type Provenance } from '../provenance.ts';
import { recordedConfig } from './result-record.ts';
import type { SeededRunConfig } from './start-run.ts';

export const TRACE_FORMAT = 'nqueens-islands/trace@1';

/** The first line of a trace. */
export interface TraceHeader {
  type: 'trace';
  format: typeof TRACE_FORMAT;
  tool: { name: string; version: string };
  config: RunConfigInput;
  provenance: Provenance;
}

const FLUSH_BYTES = 1 << 16;
/** Lines wait at most this long in memory (well within the second `tail -f` readers are promised). */
export const FLUSH_MS = 500;

/** A trace's first line for a run of `config` (the live view's header is made from the same). */
export function traceHeader(config: SeededRunConfig): TraceHeader {
  const shape = recordedConfig(config);
  return { type: 'trace', format: TRACE_FORMAT, tool: toolInfo(), config: shape, provenance: provenance(shape) };
}

/**
 * A trace that cannot be written (a full disk, a FIFO whose reader left) costs the trace,
 * never the run: the first failure closes the file (its whole lines stay), later events are
 * skipped, and `close()` returns the error for the caller to report.
 */
export class TraceWriter {
  private readonly output: OutputFile | null = null;
  private buffer: string[] = [];
  private bytes = 0;
  private failure: unknown = null;
  private readonly timer: NodeJS.Timeout | null = null;

  constructor(file: string, config: SeededRunConfig) {
    try {
      this.output = openLiveOutput(file);
    } catch (error) {
      this.failure = error;
      return;
    }
    // Unref'd: a pending flush never keeps the process alive; close() flushes the rest.
    this.timer = setInterval(() => this.guard(() => this.flush()), FLUSH_MS).unref();
    this.push(traceHeader(config));
    this.guard(() => this.flush());
  }

  write(event: ArchipelagoEvent): void {
    this.push(event.type === 'checkpoint' ? { type: event.type, mode: event.mode, epoch: event.epoch, seconds: event.seconds } : event);
  }

  /** Flushes, syncs and closes the file; returns why the trace could not be written, or null. */
  close(): unknown {
    this.stopTimer();
    this.guard(() => {
      this.flush();
      this.output?.commit();
    });
    return this.failure;
  }

  /** The run could not finish properly: writes what it has and closes the file (its lines stay, each whole). */
  abort(): void {
    this.stopTimer();
    this.guard(() => this.flush());
    this.drop();
  }

  private stopTimer(): void {
    if (this.timer !== null) clearInterval(this.timer);
  }

  private push(value: object): void {
    if (this.failure !== null) return;
    const line = `${JSON.stringify(value)}\n`;
    this.buffer.push(line);
    this.bytes += line.length;
    if (this.bytes >= FLUSH_BYTES) this.guard(() => this.flush());
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('');
    this.buffer = [];
    this.bytes = 0;
    this.output?.write(text);
  }

  private guard(work: () => void): void {
    if (this.failure !== null) return;
    try {
      work();
    } catch (error) {
      this.failure = error;
      this.drop();
    }
  }

  private drop(): void {
    this.stopTimer();
    this.buffer = [];
    try {
      this.output?.abort();
    } catch {
      // Already closed.
    }
  }
}
