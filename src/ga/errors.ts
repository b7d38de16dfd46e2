import type { Genes } from '../problem/genes.ts';

/**
 * Thrown by an island's constructor when `shouldStop` said yes while it was still building
 * its initial population (a time limit or a signal during start-up). It carries what the
 * build had reached: the best member completed so far (a copy, 0-based genes) or null when
 * none was, and the chromosomes evaluated. The island model reports it as a stopped island.
 * build-stopped.ts makes one from a population.
 */
export class BuildStopped extends Error {
  constructor(
    readonly best: { genes: Genes; fitness: number } | null,
    readonly evaluations: number,
  ) {
    super(`stopped while building the initial population (${evaluations} chromosomes built)`);
    this.name = 'BuildStopped';
  }
}
