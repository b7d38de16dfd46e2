/**
 * Lineage's cost (docs/live-view.md, "Lineage"): evaluations per second of the GA with each
 * member's origin tracked against the same seeded islands without, in one process, paired
 * and alternating (the order flips every pair, so drifts of the machine fall on both).
 * Two islands of a mode swap 2 migrants after every iteration, as a ring of two does; both
 * sides do exactly the same evaluations (lineage never changes the search), so the ratio of
 * CPU seconds is the ratio of rates. Small N is the worst case: a child costs O(N) and
 * lineage O(1) a child. Whole runs (bench/live-view.ts) vary by far more than 1% on a
 * shared machine; this isolates what lineage adds.
 *
 *   npm run build && node dist/bench/lineage.js [pairs, default 9]   (or npm run bench -- --only live)
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
    iterations: 600,
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
    iterations: 400,
  },
  {
    name: 'takeover, N = 16, M = 256',
    spec: { mode: 'takeover', params: { n: 16, populationSize: 256, bestIsland: 0 } },
    iterations: 3000,
  },
  {
    name: 'takeover, N = 16, M = 256, until taken over',
    spec: { mode: 'takeover', params: { n: 16, populationSize: 256, bestIsland: 0 } },
    iterations: 3000,
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

/** Per case: the ratio of evaluations/s with lineage to without, per pair (seed), and their median. */
export function lineageCost(pairs: number): { name: string; ratios: number[]; median: number }[] {
  return LINEAGE_CASES.map((c) => {
    timed(c, 0, true); // warm both paths up
    timed(c, 0, false);
    const ratios: number[] = [];
    for (let seed = 1; seed <= pairs; seed++) {
      const order = seed % 2 === 1 ? [false, true] : [true, false];
      const [a, b] = order.map((on) => ({ on, ...timed(c, seed, on) }));
      const [off, on] = a.on ? [b, a] : [a, b];
      if (on.evaluations !== off.evaluations)
        throw new Error(`${c.name}: lineage changed the search (${on.evaluations} vs ${off.evaluations} evaluations)`);
      ratios.push(off.cpu / on.cpu);
    }
    const sorted = [...ratios].sort((x, y) => x - y);
    const mid = sorted.length >> 1;
    return { name: c.name, ratios, median: sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2 };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = lineageCost(Number(process.argv[2] ?? 9));
  console.log('| lineage, two islands migrating every iteration | evaluations/s with / without, per pair | median |');
  console.log('|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.ratios.map((x) => x.toFixed(3)).join(', ')} | ${r.median.toFixed(3)} |`);
}
