import { bytesPerGene } from '../../problem/genes.ts';
import type { Fields } from '../../schema/fields.ts';
import type { z } from 'zod';
import { HybridIsland } from '../hybrid/hybrid-island.ts';
import { releasable } from '../hybrid/release.ts';
import { HYBRID_DEFAULTS, hybridParams, type HybridOperatorOverrides, type HybridParams } from '../hybrid/params.ts';
import { defineGaMode } from './define.ts';

/**
 * An operator's settings, or null to turn it off; unset, `hybridParams` gives its default for
 * the board. Each key is optional: the keys given are merged into the default
 * (`localSearch: { maxSteps: 8 }` alone).
 */
const operator = <S extends Parameters<Fields['section']>[0]>(f: Fields, shape: S, describe: string) =>
  f
    .section(
      Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, (field as z.ZodType).optional()])) as unknown as {
        [K in keyof S]: z.ZodOptional<S[K]>;
      },
    )
    .nullable()
    .optional()
    .describe(`${describe}; null turns it off; keys not given keep their defaults`);

/** An operator's default settings as its help shows them: `{ maxTries: 128 }`. */
const inline = (settings: Readonly<Record<string, unknown>>) =>
  `{ ${Object.entries(settings)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(', ')} }`;

/** Beyond the paper (docs/hybrid.md): a memetic island GA for large N, each operator named. */
export const hybridMode = defineGaMode({
  kind: 'hybrid',
  help: "memetic, for large N: named operators added to the paper's loop; docs/hybrid.md",
  options: (f) => ({
    populationSize: f
      .int(2)
      .default(HYBRID_DEFAULTS.populationSize)
      .describe('members per island (each holds N genes and 2N bytes of diagonal counts)'),
    childrenPerGeneration: f
      .int(1)
      .default(HYBRID_DEFAULTS.childrenPerGeneration)
      .describe('children bred per generation; (mu+lambda) survival'),
    smartStart: operator(
      f,
      { maxTries: f.int(1).describe('random rows tried per column before giving up') },
      `greedy low-conflict initial permutations (Sosic & Gu); default ${inline(HYBRID_DEFAULTS.smartStart)}`,
    ),
    swapDelta: f
      .boolean()
      .default(HYBRID_DEFAULTS.swapDelta)
      .describe('price a swap in O(1) from per-member diagonal counts (false: full O(N) recount, same result)'),
    conflictMutation: operator(
      f,
      { probability: f.probability(), moves: f.int(0), partners: f.int(1) },
      `move a queen in conflict to the best of \`partners\` random swaps, \`moves\` times per child; default ${inline(HYBRID_DEFAULTS.conflictMutation)}`,
    ),
    localSearch: operator(
      f,
      { applyTo: f.oneOf(['children', 'migrants', 'both'] as const), maxSteps: f.int(0), triesPerQueen: f.int(1) },
      `bounded QS4-like descent (a memetic GA); default ${inline(HYBRID_DEFAULTS.localSearch)}`,
    ),
    crossoverProbability: f
      .probability()
      .nullable()
      .default(null)
      .describe("probability of the paper's order-1 crossover per child; null = 0.1 for n <= 1000, else 0"),
  }),
  flags: {
    populationSize: { name: 'population', value: 'number', describe: 'main population size M per island' },
    crossoverProbability: { name: 'crossover-probability', value: 'number', describe: 'crossover probability in [0, 1]' },
  },
  resolve: (ga, { n }): Omit<HybridParams, 'n'> => {
    const { populationSize, childrenPerGeneration, crossoverProbability, swapDelta, ...named } = ga;
    const operators: HybridOperatorOverrides = { swapDelta };
    for (const [key, value] of Object.entries(named)) if (value !== undefined) Object.assign(operators, { [key]: value });
    if (crossoverProbability !== null) operators.crossover = { probability: crossoverProbability };
    const { n: _n, ...params } = hybridParams(n, { populationSize, childrenPerGeneration, operators });
    return params;
  },
  // What `resolve` returns (HybridParams without n): the operators resolved into one object.
  params: (f) => ({
    populationSize: f.int(2),
    childrenPerGeneration: f.int(1),
    operators: f.section({
      smartStart: f.section({ maxTries: f.int(1) }).nullable(),
      swapDelta: f.boolean(),
      conflictMutation: f.section({ probability: f.probability(), moves: f.int(0), partners: f.int(1) }).nullable(),
      localSearch: f
        .section({ applyTo: f.oneOf(['children', 'migrants', 'both'] as const), maxSteps: f.int(0), triesPerQueen: f.int(1) })
        .nullable(),
      crossover: f.section({ probability: f.probability() }),
    }),
  }),
  fileShape: ({ operators: { crossover, ...operators }, ...sizes }) => ({
    ...sizes,
    ...operators,
    crossoverProbability: crossover.probability,
  }),
  // Members and the one scratch board, each with genes and 2N - 1 bytes of diagonal counts (four
  // bits a direction); the population's occupancy bits (N / 2 bytes). From RELEASABLE_N a solved
  // island gives its members' genes and the counts back (release.ts) before it reports.
  memory: (p, n) => ({
    bytes: (p.populationSize + 1) * n * (bytesPerGene(n) + 2) + n / 2,
    parts: `hybrid population ${p.populationSize} and one scratch board, ${bytesPerGene(n)} bytes per gene + 2 bytes of diagonal counts per column`,
    released: releasedBytes(p.populationSize, n),
  }),
  initialEvaluations: (p) => p.populationSize,
  create: (params, rng, shouldStop, snapshot) => new HybridIsland({ params, rng, shouldStop, snapshot }),
});

/** What a solved island of `size` members gives back before it reports: the members' genes and every board's counts, from RELEASABLE_N. */
function releasedBytes(size: number, n: number): number {
  return releasable(n) ? size * n * bytesPerGene(n) + (size + 1) * (2 * n - 1) : 0;
}
