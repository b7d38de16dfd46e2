/**
 * Immigrant survival, on the island (docs/events.md, `survival`): which members a batch of
 * immigrants became, and whether each is still there, unchanged, k iterations later.
 * Cheap enough to leave on: the slots an immigrant entered are found from the population's
 * write stamps (O(M) per batch), and a check costs O(1) for an overwritten slot and one
 * hash of N genes for a kept one.
 */
import type { Population } from '../../ga/population.ts';
import { hashGenes } from './sample.ts';

/** Iterations after which an immigrant's survival is checked. */
export const SURVIVAL_ITERATIONS = 10;

/** Survival records, flat: SURVIVAL_RECORD ints each (from, to, epoch, iteration taken in, received, accepted, survived). */
export const SURVIVAL_RECORD = 7;

interface Batch {
  from: number;
  epoch: number;
  iteration: number;
  received: number;
  accepted: number;
  /** The iteration at which it is checked. */
  due: number;
  slots: Int32Array;
  stamps: Int32Array;
  hashes: Uint32Array;
}

/**
 * Watches the immigrants of one island. An immigrant survived when, `after` iterations
 * after it was taken in, the slot it entered has not been written since and holds the same
 * permutation (a copy of it elsewhere does not count: the member itself must be there).
 * A slot written twice by one batch counts once. Batches taken in fewer than `after`
 * iterations before the island's end are never checked and not reported.
 */
export class ImmigrantTracker {
  private batches: Batch[] = [];
  private records: number[] = [];
  /** Totals over the checked batches. */
  checked = 0;
  survived = 0;

  constructor(
    private readonly island: number,
    readonly after = SURVIVAL_ITERATIONS,
  ) {}

  /** Call before the replacement places a batch; pass the result to `taken`. */
  mark(pop: Population): number {
    return pop.writes;
  }

  /** A batch of `received` immigrants from `from` was placed at `iteration`, `accepted` of them by the policy's count. */
  taken(pop: Population, mark: number, from: number, epoch: number, iteration: number, received: number, accepted: number): void {
    let entered = 0;
    for (let s = 0; s < pop.size; s++) if (pop.written[s] > mark) entered++;
    const slots = new Int32Array(entered);
    const stamps = new Int32Array(entered);
    const hashes = new Uint32Array(entered);
    let at = 0;
    for (let s = 0; s < pop.size && at < entered; s++) {
      if (pop.written[s] <= mark) continue;
      slots[at] = s;
      stamps[at] = pop.written[s];
      hashes[at++] = hashGenes(pop.genes, s * pop.n, pop.n);
    }
    this.batches.push({ from, epoch, iteration, received, accepted, due: iteration + this.after, slots, stamps, hashes });
  }

  /** Checks the batches due by `iteration`. */
  check(pop: Population, iteration: number): void {
    while (this.batches.length > 0 && this.batches[0].due <= iteration) {
      const b = this.batches.shift()!;
      let kept = 0;
      for (let i = 0; i < b.slots.length; i++) {
        const s = b.slots[i];
        if (pop.written[s] === b.stamps[i] && hashGenes(pop.genes, s * pop.n, pop.n) === b.hashes[i]) kept++;
      }
      this.checked += b.slots.length;
      this.survived += kept;
      this.records.push(b.from, this.island, b.epoch, b.iteration, b.received, b.accepted, kept);
    }
  }

  /**
   * Its unchecked batches, flat (per batch: from, epoch, iteration, received, accepted, due,
   * size, then `size` slots and `size` stamps; their hashes apart), for a checkpoint.
   */
  save(): { batches: Int32Array; hashes: Uint32Array } {
    const ints: number[] = [];
    const hashes: number[] = [];
    for (const b of this.batches) {
      ints.push(b.from, b.epoch, b.iteration, b.received, b.accepted, b.due, b.slots.length, ...b.slots, ...b.stamps);
      hashes.push(...b.hashes);
    }
    return { batches: Int32Array.from(ints), hashes: Uint32Array.from(hashes) };
  }

  /** Continues a saved tracker (`save`, with its totals); trusts what a checked checkpoint holds. */
  restore(checked: number, survived: number, batches: Int32Array, hashes: Uint32Array): void {
    this.checked = checked;
    this.survived = survived;
    this.batches = [];
    for (let at = 0, h = 0; at < batches.length;) {
      const [from, epoch, iteration, received, accepted, due, size] = batches.subarray(at, at + 7);
      const slots = batches.slice(at + 7, at + 7 + size);
      const stamps = batches.slice(at + 7 + size, at + 7 + 2 * size);
      this.batches.push({ from, epoch, iteration, received, accepted, due, slots, stamps, hashes: hashes.slice(h, h + size) });
      at += 7 + 2 * size;
      h += size;
    }
  }

  /** The records checked since the last take (a copy, ready to send). */
  take(): Int32Array {
    const out = Int32Array.from(this.records);
    this.records = [];
    return out;
  }
}

/** One checked batch, as the `survival` event gives it. */
export interface SurvivalRecord {
  from: number;
  to: number;
  epoch: number;
  iteration: number;
  received: number;
  accepted: number;
  survived: number;
}

export function survivalRecords(flat: Int32Array): SurvivalRecord[] {
  const out: SurvivalRecord[] = [];
  for (let at = 0; at + SURVIVAL_RECORD <= flat.length; at += SURVIVAL_RECORD) {
    out.push({
      from: flat[at],
      to: flat[at + 1],
      epoch: flat[at + 2],
      iteration: flat[at + 3],
      received: flat[at + 4],
      accepted: flat[at + 5],
      survived: flat[at + 6],
    });
  }
  return out;
}
