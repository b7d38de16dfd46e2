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

export class TraceWriter {
  private readonly output: OutputFile;
  private buffer: string[] = [];
  private bytes = 0;
  private readonly timer: NodeJS.Timeout;
  /** A write that failed (a full disk): later lines are dropped and close() throws it. */
  private failed: { error: unknown } | null = null;

  constructor(file: string, config: SeededRunConfig) {
    this.output = openLiveOutput(file);
    // Unref'd: a pending flush never keeps the process alive; close() flushes the rest.
    this.timer = setInterval(() => this.flush(), FLUSH_MS).unref();
    const shape = recordedConfig(config);
    const header: TraceHeader = { type: 'trace', format: TRACE_FORMAT, tool: toolInfo(), config: shape, provenance: provenance(shape) };
    this.push(header);
    this.flush();
  }

  write(event: ArchipelagoEvent): void {
    this.push(event.type === 'checkpoint' ? { type: event.type, mode: event.mode, epoch: event.epoch, seconds: event.seconds } : event);
  }

  /** Flushes, syncs and closes the file. */
  close(): void {
    clearInterval(this.timer);
    this.flush();
    if (this.failed !== null) {
      this.output.abort();
      throw this.failed.error;
    }
    this.output.commit();
  }

  /** The run could not finish properly: writes what it has and closes the file (its lines stay, each whole). */
  abort(): void {
    clearInterval(this.timer);
    this.flush();
    this.output.abort();
  }

  private push(value: object): void {
    const line = `${JSON.stringify(value)}\n`;
    this.buffer.push(line);
    this.bytes += line.length;
    if (this.bytes >= FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.buffer.length === 0 || this.failed !== null) return;
    const text = this.buffer.join('');
    this.buffer = [];
    this.bytes = 0;
    try {
      this.output.write(text);
    } catch (error) {
      this.failed = { error };
    }
  }
}
