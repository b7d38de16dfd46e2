/**
 * A cost row from paired whole runs: the same seeded run with a feature on and off,
 * alternating (the order flips every seed, so drifts of the machine fall on both). The
 * iterations are fixed, so each pair does the same work; the ratio per seed is on / off
 * evaluations per second, and the row is their median (bench/live-view.ts, bench/trace.ts).
 */

export interface PairedCost<T> {
  /** Per seed, 1 .. seeds: evaluations/s on / off. */
  ratios: number[];
  median: number;
  /** What each run with the feature on gave. */
  on: T[];
}

export async function pairedCost<T extends { rate: number }>(
  seeds: number,
  run: (seed: number, on: boolean) => Promise<T>,
): Promise<PairedCost<T>> {
  const ratios: number[] = [];
  const on: T[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const order = seed % 2 === 1 ? [false, true] : [true, false];
    const first = await run(seed, order[0]);
    const second = await run(seed, order[1]);
    const [plain, featured] = order[0] ? [second, first] : [first, second];
    ratios.push(featured.rate / plain.rate);
    on.push(featured);
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return { ratios, median: sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2, on };
}
