/**
 * What a run will take in memory, checked before any thread starts: each island's GA state
 * (its mode says what: chromosomes, counts, scratch), the migrants in flight, the island's
 * thread itself, and what the coordinating thread holds (each island's best, the result and
 * its text). Calibrated against peak resident memory (`/usr/bin/time -v`, docs/hybrid.md):
 * hybrid mode, config/large-n.yaml, 2 islands, the measured peak is 79-89% of the estimate
 * at N = 10^6 and 77-96% at 10^7 (test/large-n.test.ts holds a 10^6 run to at most the
 * estimate and at least 60% of it).
 */
import { bytesPerGene } from '../problem/genes.ts';
import { gaMemory } from './ga-section.ts';
import { hybridInstead } from './run-time.ts';
import type { Registries } from './registries.ts';
import type { GaConfig } from './run-config.ts';

/** Share of physical memory a run may plan to use. */
export const MEMORY_SHARE = 0.75;

/**
 * One island worker thread besides its chromosomes: Node's worker, its code and its V8 heap
 * (about 20 MB measured), and the garbage arrays V8 lets an isolate keep before it collects
 * (it starts a collection 64 MB of external memory past the last).
 */
export const THREAD_BYTES = 64e6;
/** The process itself (Node, the CLI's script, the pool), measured at about 70 MB. */
export const PROCESS_BYTES = 80e6;
/**
 * Chromosome-sized arrays per migrant an island holds at its peak: its emigrant array, and
 * what each generation's messages leave behind (the migrant and the best it encodes, the
 * bytes it receives and their decoded copy). The last are garbage at once, but a busy island
 * never returns to its event loop, where V8 finishes its incremental marking, so they are
 * freed only every few generations: up to 7 measured at N = 10^7.
 */
const MIGRANT_COPIES = 8;
/**
 * The coordinator's bytes per column: each island's last best and its final report (genes),
 * and the result's tuple (8-byte numbers) and its JSON text (up to 8 characters a row).
 */
const RESULT_BYTES_PER_COLUMN = 16;

const GB = 1e9;
export const gb = (bytes: number): string => `${(bytes / GB).toFixed(1)} GB`;

export interface MemoryEstimate {
  bytes: number;
  /** One island's GA parts, as a message lists them. */
  parts: string;
}

/** Bytes a run needs at its peak, and one island's GA parts as a message lists them. */
export function estimateMemory(n: number, islands: number, ga: GaConfig, migrants: number, registries?: Registries): MemoryEstimate {
  const island = gaMemory(ga, n, registries?.gaModes);
  const gene = bytesPerGene(n);
  const messages = MIGRANT_COPIES * migrants * n * gene;
  const coordinator = 2 * islands * n * gene + RESULT_BYTES_PER_COLUMN * n;
  return {
    bytes: PROCESS_BYTES + islands * (island.bytes + messages + THREAD_BYTES) + coordinator,
    parts: `per island: ${island.parts}; ${migrants} migrant${migrants === 1 ? '' : 's'} in flight; ${THREAD_BYTES / 1e6} MB for its thread`,
  };
}

/**
 * The one-line refusal of a run that would not fit in MEMORY_SHARE of `totalMemory`: the
 * estimate and what lowers it: the largest island count that fits, with its estimate, or
 * else n or the population.
 */
export function memoryAdvice(
  n: number,
  islands: number,
  ga: GaConfig,
  migrants: number,
  totalMemory: number,
  registries?: Registries,
): string | null {
  const limit = MEMORY_SHARE * totalMemory;
  const need = estimateMemory(n, islands, ga, migrants, registries);
  if (need.bytes <= limit) return null;
  let fits = '';
  for (let k = islands - 1; k >= 1 && !fits; k--) {
    const fewer = estimateMemory(n, k, ga, migrants, registries).bytes;
    if (fewer <= limit) fits = `it fits with islands = ${k} (about ${gb(fewer)})`;
  }
  const one = islands > 1 ? `even one island needs about ${gb(estimateMemory(n, 1, ga, migrants, registries).bytes)}; ` : '';
  // Fewer islands would not rescue a paper-mode run this large: it would take days.
  const instead = hybridInstead({ n, ga });
  return (
    `${n} needs about ${gb(need.bytes)} for ${islands} island${islands === 1 ? '' : 's'} (${need.parts}), more than the ${gb(limit)} this machine allows (${MEMORY_SHARE * 100}% of ${gb(totalMemory)}); ` +
    (fits || `${one}lower n or the population (ga.populationSize, --population)`) +
    (instead === null ? '' : `, ${instead}`)
  );
}

/** `memoryAdvice` for a resolved run (a resolved config here, or one that arrived from a checkpoint or the bus). */
export function runMemoryAdvice(
  run: { n: number; islands: number; ga: GaConfig; migration: { interval: number; migrants: number } },
  totalMemory: number,
  registries?: Registries,
): string | null {
  const migrants = run.migration.interval > 0 ? run.migration.migrants : 0;
  return memoryAdvice(run.n, run.islands, run.ga, migrants, totalMemory, registries);
}
