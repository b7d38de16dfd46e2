/** Every parameter of the paper's GA on one island. Defaults: `paperParams`. */
export interface GaParams {
  /** Board size N. */
  n: number;
  /** Main population M. */
  populationSize: number;
  /** Rank-selected parent pairs per iteration (M/2: generational; 1: steady-state). */
  pairsPerIteration: number;
  crossoverProbability: number;
  /** Probability that a child is mutated at all. */
  mutationProbability: number;
  /** Probability that a child is mutated twice (included in `mutationProbability`). */
  doubleMutationProbability: number;
  /** Size b of the fixed bad-population repository (0 turns its two steps off). */
  badRepositorySize: number;
}

/** The paper's numbers (ALGORITHM.md): the one place they are written; the paper mode's options (src/ga/modes/paper.ts) default to them. */
export const PAPER_DEFAULTS = {
  populationSize: 1000,
  crossoverProbability: 1.0,
  mutationProbability: 0.8,
  doubleMutationProbability: 0.4,
} as const;

/** The paper's parameters as ALGORITHM.md reads them, for a board of size n. */
export function paperParams(n: number, overrides: Partial<Omit<GaParams, 'n'>> = {}): GaParams {
  const populationSize = overrides.populationSize ?? PAPER_DEFAULTS.populationSize;
  return {
    n,
    ...PAPER_DEFAULTS,
    populationSize,
    pairsPerIteration: Math.floor(populationSize / 2),
    badRepositorySize: Math.floor(Math.sqrt(n)),
    ...overrides,
  };
}

/** Children bred per iteration: two per main pair, two from the bad pair, two from bad × main. */
export function childrenPerIteration(p: GaParams): number {
  return 2 * p.pairsPerIteration + (p.badRepositorySize >= 2 ? 2 : 0) + (p.badRepositorySize >= 1 ? 2 : 0);
}
