import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { islandSummary, type MigrationEvent } from '../src/archipelago/events.ts';
import { extendRegistries } from '../src/archipelago/extension.ts';
import { optionKey, policyNames } from '../src/migration-policy/names.ts';
import { TOPOLOGY_REGISTRY } from '../src/topology/kinds/registry.ts';
import type { TopologyRegistry } from '../src/topology/topology.ts';
import { buildTopology, resolveTopology, topologySection } from '../src/topology/schema.ts';
import { flagOptions, RUN_FLAGS, runFlags } from '../src/config/flags.ts';
import { toFileShape } from '../src/config/file-shape.ts';
import { runConfigJsonSchema } from '../src/config/json-schema.ts';
import { REGISTRIES } from '../src/config/registries.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { runConfigFileSchema } from '../src/config/schema.ts';
import { startSeededRun } from '../src/run/start-run.ts';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cli } from './cli-helpers.ts';
import { FIXTURES, fixtureModule, ROOT } from './paths.ts';
import { withSourceWorker } from './helpers.ts';
import gaModeExtension from './fixtures/ga-mode-extension.ts';
import policyExtension from './fixtures/policy-extension.ts';
import migrationModeExtension from './fixtures/migration-mode-extension.ts';
import { ringKTopology } from './fixtures/topology-plug-in.ts';

/** `solve --help` with its line wrapping undone, so a long flag description reads as one line. */
function solveHelp(): string {
  const r = cli(['solve', '--help']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.replace(/\s+/g, ' ');
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  enum?: string[];
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
}

interface Entry {
  kind: string;
  flags?: Record<string, { name: string }>;
  options(f: never): object;
}

/** Every registry: where a file names an entry, the flag that names it, and where an option of entry `kind` goes. */
const FAMILIES: {
  what: string;
  entries: readonly Entry[];
  section: string;
  key: string;
  flag: string;
  optionKey: (kind: string, option: string) => string;
}[] = [
  { what: 'GA mode', entries: REGISTRIES.gaModes, section: 'ga', key: 'mode', flag: 'mode', optionKey: (_kind, option) => option },
  {
    what: 'topology',
    entries: REGISTRIES.topologies,
    section: 'topology',
    key: 'kind',
    flag: 'topology',
    optionKey: (_kind, option) => option,
  },
  {
    what: 'emigrant selection',
    entries: REGISTRIES.emigrantSelections,
    section: 'migration',
    key: 'emigrantSelection',
    flag: 'emigrant-selection',
    optionKey,
  },
  { what: 'replacement', entries: REGISTRIES.replacements, section: 'migration', key: 'replacement', flag: 'replacement', optionKey },
];

describe('registries reach the schema, the JSON Schema, the flags and --help', () => {
  const schema = runConfigJsonSchema() as SchemaNode;
  const flag = (name: string) => RUN_FLAGS.find((f) => f.name === name)!;
  const help = solveHelp();

  for (const { what, entries, section, key, flag: flagName, optionKey: keyOf } of FAMILIES) {
    it(`every ${what} and every option flag of one`, () => {
      const node = schema.properties![section];
      // The `ga` section is one branch per mode: its mode's keys are in its branch.
      const branch = (kind: string) => node.oneOf?.find((b) => JSON.stringify(b.properties!.mode).includes(`"${kind}"`)) ?? node;
      for (const { kind, flags } of entries) {
        assert.ok(
          runConfigFileSchema.safeParse({ n: 8, [section]: { [key]: kind } }).success,
          `the schema accepts ${section}.${key}: ${kind}`,
        );
        assert.ok(JSON.stringify(branch(kind).properties![key]).includes(`"${kind}"`), `the JSON Schema names ${kind}`);
        assert.ok(
          flag(flagName)
            .describe.split(' | ')
            .some((listed) => listed === kind || listed.startsWith(`${kind} (`)),
          `--${flagName} lists ${kind}`,
        );
        assert.ok(help.includes(kind), `--help names ${kind}`);
        for (const [option, f] of Object.entries(flags ?? {})) {
          assert.ok(branch(kind).properties![keyOf(kind, option)], `${section}.${keyOf(kind, option)} in the JSON Schema`);
          assert.equal(flag(f.name).path, `${section}.${keyOf(kind, option)}`);
          assert.ok(help.includes(`--${f.name}`), `--help lists --${f.name}`);
        }
      }
    });
  }

  it('a policy option given inline: tournament(K) in the schema, the flag and --help', () => {
    assert.deepEqual(policyNames(REGISTRIES.emigrantSelections), ['best', 'random', 'tournament', 'tournament(K)']);
    assert.equal(flag('emigrant-selection').describe, 'best | random | tournament | tournament(K)');
    assert.ok(help.includes('tournament(K)'));
    assert.ok(runConfigFileSchema.safeParse({ n: 8, migration: { emigrantSelection: 'tournament(3)', tournamentSize: 3 } }).success);
    assert.ok(schema.properties!.migration.properties!.tournamentSize);
  });

  it('the GA modes, one JSON Schema branch each, in registry order', () => {
    const modes = schema.properties!.ga.oneOf!.map((o) => JSON.stringify(o.properties!.mode).match(/"const":"([^"]+)"/)?.[1]);
    assert.deepEqual(
      modes,
      REGISTRIES.gaModes.map((d) => d.kind),
    );
    assert.deepEqual(modes, ['paper', 'hybrid', 'takeover']);
  });
});

/** A real run from source workers, with its migration events. */
async function runCollectingMigrations(config: Parameters<typeof startSeededRun>[0], extra: Parameters<typeof startSeededRun>[1]) {
  const events: MigrationEvent[] = [];
  const result = await withSourceWorker(() => {
    const handle = startSeededRun(config, extra);
    handle.events$.subscribe((e) => e.type === 'migration' && events.push(e));
    return handle.result;
  });
  return { result, events };
}

/** The topology example of docs/ARCHITECTURE.md, "How to add a plug-in", in test/fixtures/topology-plug-in.ts, in a copy of the registry. */
const withRingK: TopologyRegistry = [...TOPOLOGY_REGISTRY, ringKTopology];

describe('registering a topology with an option', () => {
  it('appears in the schema, the JSON Schema, the flags and --help', () => {
    const section = topologySection(withRingK);
    assert.equal(section.safeParse({ kind: 'ring-k', k: 3 }).success, true);
    assert.equal(section.safeParse({ kind: 'ring-k', k: 0 }).success, false);
    const json = z.toJSONSchema(section, { io: 'input' }) as SchemaNode;
    assert.ok(json.properties!.kind.enum!.includes('ring-k'));
    assert.ok(json.properties!.k);
    const flags = runFlags({ ...REGISTRIES, topologies: withRingK });
    assert.ok(flags.find((f) => f.name === 'topology')!.describe.endsWith('| edges | ring-k'));
    assert.deepEqual(
      flags.find((f) => f.name === 'ring-k'),
      { name: 'ring-k', path: 'topology.k', value: 'number', describe: 'islands ahead that the ring-k topology sends to' },
    );
    assert.ok(flagOptions(flags)['ring-k']);
    // The real registry is untouched.
    assert.ok(!RUN_FLAGS.some((f) => f.name === 'ring-k'));
  });

  it('resolves with its default, builds, and refuses what its resolve refuses', () => {
    const fail = (key: unknown, message: string): never => {
      throw new Error(`${JSON.stringify(key)}: ${message}`);
    };
    assert.deepEqual(resolveTopology({ kind: 'ring-k' }, { islands: 5, islandsText: '5', fail }, withRingK), { kind: 'ring-k', k: 2 });
    assert.deepEqual(buildTopology({ kind: 'ring-k', k: 1 }, 3, 1, withRingK), [
      [0, 1],
      [1, 2],
      [2, 0],
    ]);
    assert.equal(buildTopology({ kind: 'ring-k' }, 5, 1, withRingK).length, 10);
    assert.throws(
      () => buildTopology({ kind: 'ring-k', k: 4 }, 4, 1, withRingK),
      /^TopologyError: topology\.k: 4 reaches past the 4 islands; expected at most 3$/,
    );
    assert.throws(
      () => buildTopology({ kind: 'ring', k: 2 }, 4, 1, withRingK),
      /topology\.k: only used with topology\.kind "ring-k", not "ring"/,
    );
    assert.throws(() => buildTopology({ kind: 'ring-k' }, 4, 1), /topology\.kind: expected one of/);
  });

  it('it runs in a real archipelago run: the coordinator, given the registry, builds its edges', async () => {
    const registries = { ...REGISTRIES, topologies: withRingK };
    const config = resolveWith(
      {
        seed: 6,
        islands: 4,
        ga: { populationSize: 20 },
        topology: { kind: 'ring-k' },
        migration: { mode: 'sync', interval: 1, migrants: 1 },
        limits: { maxIterations: 4 },
      },
      registries,
    );
    const { result, events } = await runCollectingMigrations({ ...config, seed: 6 }, { topologies: withRingK });
    assert.ok(result.islands.every((i) => !i.error));
    // Each island sends to the next k = 2 islands: 8 edges, each migrating once per epoch.
    const edges = new Set(events.map((e) => `${e.from}>${e.to}`));
    assert.deepEqual([...edges].sort(), ['0>1', '0>2', '1>2', '1>3', '2>0', '2>3', '3>0', '3>1']);
    // A coordinator not given the registry refuses the kind at once, naming the key.
    assert.throws(() => startSeededRun({ ...config, seed: 6 }), {
      name: 'TopologyError',
      message: `topology.kind: expected one of ${[...TOPOLOGY_REGISTRY.map((d) => d.kind)].join(' | ')}, got "ring-k"; did you mean "ring"?`,
    });
  });
});

/**
 * The worked examples of docs/ARCHITECTURE.md, "How to add a plug-in": an emigrant
 * selection (`ranked`, option `from`, inline as `ranked(R)`) and a replacement (`random`,
 * option `probability`), in test/fixtures/policy-extension.ts. Registered in copies of the
 * registries; a run's islands import the same module (`extensions`).
 */
const EXTENSION = fixtureModule('policy-extension');
const withPolicies = extendRegistries(REGISTRIES, [policyExtension]);
const env = { availableParallelism: 4, totalMemory: 16e9 };
const resolveWith = (input: object, registries = withPolicies) => resolveRunConfig({ n: 40, ...input }, 'test.yaml', {}, env, registries);

describe('registering an emigrant selection and a replacement with an option', () => {
  it('the schema accepts them, fills their defaults, checks their options and writes them back', () => {
    const c = resolveWith({ migration: { emigrantSelection: 'ranked(2)', replacement: 'random', randomProbability: 0.5 } });
    assert.deepEqual(c.migration.emigrantSelection, { kind: 'ranked', from: 2 });
    assert.deepEqual(c.migration.replacement, { kind: 'random', probability: 0.5 });
    const defaults = resolveWith({ migration: { emigrantSelection: 'ranked', replacement: 'random' } }).migration;
    assert.deepEqual(
      [defaults.emigrantSelection, defaults.replacement],
      [
        { kind: 'ranked', from: 1 },
        { kind: 'random', probability: 1 },
      ],
    );
    assert.deepEqual(resolveWith({ migration: { emigrantSelection: 'ranked', rankedFrom: 3 } }).migration.emigrantSelection, {
      kind: 'ranked',
      from: 3,
    });
    const shape = toFileShape(c, withPolicies);
    assert.deepEqual(shape.migration, {
      mode: 'sync', // the default at n = 40 (docs/defaults.md)
      lag: 2,
      interval: 1,
      migrants: 20,
      emigrantSelection: 'ranked(2)',
      replacement: 'random',
      randomProbability: 0.5,
      rejectDuplicates: false,
    });
    assert.deepEqual(resolveWith(shape), c);

    const refuses = (input: object, message: string, registries = withPolicies) =>
      assert.throws(
        () => resolveWith(input, registries),
        (e: Error) => e.message === message,
      );
    refuses(
      { ga: { populationSize: 4 }, migration: { emigrantSelection: 'ranked(4)' } },
      'test.yaml: migration.emigrantSelection: rank 4 is past ga.populationSize (4); expected at most 3',
    );
    refuses(
      { ga: { populationSize: 4 }, migration: { emigrantSelection: 'ranked', rankedFrom: 4 } },
      'test.yaml: migration.rankedFrom: rank 4 is past ga.populationSize (4); expected at most 3',
    );
    refuses(
      { migration: { emigrantSelection: 'ranked(-1)' } },
      'test.yaml: migration.emigrantSelection: R in "ranked(-1)": expected an integer >= 0, got -1',
    );
    refuses(
      { migration: { emigrantSelection: 'ranked(2)', rankedFrom: 3 } },
      'test.yaml: migration.rankedFrom: 3 contradicts emigrantSelection "ranked(2)"; give it once',
    );
    refuses(
      { migration: { replacement: 'random', randomProbability: 2 } },
      'test.yaml: migration.randomProbability: expected a number in [0, 1], got 2',
    );
    // The real registries are untouched.
    refuses(
      { migration: { emigrantSelection: 'ranked' } },
      'test.yaml: migration.emigrantSelection: expected best | random | tournament | tournament(K), got "ranked"',
      REGISTRIES,
    );
    refuses(
      { migration: { replacement: 'random' } },
      'test.yaml: migration.replacement: expected one of worst-if-better | worst | random-if-better, got "random"',
      REGISTRIES,
    );
  });

  it('they appear in the JSON Schema, the flags and --help', () => {
    const migration = (runConfigJsonSchema(withPolicies) as SchemaNode).properties!.migration.properties!;
    assert.ok(
      JSON.stringify(migration.emigrantSelection).includes('"ranked"') &&
        JSON.stringify(migration.emigrantSelection).includes('ranked\\\\('),
    );
    assert.ok(migration.replacement.enum!.includes('random'));
    assert.ok(migration.rankedFrom && migration.randomProbability);
    const flags = runFlags(withPolicies);
    assert.equal(
      flags.find((f) => f.name === 'emigrant-selection')!.describe,
      'best | random | tournament | ranked | tournament(K) | ranked(R)',
    );
    assert.ok(flags.find((f) => f.name === 'replacement')!.describe.endsWith('| random'));
    assert.deepEqual(
      flags.find((f) => f.name === 'ranked-from'),
      {
        name: 'ranked-from',
        path: 'migration.rankedFrom',
        value: 'number',
        describe: 'rank of the first emigrant of the ranked selection',
      },
    );
    assert.equal(flags.find((f) => f.name === 'random-probability')!.path, 'migration.randomProbability');
    const options = flagOptions(flags);
    assert.match(String(options['ranked-from'].describe), /ranked selection/);
    assert.match(String(options['emigrant-selection'].describe), /ranked\(R\)/);
    assert.ok(!RUN_FLAGS.some((f) => f.name === 'ranked-from'));
  });

  it('they run in a real archipelago run: every island imports the extension', async () => {
    // Sync runs are repeatable: a run is a function of its config and seed.
    const run = async (migration: object) => {
      const config = resolveWith({
        seed: 5,
        islands: 2,
        ga: { populationSize: 20 },
        topology: { kind: 'ring-bi' },
        migration: { mode: 'sync', interval: 1, migrants: 2, ...migration },
        limits: { maxIterations: 15 },
      });
      const { result, events } = await runCollectingMigrations({ ...config, seed: 5 }, { extensions: [EXTENSION] });
      assert.deepEqual(
        result.islands.flatMap((i) => (i.error ? [i.error.message] : [])),
        [],
        'no island failed',
      );
      // Events of different islands arrive in any order; within an epoch each edge migrates once.
      events.sort((a, b) => a.epoch! - b.epoch! || a.from - b.from || a.to - b.to);
      return { events, islands: result.islands.map(islandSummary) };
    };
    const closed = await run({ replacement: 'random', randomProbability: 0 });
    assert.ok(closed.events.length > 0 && closed.events.every((e) => e.sent === 2 && e.accepted === 0));
    const open = await run({ replacement: 'random' });
    assert.ok(open.events.length > 0 && open.events.every((e) => e.sent === 2 && e.accepted === 2));
    // ranked(0) sends what best sends; ranked(10) sends middling members, and the run differs.
    const best = await run({ emigrantSelection: 'best' });
    assert.deepEqual(await run({ emigrantSelection: 'ranked(0)' }), best);
    assert.notDeepEqual(await run({ emigrantSelection: 'ranked(10)' }), best);
  });

  it("a TypeScript extension where no tsx loader runs (the compiled library, npm test's workers): one message naming the module and what to do", () => {
    // Plain node (no tsx), the compiled loader: as a user's compiled program or a compiled worker.
    const compiled = pathToFileURL(path.join(ROOT, 'dist', 'src', 'archipelago', 'extension.js')).href;
    const TS_EXTENSION = pathToFileURL(path.join(FIXTURES, 'policy-extension.ts')).href;
    const code = `import { loadExtensions } from ${JSON.stringify(compiled)};\nawait loadExtensions([${JSON.stringify(TS_EXTENSION)}]).catch((e) => console.log(e.message));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
    assert.match(
      r.stdout,
      /^extension module \S*policy-extension\.ts: .+; a TypeScript module needs tsx's loader in the thread that loads it: compile it to JavaScript$/m,
      r.stdout + r.stderr,
    );
  });
});

/** The GA mode example of docs/ARCHITECTURE.md, "How to add a plug-in", in test/fixtures/ga-mode-extension.ts. */
const GA_EXTENSION = fixtureModule('ga-mode-extension');
const withSteady = extendRegistries(REGISTRIES, [gaModeExtension]);

describe('registering a GA mode', () => {
  it('the schema accepts it with its defaults and checks, and writes it back', () => {
    const c = resolveWith({ ga: { mode: 'steady' } }, withSteady);
    assert.deepEqual(c.ga, {
      mode: 'steady',
      populationSize: 100,
      pairsPerIteration: 1,
      crossoverProbability: 1,
      mutationProbability: 0.8,
      doubleMutationProbability: 0.4,
      badRepositorySize: 0,
    });
    assert.deepEqual(resolveWith(toFileShape(c, withSteady), withSteady), c);
    assert.throws(() => resolveWith({ ga: { mode: 'steady', populationSize: 4, badRepositorySize: 5 } }, withSteady), {
      message: 'test.yaml: ga.badRepositorySize: 5 is more than ga.populationSize (4); expected at most 4',
    });
    assert.throws(() => resolveWith({ ga: { mode: 'steady', pairsPerIteration: 3 } }, withSteady), {
      message: 'test.yaml: unknown key "ga.pairsPerIteration"; expected one of mode, populationSize, badRepositorySize',
    });
    assert.throws(() => resolveWith({ ga: { mode: 'steady' } }), {
      message: 'test.yaml: ga.mode: expected "paper", "hybrid" or "takeover", got "steady"',
    });
    assert.throws(() => resolveWith({ ga: { mode: 'quantum' } }, withSteady), {
      message: 'test.yaml: ga.mode: expected "paper", "hybrid", "takeover" or "steady", got "quantum"',
    });
  });

  it('it appears in the JSON Schema, the flags and --help', () => {
    const branches = (runConfigJsonSchema(withSteady) as SchemaNode).properties!.ga.oneOf!;
    assert.equal(branches.length, 4);
    assert.ok(JSON.stringify(branches[3].properties!.mode).includes('"steady"'));
    const flags = runFlags(withSteady);
    assert.match(flags.find((f) => f.name === 'mode')!.describe, /\| steady \(the paper's GA steady-state/);
    assert.match(String(flagOptions(flags).mode.describe), /steady/);
    // Modes share a flag for a shared option.
    assert.equal(flags.filter((f) => f.name === 'population').length, 1);
  });

  it('it runs in a real archipelago run: every island imports the extension', async () => {
    const run = async (ga: object) => {
      const config = resolveWith(
        { seed: 3, islands: 2, ga, topology: { kind: 'ring-bi' }, migration: { mode: 'sync', interval: 2 }, limits: { maxIterations: 12 } },
        withSteady,
      );
      const result = await withSourceWorker(() => startSeededRun({ ...config, seed: 3 }, { extensions: [GA_EXTENSION] }).result);
      assert.deepEqual(
        result.islands.flatMap((i) => (i.error ? [i.error.message] : [])),
        [],
        'no island failed',
      );
      return result.islands.map(islandSummary);
    };
    const steady = await run({ mode: 'steady', populationSize: 30 });
    // One pair per iteration: the initial 30, two children per iteration and one immigrant every 2 iterations.
    assert.deepEqual(
      steady.map((i) => [i.iterations, i.evaluations]),
      [
        [12, 30 + 2 * 12 + 6],
        [12, 30 + 2 * 12 + 6],
      ],
    );
    // The same island as paper mode with the same parameters: the same run.
    assert.deepEqual(await run({ mode: 'paper', populationSize: 30, pairsPerIteration: 1, badRepositorySize: 0 }), steady);
  });
});

/** The migration mode example of docs/ARCHITECTURE.md, "How to add a plug-in", in test/fixtures/migration-mode-extension.ts. */
const MODE_EXTENSION = fixtureModule('migration-mode-extension');
const withLatest = extendRegistries(REGISTRIES, [migrationModeExtension]);

describe('registering a migration mode', () => {
  it('the schema, the JSON Schema, the flag and --help take it; the real registry does not', () => {
    const c = resolveWith({ migration: { mode: 'latest' } }, withLatest);
    assert.equal(c.migration.mode, 'latest');
    assert.deepEqual(resolveWith(toFileShape(c, withLatest), withLatest), c);
    assert.throws(() => resolveWith({ migration: { mode: 'latest' } }), {
      message: 'test.yaml: migration.mode: expected one of async | sync | lagged, got "latest"',
    });
    const migration = (runConfigJsonSchema(withLatest) as SchemaNode).properties!.migration.properties!;
    // mode is nullable (null = the default by board size): its names are in the string branch.
    assert.ok(migration.mode.anyOf!.some((branch) => branch.enum?.includes('latest')));
    assert.equal(runFlags(withLatest).find((f) => f.name === 'migration')!.describe, 'async | sync | lagged | latest');
    assert.equal(RUN_FLAGS.find((f) => f.name === 'migration')!.describe, 'async | sync | lagged');
  });

  it('it runs in a real archipelago run: every island imports the extension, the coordinator follows its rules', async () => {
    const config = resolveWith(
      {
        n: 300,
        seed: 4,
        islands: 3,
        ga: { populationSize: 20 },
        topology: { kind: 'ring' },
        migration: { mode: 'latest', interval: 1, migrants: 2 },
        limits: { maxIterations: 25 },
      },
      withLatest,
    );
    const { result, events } = await runCollectingMigrations(
      { ...config, seed: 4 },
      { extensions: [MODE_EXTENSION], migrationModes: withLatest.migrationModes },
    );
    assert.deepEqual(
      result.islands.flatMap((i) => (i.error ? [i.error.message] : [])),
      [],
      'no island failed',
    );
    assert.ok(!result.solved && result.islands.every((i) => i.stopReason === 'max-iterations' && i.iterations === 25));
    // Each island sends 2 migrants to its one target every iteration ...
    assert.deepEqual(
      result.islands.map((i) => i.migrantsSent),
      [50, 50, 50],
    );
    // ... and takes in at most one message (the newest) from its one source per iteration; its migrations have no epoch.
    assert.ok(events.length > 0 && events.every((e) => e.epoch === null && e.sent === 2));
    for (const island of result.islands) {
      const batches = events.filter((e) => e.to === island.id).length;
      assert.ok(batches <= island.iterations, `island ${island.id}: ${batches} batches in ${island.iterations} iterations`);
      assert.equal(island.migrantsReceived, 2 * batches);
    }
  });

  it('a coordinator that was not given the mode refuses the run at once', () => {
    const config = resolveWith({ seed: 4, islands: 2, migration: { mode: 'latest' } }, withLatest);
    assert.throws(() => startSeededRun({ ...config, seed: 4 }, { extensions: [MODE_EXTENSION] }), {
      message: 'run.migration.mode: expected one of async | sync | lagged, got "latest"',
    });
  });
});
