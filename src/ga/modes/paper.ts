import { bytesPerGene } from '../../problem/genes.ts';
import { Island } from '../island.ts';
import { PAPER_DEFAULTS, type GaParams } from '../params.ts';
import { defineGaMode } from './define.ts';

/** The paper's GA (Sarkar & Nag, as docs/ALGORITHM.md reads it). The default mode (GA_MODE_DEFAULTS): files without `ga.mode` mean it. */
export const paperMode = defineGaMode({
  kind: 'paper',
  help: 'Sarkar & Nag exactly, as ALGORITHM.md reads it',
  options: (f) => ({
    populationSize: f.int(2).default(PAPER_DEFAULTS.populationSize).describe('main population M per island'),
    pairsPerIteration: f
      .int(1, { nullMeans: 'floor(populationSize / 2)' })
      .nullable()
      .default(null)
      .describe('rank-selected parent pairs per iteration; null = floor(populationSize / 2) (generational), 1 = steady state'),
    crossoverProbability: f
      .probability()
      .default(PAPER_DEFAULTS.crossoverProbability)
      .describe('probability that a parent pair is crossed'),
    mutationProbability: f.probability().default(PAPER_DEFAULTS.mutationProbability).describe('probability that a child is mutated at all'),
    doubleMutationProbability: f
      .probability()
      .default(PAPER_DEFAULTS.doubleMutationProbability)
      .describe('probability that a child is mutated twice (part of mutationProbability, so <= it)'),
    badRepositorySize: f
      .int(0, { nullMeans: 'floor(sqrt(n))' })
      .nullable()
      .default(null)
      .describe('size b of the fixed bad-population repository; null = floor(sqrt(n)), 0 turns it off'),
  }),
  flags: {
    populationSize: { name: 'population', value: 'number', describe: 'main population size M per island' },
    pairsPerIteration: {
      name: 'pairs-per-iteration',
      value: 'number',
      describe: 'parent pairs per iteration (null = M/2, 1 = steady state)',
    },
    crossoverProbability: { name: 'crossover-probability', value: 'number', describe: 'crossover probability in [0, 1]' },
    mutationProbability: { name: 'mutation-probability', value: 'number', describe: 'probability a child is mutated, in [0, 1]' },
    doubleMutationProbability: {
      name: 'double-mutation-probability',
      value: 'number',
      describe: 'probability a child is mutated twice, <= mutation probability',
    },
    badRepositorySize: { name: 'bad-repository-size', value: 'number', describe: 'bad repository size b (null = floor(sqrt(N)))' },
  },
  resolve: (ga, { n, fail }): Omit<GaParams, 'n'> => {
    if (ga.doubleMutationProbability > ga.mutationProbability) {
      fail(
        'doubleMutationProbability',
        `${ga.doubleMutationProbability} is more than ga.mutationProbability (${ga.mutationProbability}); a double mutation is a kind of mutation, so expected a number <= ${ga.mutationProbability}`,
        ['ga.mutationProbability'],
      );
    }
    return {
      ...ga,
      pairsPerIteration: ga.pairsPerIteration ?? Math.floor(ga.populationSize / 2),
      badRepositorySize: ga.badRepositorySize ?? Math.floor(Math.sqrt(n)),
    };
  },
  // Main population, bad repository and children; 52 bytes a column of scratch (marks,
  // survival histograms, ranking counts: docs/performance.md, "Memory per island").
  memory: (p, n) => ({
    bytes: (p.populationSize + p.badRepositorySize + 2 * p.pairsPerIteration + 4) * n * bytesPerGene(n) + 52 * n,
    parts: `population ${p.populationSize}, bad repository ${p.badRepositorySize}, ${p.pairsPerIteration} pairs per iteration, ${bytesPerGene(n)} bytes per gene`,
  }),
  // Draws M + b permutations and evaluates each (Island.initialise).
  initialEvaluations: (p) => p.populationSize + p.badRepositorySize,
  create: (params, rng, shouldStop, snapshot) => new Island({ params, rng, shouldStop, snapshot }),
});
