import type { MigrationEvent } from './events.ts';
import { MIGRATION_RECORD } from './messages.ts';

/** Migration records an island collects between progress reports, in one reused Int32Array. */
export class MigrationLog {
  private data = new Int32Array(MIGRATION_RECORD * 64);
  private length = 0;

  add(from: number, to: number, epoch: number, iteration: number, sent: number, accepted: number): void {
    if (this.length + MIGRATION_RECORD > this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    const d = this.data;
    let at = this.length;
    d[at++] = from;
    d[at++] = to;
    d[at++] = epoch;
    d[at++] = iteration;
    d[at++] = sent;
    d[at++] = accepted;
    this.length = at;
  }

  /** The records so far (a copy, ready to send) and an empty log. */
  take(): Int32Array {
    const out = this.data.slice(0, this.length);
    this.length = 0;
    return out;
  }
}

/** The events of a log's flat records (`epoch` null unless the mode numbers its migrations). */
export function migrationEvents(records: Int32Array, numbered: boolean): MigrationEvent[] {
  const events: MigrationEvent[] = [];
  for (let at = 0; at + MIGRATION_RECORD <= records.length; at += MIGRATION_RECORD) {
    events.push({
      type: 'migration',
      from: records[at],
      to: records[at + 1],
      epoch: numbered ? records[at + 2] : null,
      iteration: records[at + 3],
      sent: records[at + 4],
      accepted: records[at + 5],
    });
  }
  return events;
}
