/**
 * A host's part of a run's evaluation ledger (src/archipelago/budget-ledger.ts) when the
 * run's islands are spread over hosts: the relay (island-relay.ts) sends what its islands
 * published, in each island's iteration order, with the barrier state it already carries
 * between hosts; and writes what the other hosts' islands published into this host's ledger,
 * so every island's gate reads E(t) of the whole run, as on one machine.
 *
 * Why every count arrives: an island publishes t + 2 only past its gate at t + 1, which needs
 * every other host's count at t + 1, which that host's islands publish only past their gate
 * at t, which needs this host's count at t: so this relay has sent t (in order, on the one
 * subject to that host) before the slot of t can be reused (RING >= 4). Past a solution
 * (`found`) no slot is written and none is sent: no gate reads them.
 *
 * Everything from the bus is checked: a count is of an island of the sending host, its
 * iterations follow one another from 0, and a count is a whole number that never falls. A
 * count higher than the island's real one can only stop the run earlier; a host of the run
 * is trusted with its islands' counts as it is with their reports.
 */
import type { BudgetLedger } from '../../archipelago/budget-ledger.ts';
import { NO_CUT } from '../../archipelago/no-cut.ts';

export class LedgerRelay {
  /** Per island of this host: the last iteration sent. */
  private readonly sent = new Map<number, number>();
  /** Per island of another host: the last iteration received and its count. */
  private readonly last: Int32Array;
  private readonly lastCount: Float64Array;
  /** The least `found` this relay sent or was told (NO_CUT: none). */
  private found = NO_CUT;

  constructor(
    private readonly ledger: BudgetLedger,
    /** The islands of this host. */
    private readonly own: readonly number[],
    islands: number,
  ) {
    for (const island of own) this.sent.set(island, -1);
    this.last = new Int32Array(islands).fill(-1);
    this.lastCount = new Float64Array(islands);
  }

  /**
   * The counts published here since the last call (island, t, count triples), and whether the
   * ledger's `found` is lower than any sent: read after the counts (a count read past it is
   * then known to be unread by any gate).
   */
  changes(): { ledger: number[]; foundChanged: boolean } {
    const ledger: number[] = [];
    const reads = this.own.map((island) => [island, this.ledger.published(island)] as const);
    const found = this.ledger.found();
    for (const [island, published] of reads) {
      const from = this.sent.get(island)! + 1;
      const to = Math.min(published, found - 1);
      for (let t = from; t <= to; t++) ledger.push(island, t, this.ledger.countAt(island, t));
      if (to >= from) this.sent.set(island, to);
    }
    const foundChanged = found < this.found;
    this.found = Math.min(found, this.found);
    return { ledger, foundChanged };
  }

  /** The ledger's found iteration as this relay knows it. */
  knownFound(): number {
    return this.found;
  }

  /** What a host that may have missed the first messages needs: the last two counts sent of each island here (see the file's comment). */
  resend(): number[] {
    const ledger: number[] = [];
    for (const [island, sent] of this.sent)
      for (let t = Math.max(0, sent - 1); t <= sent; t++) ledger.push(island, t, this.ledger.countAt(island, t));
    return ledger;
  }

  /**
   * Counts from host `owns`'s message: null once all are written (a repeat of one already
   * known is skipped), else what is wrong (nothing of the message is then written).
   */
  apply(ledger: readonly number[], found: number, owns: (island: number) => boolean): string | null {
    if (ledger.length % 3 !== 0) return 'not island, iteration, count triples';
    const last = this.last.slice();
    const lastCount = this.lastCount.slice();
    const writes: number[] = [];
    for (let k = 0; k < ledger.length; k += 3) {
      const [island, t, count] = [ledger[k], ledger[k + 1], ledger[k + 2]];
      if (!owns(island)) return `island ${island} is not the sender's`;
      if (t <= last[island]) continue;
      if (t !== last[island] + 1) return `island ${island}'s iteration ${t} after ${last[island]}`;
      if (count < lastCount[island]) return `island ${island}'s count falls`;
      last[island] = t;
      lastCount[island] = count;
      writes.push(island, t, count);
    }
    // The found iteration first: a gate that reads a count past it must already see it.
    if (found < this.found) {
      this.found = found;
      this.ledger.reportFound(found);
    }
    for (let k = 0; k < writes.length; k += 3) this.ledger.publish(writes[k], writes[k + 1], writes[k + 2]);
    this.last.set(last);
    this.lastCount.set(lastCount);
    return null;
  }
}
