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
