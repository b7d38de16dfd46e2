/**
 * `solve --trace FILE`: one run's event stream as JSON lines, for `report --run FILE`. The
 * first line names the format and holds the resolved config; then every event as the
 * library's `events$` gives it (a checkpoint without its snapshots). Lines go to a
 * temporary file beside FILE in 64 KB writes and the file is renamed into place when the
 * run ends, so FILE is never half-written.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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

export class TraceWriter {
  private readonly temp: string;
  private readonly fd: number;
  private buffer: string[] = [];
  private bytes = 0;

  constructor(private readonly file: string, config: SeededRunConfig) {
    this.temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
    this.fd = openSync(this.temp, 'w');
    const shape = recordedConfig(config);
    const header: TraceHeader = { type: 'trace', format: TRACE_FORMAT, tool: toolInfo(), config: shape, provenance: provenance(shape) };
    this.push(header);
  }

  write(event: ArchipelagoEvent): void {
    this.push(event.type === 'checkpoint' ? { type: event.type, mode: event.mode, epoch: event.epoch, seconds: event.seconds } : event);
  }

  /** Flushes, syncs and renames the file into place. */
  close(): void {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    renameSync(this.temp, this.file);
  }

  /** Drops the temporary file (the run could not finish properly). */
  abort(): void {
    try {
      closeSync(this.fd);
    } finally {
      rmSync(this.temp, { force: true });
    }
  }

  private push(value: object): void {
    const line = `${JSON.stringify(value)}\n`;
    this.buffer.push(line);
    this.bytes += line.length;
    if (this.bytes >= FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    writeSync(this.fd, this.buffer.join(''));
    this.buffer = [];
    this.bytes = 0;
  }
}
