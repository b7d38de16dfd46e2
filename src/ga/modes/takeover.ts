import { bytesPerGene } from '../../problem/genes.ts';
import { GA_MODE_DEFAULTS } from './defaults.ts';
import { defineGaMode } from './define.ts';
import { takeoverCoordinator } from './takeover-coordinator.ts';
import { takeoverFitnessOf, TakeoverIsland, type TakeoverParams } from './takeover-island.ts';

/** The iteration limit of a takeover run whose config gives none: a takeover that cannot complete (topology none) still ends. */
export const TAKEOVER_MAX_ITERATIONS = 10_000;

const DEFAULTS = GA_MODE_DEFAULTS.takeover;

/** Selection and migration only, from one best individual on one island: takeover time (docs/takeover.md). */
export const takeoverMode = defineGaMode({
  kind: 'takeover',
  help: 'selection and migration only, from one best individual: takeover time; docs/takeover.md',
  options: (f) => ({
    populationSize: f.int(2).default(DEFAULTS.populationSize).describe(`members per island, M; default ${DEFAULTS.populationSize}`),
    bestIsland: f
      .int(0)
      .default(DEFAULTS.bestIsland)
      .describe(`takeover only: the island that starts with the one best individual; default ${DEFAULTS.bestIsland}`),
  }),
  flags: {
    populationSize: { name: 'population', value: 'number', describe: 'main population size M per island' },
    bestIsland: { name: 'best-island', value: 'number', describe: 'takeover mode: the island that starts with the best individual' },
  },
  resolve: ({ populationSize, bestIsland }, { n, islands, fail }): Omit<TakeoverParams, 'n'> => {
    if (n < 4) fail('mode', `takeover needs n >= 4 (boards 1 to 3 are answered without a run), got n = ${n}`, ['n']);
    if (bestIsland >= islands)
      fail('bestIsland', `${bestIsland} is not one of the ${islands} islands; expected at most ${islands - 1}`, ['islands']);
    return { populationSize, bestIsland };
  },
  defaultMaxIterations: TAKEOVER_MAX_ITERATIONS,
  // Every member of the first population is scored once.
  initialEvaluations: (p) => p.populationSize,
  // The population and the next generation.
  memory: (p, n) => ({
    bytes: 2 * p.populationSize * n * bytesPerGene(n),
    parts: `takeover population ${p.populationSize} and its next generation, ${bytesPerGene(n)} bytes per gene`,
  }),
  fitnessOf: (params, seed) => takeoverFitnessOf(params.n, seed),
  create: (params, rng, _shouldStop, snapshot, place = { island: 0, seed: 0 }) => new TakeoverIsland(params, rng, place, snapshot),
  coordinator: takeoverCoordinator,
});
