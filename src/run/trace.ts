/**
 * `solve --trace FILE`: one run's event stream as JSON lines, for `report --run FILE`. The
 * first line names the format and holds the resolved config; then every event as the
 * library's `events$` gives it (a checkpoint without its snapshots). Lines go to a
 * temporary file beside FILE in 64 KB writes and the file is renamed into place when the
 * run ends, so FILE is never half-written (src/io/write-file.ts: a device such as
 * /dev/stdout is written as the lines come).
 */
import { openOutput, type OutputFile } from '../io/write-file.ts';
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

/**
 * A trace that cannot be written (a full disk, a FIFO whose reader left) costs the trace,
 * never the run: the first failure drops the temporary file, later events are skipped, and
 * `close()` returns the error for the caller to report.
 */
export class TraceWriter {
  private readonly output: OutputFile | null = null;
  private buffer: string[] = [];
  private bytes = 0;
  private failure: unknown = null;

  constructor(file: string, config: SeededRunConfig) {
    try {
      this.output = openOutput(file);
    } catch (error) {
      this.failure = error;
      return;
    }
    const shape = recordedConfig(config);
    const header: TraceHeader = { type: 'trace', format: TRACE_FORMAT, tool: toolInfo(), config: shape, provenance: provenance(shape) };
    this.push(header);
  }

  write(event: ArchipelagoEvent): void {
    this.push(event.type === 'checkpoint' ? { type: event.type, mode: event.mode, epoch: event.epoch, seconds: event.seconds } : event);
  }

  /** Flushes, syncs and renames the file into place; returns why the trace could not be written, or null. */
  close(): unknown {
    this.guard(() => {
      this.flush();
      this.output?.commit();
    });
    return this.failure;
  }

  /** Drops the temporary file (the run could not finish properly). */
  abort(): void {
    this.drop();
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
    this.output?.write(this.buffer.join(''));
    this.buffer = [];
    this.bytes = 0;
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
    this.buffer = [];
    try {
      this.output?.abort();
    } catch {
      // The temporary file is gone or was never made.
    }
  }
}
