/**
 * Every parameter of the hybrid (memetic) GA on one island, as plain data so a config
 * file can name it and a worker can receive it. Defaults: `hybridParams`. Beyond the
 * paper: never used in paper mode. See docs/hybrid.md for what each operator changes.
 */
export interface HybridParams {
  /** Board size N. */
  n: number;
  /** Main population μ (at least 2): small, since each member carries N genes and 2N bytes of diagonal counts. */
  populationSize: number;
  /** Children λ bred per generation; (μ+λ) survival keeps the best μ. */
  childrenPerGeneration: number;
  operators: HybridOperators;
}

/** Where the bounded local search runs. */
export type LocalSearchTarget = 'children' | 'migrants' | 'both';

/** The named operators; `null` turns one off. */
export interface HybridOperators {
  /** Greedy low-conflict initial permutations (off: uniformly random ones, as the paper). */
  smartStart: { maxTries: number } | null;
  /** Price a swap in O(1) from the diagonal counts (off: by a full O(N) recount, for comparison only). */
  swapDelta: boolean;
  /** Move a queen in conflict to the best of `partners` random swaps, `moves` times, with `probability` per child. */
  conflictMutation: { probability: number; moves: number; partners: number } | null;
  /** Bounded QS4-like descent on children, on migrants, or both. */
  localSearch: { applyTo: LocalSearchTarget; maxSteps: number; triesPerQueen: number } | null;
  /** The paper's order-1 crossover, with this probability per child (otherwise a child starts as a copy of its parent). */
  crossover: { probability: number };
}

/** Error messages, kept as constants so tests and the config layer can match them. */
export const HYBRID_ERRORS = {
  population: 'hybrid populationSize must be an integer >= 2',
  children: 'hybrid childrenPerGeneration must be an integer >= 1',
  n: 'hybrid n must be an integer >= 1',
  maxTries: 'hybrid operators.smartStart.maxTries must be an integer >= 1',
  probability: 'hybrid operator probabilities must be numbers in [0, 1]',
  mutation: 'hybrid operators.conflictMutation needs integers moves >= 0 and partners >= 1',
  localSearch: "hybrid operators.localSearch needs applyTo 'children' | 'migrants' | 'both', integers maxSteps >= 0 and triesPerQueen >= 1",
} as const;

/**
 * Above this N crossover is off by default: an order-1 child of two near-solutions shifts
 * most queens off their diagonals, costs two O(N) passes, and then the local search has
 * to repair thousands of conflicts. Measured (15 seeds, no local search on children):
 * probability 0.5 needs 20-35% more generations than 0 at N = 30..500, so the default
 * keeps a little recombination (0.1) only where it is cheap.
 */
const CROSSOVER_MAX_N = 1_000;

/**
 * Defaults for a board of size n: μ = 8, λ = 4, smart start with 128 tries per column,
 * O(1) swap pricing, one conflict-directed move per child (best of 8 partners) with
 * probability 0.8, local search on children and migrants (at most 64 candidate swaps
 * per call, 128 partners per queen: bounded, so that selection, survival and migration
 * carry the improvements over several generations rather than one child's search doing
 * all the work), and crossover with probability 0.1 for N <= 1,000 and
 * 0 above. An operator given as an object is merged into its default (`{ localSearch: {
 * maxSteps: 8 } }` keeps the other localSearch keys); null turns it off.
 */
/**
 * The hybrid's defaults: population sizes (μ, λ) and the operators' settings (the crossover's
 * depends on N: CROSSOVER_MAX_N). The hybrid mode's options and their help (src/ga/modes/hybrid.ts) read them.
 */
export const HYBRID_DEFAULTS = {
  populationSize: 8,
  childrenPerGeneration: 4,
  smartStart: { maxTries: 128 },
  swapDelta: true,
  conflictMutation: { probability: 0.8, moves: 1, partners: 8 },
  localSearch: { applyTo: 'both', maxSteps: 64, triesPerQueen: 128 },
} as const;

/** Operators as overrides give them: each optional, an object's keys too (merged into the default). */
export type HybridOperatorOverrides = {
  [K in keyof HybridOperators]?: HybridOperators[K] extends infer T ? (T extends object ? Partial<T> | null : T) : never;
};

export function hybridParams(
  n: number,
  overrides: Partial<Omit<HybridParams, 'n' | 'operators'>> & { operators?: HybridOperatorOverrides } = {},
): HybridParams {
  const operators: HybridOperators = {
    smartStart: { ...HYBRID_DEFAULTS.smartStart },
    swapDelta: HYBRID_DEFAULTS.swapDelta,
    conflictMutation: { ...HYBRID_DEFAULTS.conflictMutation },
    localSearch: { ...HYBRID_DEFAULTS.localSearch },
    crossover: { probability: n <= CROSSOVER_MAX_N ? 0.1 : 0 },
  };
  for (const [key, value] of Object.entries(overrides.operators ?? {}) as [keyof HybridOperators, unknown][]) {
    if (value === undefined) continue;
    const base = operators[key];
    // An object over an object default is merged key by key (its undefined keys keep the default's).
    const merged =
      value !== null && typeof value === 'object' && base !== null && typeof base === 'object'
        ? { ...base, ...Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) }
        : value;
    Object.assign(operators, { [key]: merged });
  }
  return {
    n,
    populationSize: overrides.populationSize ?? HYBRID_DEFAULTS.populationSize,
    childrenPerGeneration: overrides.childrenPerGeneration ?? HYBRID_DEFAULTS.childrenPerGeneration,
    operators,
  };
}

/** Throws a RangeError naming the first parameter that the island cannot run with. */
export function checkHybridParams(p: HybridParams): void {
  if (!Number.isInteger(p.n) || p.n < 1) throw new RangeError(HYBRID_ERRORS.n);
  if (!Number.isInteger(p.populationSize) || p.populationSize < 2) throw new RangeError(HYBRID_ERRORS.population);
  if (!Number.isInteger(p.childrenPerGeneration) || p.childrenPerGeneration < 1) throw new RangeError(HYBRID_ERRORS.children);
  const { smartStart, conflictMutation: mut, localSearch: ls, crossover } = p.operators;
  const isCount = (x: number, min: number) => Number.isInteger(x) && x >= min;
  const isProbability = (x: number) => typeof x === 'number' && x >= 0 && x <= 1;
  if (smartStart && !isCount(smartStart.maxTries, 1)) throw new RangeError(HYBRID_ERRORS.maxTries);
  if (!isProbability(crossover.probability) || (mut && !isProbability(mut.probability))) throw new RangeError(HYBRID_ERRORS.probability);
  if (mut && !(isCount(mut.moves, 0) && isCount(mut.partners, 1))) throw new RangeError(HYBRID_ERRORS.mutation);
  if (ls && !(['children', 'migrants', 'both'].includes(ls.applyTo) && isCount(ls.maxSteps, 0) && isCount(ls.triesPerQueen, 1))) {
    throw new RangeError(HYBRID_ERRORS.localSearch);
  }
}
