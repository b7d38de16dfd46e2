/** What a run's chromosomes will take in memory, checked before any thread starts. */
import { gaMemory } from './ga-section.ts';
import type { Registries } from './registries.ts';
import type { GaConfig } from './run-config.ts';

/** Share of physical memory a run may plan to use for its chromosomes. */
export const MEMORY_SHARE = 0.75;

const GB = 1e9;
export const gb = (bytes: number): string => `${(bytes / GB).toFixed(1)} GB`;

/** Bytes of chromosomes a run allocates (each GA mode says what one island takes), and one island's parts as a message lists them. */
export function estimateMemory(n: number, islands: number, ga: GaConfig, registries?: Registries): { bytes: number; parts: string } {
  const island = gaMemory(ga, n, registries?.gaModes);
  return { bytes: islands * island.bytes, parts: island.parts };
}

