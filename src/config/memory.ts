/** What a run's chromosomes will take in memory, checked before any thread starts. */
import { bytesPerGene } from '../problem/genes.ts';
import type { GaConfig } from './run-config.ts';

/** Share of physical memory a run may plan to use for its chromosomes. */
export const MEMORY_SHARE = 0.75;

const GB = 1e9;
export const gb = (bytes: number): string => `${(bytes / GB).toFixed(1)} GB`;

/**
 * Bytes of chromosomes a run allocates. Paper: main population, bad repository and
 * children. Hybrid: members and children, each with 4N Int32 diagonal counts besides its genes.
 */
export function estimateMemoryBytes(n: number, islands: number, ga: GaConfig): number {
  if (ga.mode === 'hybrid') return islands * (ga.populationSize + ga.childrenPerGeneration + 1) * n * (bytesPerGene(n) + 16);
  return islands * (ga.populationSize + ga.badRepositorySize + 2 * ga.pairsPerIteration + 4) * n * bytesPerGene(n);
}

export function memoryParts(ga: GaConfig, n: number): string {
  const perGene = `${bytesPerGene(n)} bytes per gene`;
  return ga.mode === 'hybrid'
    ? `hybrid population ${ga.populationSize}, ${ga.childrenPerGeneration} children, ${perGene} + 16 bytes of diagonal counts`
    : `population ${ga.populationSize}, bad repository ${ga.badRepositorySize}, ${ga.pairsPerIteration} pairs per iteration, ${perGene}`;
}

