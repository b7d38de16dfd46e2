/**
 * Lineage's cost (docs/live-view.md, "Lineage"): evaluations per second of the GA with each
 * member's origin tracked against the same seeded islands without, in one process. Two
 * islands of a mode swap 2 migrants after every iteration, as a ring of two does; both sides
 * do exactly the same evaluations (lineage never changes the search; checked), so the ratio
 * of CPU seconds is the ratio of rates. Small N is the worst case: a child costs O(N) and
 * lineage O(1) a child. Whole runs (bench/live-view.ts) vary by far more than 1% on a shared
 * machine; this isolates what lineage adds.
 *
 * How, so that 1% shows on a loaded machine: a block is a fixed piece of work (the same seeds
 * every time), timed in CPU seconds of this process; the two sides' blocks alternate, the
 * order flipping every round (drifts of the machine fall on both), for `rounds` rounds. The
 * figure is the ratio of each side's fastest block: other jobs only ever slow a block down,
 * so the fastest is the least disturbed (per-round ratios spread by ±5% under load: their
 * median and range are printed beside it).
 *
 *   npm run build && node dist/bench/lineage.js [rounds, default 41]   (or npm run bench -- --only live)
 */
import { fileURLToPath } from 'node:url';
import { createEvolver, type EvolverSpec } from '../src/ga/create-evolver.ts';
import type { Evolver } from '../src/ga/evolver.ts';
import { Rng } from '../src/ga/rng.ts';
import { selectBest } from '../src/migration-policy/emigrant-selections/best.ts';
import { replaceWorstIfBetter } from '../src/migration-policy/replacements/worst-if-better.ts';

export interface LineageCase {
  name: string;
  spec: EvolverSpec;
  /** Iterations of a block (about 50 ms here). */
  iterations: number;
  /** A pair ends once both islands are taken over (a takeover run stops there), not only when one solves. */
  untilTakenOver?: boolean;
}

export const LINEAGE_CASES: LineageCase[] = [
  {
    name: 'paper, N = 256, M = 100',
    spec: {
      mode: 'paper',
      params: {
        n: 256,
        populationSize: 100,
        pairsPerIteration: 50,
        crossoverProbability: 0.8,
        mutationProbability: 0.5,
        doubleMutationProbability: 0.1,
        badRepositorySize: 16,
      },
    },
    iterations: 400,
  },
  {
    name: 'paper, N = 1000, M = 100',
    spec: {
      mode: 'paper',
      params: {
        n: 1000,
        populationSize: 100,
        pairsPerIteration: 50,
        crossoverProbability: 0.8,
        mutationProbability: 0.5,
        doubleMutationProbability: 0.1,
        badRepositorySize: 31,
      },
    },
    iterations: 200,
  },
  {
    name: 'takeover, N = 16, M = 256',
    spec: { mode: 'takeover', params: { n: 16, populationSize: 256, bestIsland: 0 } },
    iterations: 2000,
  },
  {
    name: 'takeover, N = 16, M = 256, until taken over',
    spec: { mode: 'takeover', params: { n: 16, populationSize: 256, bestIsland: 0 } },
    iterations: 2000,
    untilTakenOver: true,
  },
];

/** Two islands of `spec` from streams `seed`, `island` 0 and 1, lineage tracked or not. */
function pair(spec: EvolverSpec, seed: number, lineage: boolean): Evolver[] {
  const islands = [0, 1].map((i) => createEvolver(spec, Rng.forStream(seed, i), undefined, undefined, undefined, { island: i, seed }));
  if (lineage) islands.forEach((e, i) => e.trackLineage?.(i));
  return islands;
}

/**
 * CPU seconds of `iterations` iterations of two islands migrating after each, and the
 * evaluations made. A pair that solves is replaced by a new one (the next seed), so a small
 * board's block is as long as a large one's; both sides replace theirs at the same iteration.
 */
function timed({ spec, iterations, untilTakenOver }: LineageCase, seed: number, lineage: boolean): { cpu: number; evaluations: number } {
  let next = seed * 1000;
  let islands = pair(spec, next, lineage);
  let evaluations = 0;
  const start = process.cpuUsage();
  for (let t = 0; t < iterations; t++) {
    for (const e of islands) e.step();
    if (islands.some((e) => e.solution) || (untilTakenOver && islands.every((e) => (e.modeSignal?.() ?? -1) >= 0))) {
      evaluations += islands[0].evaluations + islands[1].evaluations;
      islands = pair(spec, ++next, lineage);
      continue;
    }
    for (let i = 0; i < 2; i++) {
      const from = islands[i];
      const genes = from.emigrants(2, selectBest).slice();
      islands[1 - i].immigrate(genes, genes.length / from.n, replaceWorstIfBetter, false, from.emigrantOrigins?.() ?? undefined);
    }
  }
  const used = process.cpuUsage(start);
  return { cpu: (used.user + used.system) / 1e6, evaluations: evaluations + islands[0].evaluations + islands[1].evaluations };
}

export interface LineageCost {
  name: string;
  /** Fastest block without / fastest block with: the figure. */
  ratio: number;
  /** Per round: its block without / its block with. */
  ratios: number[];
  median: number;
  /** CPU seconds of each side's fastest block. */
  fastest: { on: number; off: number };
}

/** Per case: `rounds` alternating rounds of one block each side (module comment); the blocks' work is the same every time. */
export function lineageCost(rounds: number): LineageCost[] {
  return LINEAGE_CASES.map((c) => {
    for (let w = 0; w < 2; w++) [true, false].forEach((on) => timed(c, 1, on)); // warm both paths up
    const off: number[] = [];
    const on: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [false, true] : [true, false];
      const [a, b] = order.map((lineage) => ({ lineage, ...timed(c, 1, lineage) }));
      const [without, withIt] = a.lineage ? [b, a] : [a, b];
      if (withIt.evaluations !== without.evaluations)
        throw new Error(`${c.name}: lineage changed the search (${withIt.evaluations} vs ${without.evaluations} evaluations)`);
      off.push(without.cpu);
      on.push(withIt.cpu);
    }
    const fastest = { on: Math.min(...on), off: Math.min(...off) };
    const ratios = off.map((t, r) => t / on[r]);
    return { name: c.name, ratio: fastest.off / fastest.on, ratios, median: median(ratios), fastest };
  });
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = lineageCost(Number(process.argv[2] ?? 41));
  console.log(
    '| lineage, two islands migrating every iteration | evaluations/s with / without, fastest blocks | per round: median (range) |',
  );
  console.log('|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.name} | ${r.ratio.toFixed(3)} | ${r.median.toFixed(3)} (${Math.min(...r.ratios).toFixed(3)}–${Math.max(...r.ratios).toFixed(3)}) |`,
    );
}
