// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import { defaultMigrationMode } from '../src/config/defaults.ts';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import yargs from 'yargs';
import { cliInProcess } from './cli-helpers.ts';
import { ROOT } from './paths.ts';
import { ConfigError } from '../src/config/errors.ts';
import { CONFIG_FILE_OPTION, overridesFromArgv, RUN_FLAG_OPTIONS, RUN_FLAGS } from '../src/config/flags.ts';
import { runConfigJsonSchema } from '../src/config/json-schema.ts';
import { DEFAULT_CONFIG_FILE } from '../src/config/config-file.ts';
import { loadConfigFile, readConfigFile } from '../src/config/load.ts';
import { toFileShape } from '../src/config/file-shape.ts';
import { resolveRunConfig, type ResolveEnv } from '../src/config/resolve.ts';
import type { RunConfig } from '../src/config/run-config.ts';

const CONFIG_DIR = path.join(ROOT, 'config');
/** A fixed machine, so defaults and the memory check do not depend on where tests run. */
const env: ResolveEnv = { availableParallelism: 4, totalMemory: 16e9 };
const SRC = 'config/x.yaml';

let tmp: string;
before(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'nqueens-config-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(tmp, name);
  writeFileSync(p, text);
  return p;
}

function resolve(input: unknown, overrides = {}): RunConfig {
  return resolveRunConfig(input, SRC, overrides, env);
}

/** Asserts a ConfigError with exactly this one-line message. */
function refuses(action: () => unknown, message: string): void {
  assert.throws(action, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
    assert.equal(error.message, message);
    assert.ok(!error.message.includes('\n'));
    return true;
  });
}

const DEFAULTS: RunConfig = {
  n: 100,
  seed: null,
  ga: {
    mode: 'paper',
    populationSize: 1000,
    pairsPerIteration: 500,
    crossoverProbability: 1,
    mutationProbability: 0.8,
    doubleMutationProbability: 0.4,
    badRepositorySize: 10,
  },
  islands: 4,
  topology: { kind: 'ring' },
  migration: {
    mode: 'sync', // the default at every N (docs/defaults.md)
    lag: 2,
    interval: 1,
    migrants: 20, // 2% of the population
    emigrantSelection: { kind: 'best' },
    replacement: { kind: 'worst-if-better' },
    rejectDuplicates: false,
  },
  limits: { maxIterations: null, maxEvaluations: null, timeLimit: null },
  onIslandError: 'continue',
  output: { file: null },
  cluster: null,
  threads: null,
};

describe('run config: defaults and resolution', () => {
  it('fills every default from n alone', () => {
    assert.deepEqual(resolve({ n: 100 }), DEFAULTS);
  });

  it('config/default.yaml states exactly the schema defaults', () => {
    assert.deepEqual(resolveRunConfig(readConfigFile(DEFAULT_CONFIG_FILE), 'default', { n: 100 }, env), DEFAULTS);
  });

  it('resolves null defaults from other values', () => {
    const c = resolve({ n: 50, ga: { populationSize: 7 }, islands: null, topology: { kind: 'grid' } });
    assert.ok(c.ga.mode === 'paper');
    assert.equal(c.ga.pairsPerIteration, 3);
    assert.equal(c.ga.badRepositorySize, 7);
    assert.equal(c.islands, 4);
    assert.deepEqual(c.topology, { kind: 'grid', rows: 2 });
    assert.deepEqual(resolve({ n: 8, topology: { kind: 'random' } }).topology, { kind: 'random', probability: 0.5 });
  });

  it('takes the migration mode named, else the one a flag option names (--lag: lagged), else the default by n', () => {
    const mode = (input: object, overrides = {}) => resolve(input, overrides).migration;
    assert.equal(mode({ n: 8 }).mode, defaultMigrationMode(8));
    assert.equal(mode({ n: 500 }).mode, defaultMigrationMode(500));
    assert.deepEqual([mode({ n: 8 }, { migration: { lag: 3 } }).mode, mode({ n: 8 }, { migration: { lag: 3 } }).lag], ['lagged', 3]);
    assert.equal(mode({ n: 8, migration: { mode: 'async' } }).mode, 'async');
    // A file's lag key names no mode (a printed config holds every key).
    assert.equal(mode({ n: 8, migration: { lag: 3 } }).mode, defaultMigrationMode(8));
    refuses(() => resolve({ n: 8 }, { migration: { mode: 'sync', lag: 3 } }), '--lag: only for migration mode lagged; the mode is sync');
  });

  it('reads migrants as a count, a fraction or a percentage', () => {
    const migrants = (m: unknown) => resolve({ n: 8, ga: { populationSize: 200 }, migration: { migrants: m } }).migration.migrants;
    assert.equal(migrants(3), 3);
    assert.equal(migrants(0.1), 20);
    assert.equal(migrants('5%'), 10);
    assert.equal(migrants(0.001), 1);
  });

  it('reads emigrant selection names and tournament(K)', () => {
    const sel = (migration: object) => resolve({ n: 8, migration }).migration.emigrantSelection;
    assert.deepEqual(sel({ emigrantSelection: 'random' }), { kind: 'random' });
    assert.deepEqual(sel({ emigrantSelection: 'tournament' }), { kind: 'tournament', size: 2 });
    assert.deepEqual(sel({ emigrantSelection: 'tournament', tournamentSize: 5 }), { kind: 'tournament', size: 5 });
    assert.deepEqual(sel({ emigrantSelection: 'tournament(3)' }), { kind: 'tournament', size: 3 });
  });

  it('prints a config that reads back to the same config', () => {
    const c = resolve({
      n: 30,
      seed: 7,
      islands: 3,
      topology: {
        kind: 'edges',
        edges: [
          [0, 1],
          [2, 0],
        ],
      },
      migration: { emigrantSelection: 'tournament(4)', migrants: '1%' },
    });
    assert.deepEqual(resolve(YAML.parse(YAML.stringify(toFileShape(c)))), c);
  });
});

describe('run config: flags', () => {
  const parse = (args: string[]) => overridesFromArgv(yargs(args).options(CONFIG_FILE_OPTION).options(RUN_FLAG_OPTIONS).parseSync());

  it('maps flags to nested keys, keeping odd values for the schema to judge', () => {
    assert.deepEqual(
      parse(['-n', '12', '--interval', 'ten', '--migrants', '5%', '--max-iterations', 'none', '--topology', 'none', '--reject-duplicates']),
      {
        n: 12,
        migration: { interval: 'ten', migrants: '5%', rejectDuplicates: true },
        limits: { maxIterations: null },
        topology: { kind: 'none' },
      },
    );
    assert.deepEqual(parse(['--interval', '3', '--interval', '4']), { migration: { interval: 4 } });
    assert.deepEqual(parse([]), {});
  });

  it('sets only keys that exist in the schema', () => {
    interface SchemaNode {
      properties?: Record<string, SchemaNode>;
      oneOf?: SchemaNode[];
    }
    const schema = runConfigJsonSchema() as SchemaNode;
    for (const flag of RUN_FLAGS) {
      let node: SchemaNode = { properties: schema.properties };
      for (const key of flag.path.split('.')) {
        // A key of one GA mode (ga.bestIsland) is in that mode's branch.
        const props = node.properties ?? node.oneOf?.find((branch) => branch.properties?.[key])?.properties;
        assert.ok(props?.[key], `--${flag.name}: ${flag.path} is not a config key`);
        node = props[key];
      }
    }
  });

  it('lets overrides win over file values', () => {
    const c = resolve({ n: 8, migration: { interval: 5, migrants: 3 } }, parse(['--interval', '7', '-n', '10']));
    assert.equal(c.n, 10);
    assert.equal(c.migration.interval, 7);
    assert.equal(c.migration.migrants, 3);
  });

  it("drops the file's topology options when a flag changes the kind", () => {
    const input = { n: 8, topology: { kind: 'random', probability: 0.3 } };
    assert.deepEqual(resolve(input, parse(['--topology', 'star'])).topology, { kind: 'star' });
    assert.deepEqual(resolve(input, parse(['--topology', 'random'])).topology, { kind: 'random', probability: 0.3 });
  });

  it('names the flag when a flag value is bad, the file when a file value is', () => {
    refuses(() => resolve({ n: 8 }, parse(['--interval', '0'])), '--interval: expected an integer >= 1, got 0');
    refuses(() => resolve({ n: 8 }, parse(['-n', 'ten'])), '-n: expected an integer from 1 to 2147483648, got "ten"');
    refuses(
      () => resolve({ n: 8 }, parse(['--topology', 'moebius'])),
      '--topology: expected one of ring | ring-bi | fully-connected | star | grid | hypercube | random | none | edges, got "moebius"',
    );
    refuses(
      () => resolve({ n: 8, migration: { interval: 'ten' } }, parse(['-n', '9'])),
      `${SRC}: migration.interval: expected an integer >= 1, got "ten"`,
    );
  });

  it('names the flag that caused a cross-field conflict', () => {
    refuses(
      () => resolve({ n: 8, topology: { kind: 'hypercube' } }, parse(['--islands', '6'])),
      '--islands: 6 is not a power of two, which topology.kind "hypercube" needs; expected 1, 2, 4, 8, ...',
    );
    refuses(
      () => resolve({ n: 8, migration: { migrants: 11 } }, parse(['--population', '10'])),
      '--population: migration.migrants: 11 emigrants is more than ga.populationSize (10); expected at most 10',
    );
  });
});

describe('run config: value errors', () => {
  const cases: [string, unknown, string][] = [
    ['a missing n', {}, `${SRC}: n: missing; expected an integer from 1 to 2147483648 (set it in the file or pass -n)`],
    ['a wrong type', { n: 8, migration: { interval: 'ten' } }, `${SRC}: migration.interval: expected an integer >= 1, got "ten"`],
    ['a fraction for an integer', { n: 8.5 }, `${SRC}: n: expected an integer from 1 to 2147483648, got 8.5`],
    [
      'a probability above 1',
      { n: 8, ga: { mutationProbability: 1.5 } },
      `${SRC}: ga.mutationProbability: expected a number in [0, 1], got 1.5`,
    ],
    ['a section that is not a mapping', { n: 8, migration: 5 }, `${SRC}: migration: expected a mapping, got 5`],
    ['a top level that is not a mapping', [1, 2], `${SRC}: expected a mapping, got a list`],
    ['an unknown GA mode', { n: 8, ga: { mode: 'quantum' } }, `${SRC}: ga.mode: expected "paper", "hybrid" or "takeover", got "quantum"`],
    [
      'a misspelt key',
      { n: 8, migration: { intervall: 3 } },
      `${SRC}: unknown key "migration.intervall"; did you mean "migration.interval"?`,
    ],
    ['a misspelt top-level key', { n: 8, isands: 3 }, `${SRC}: unknown key "isands"; did you mean "islands"?`],
    [
      'an unknown key',
      { n: 8, limits: { patience: 3 } },
      `${SRC}: unknown key "limits.patience"; expected one of maxIterations, maxEvaluations, timeLimit`,
    ],
    [
      'too many islands',
      { n: 8, islands: 10000 },
      `${SRC}: islands: expected an integer from 1 to 4096 or null (= available cores), got 10000`,
    ],
    [
      'too many threads',
      { n: 8, islands: 8, threads: 1000 },
      `${SRC}: threads: expected an integer from 1 to 256 or null (= one per island up to the cores, one for a small run), got 1000; far more threads than cores only add switching and copying`,
    ],
    [
      'a bad migrants value',
      { n: 8, migration: { migrants: 2.5 } },
      `${SRC}: migration.migrants: expected an integer >= 1, a fraction in (0, 1) or a percentage like "5%", got 2.5`,
    ],
    [
      'a bad percentage',
      { n: 8, migration: { migrants: '150%' } },
      `${SRC}: migration.migrants: expected an integer >= 1, a fraction in (0, 1) or a percentage like "5%", got "150%"`,
    ],
    [
      'a bad selection',
      { n: 8, migration: { emigrantSelection: 'worst' } },
      `${SRC}: migration.emigrantSelection: expected best | random | tournament | tournament(K), got "worst"`,
    ],
    ['a negative seed', { n: 8, seed: -1 }, `${SRC}: seed: expected an integer from 0 to 9007199254740991 or null (= random), got -1`],
    [
      'a zero time limit',
      { n: 8, limits: { timeLimit: 0 } },
      `${SRC}: limits.timeLimit: expected a number of seconds > 0 or null (= no limit), at most 2147483 (24.8 days), got 0`,
    ],
    [
      'a malformed edge',
      { n: 8, islands: 2, topology: { kind: 'edges', edges: [[0, 1], [1]] } },
      `${SRC}: topology.edges[1]: expected a pair [from, to] of 0-based island ids, got a list`,
    ],
  ];
  for (const [name, input, message] of cases) it(`refuses ${name}`, () => refuses(() => resolve(input), message));
});

describe('run config: cross-field errors', () => {
  const cases: [string, unknown, string][] = [
    [
      'more migrants than members',
      { n: 8, ga: { populationSize: 10 }, migration: { migrants: 11 } },
      `${SRC}: migration.migrants: 11 emigrants is more than ga.populationSize (10); expected at most 10`,
    ],
    [
      'a double mutation more likely than a mutation',
      { n: 8, ga: { doubleMutationProbability: 0.9 } },
      `${SRC}: ga.doubleMutationProbability: 0.9 is more than ga.mutationProbability (0.8); a double mutation is a kind of mutation, so expected a number <= 0.8`,
    ],
    [
      'a hypercube of 3 islands',
      { n: 8, islands: 3, topology: { kind: 'hypercube' } },
      `${SRC}: islands: 3 is not a power of two, which topology.kind "hypercube" needs; expected 1, 2, 4, 8, ...`,
    ],
    [
      'an edge to a missing island',
      {
        n: 8,
        islands: 2,
        topology: {
          kind: 'edges',
          edges: [
            [0, 1],
            [1, 2],
          ],
        },
      },
      `${SRC}: topology.edges[1]: island 2 does not exist; with 2 islands, ids are 0..1`,
    ],
    [
      'an edge to a missing island, islands from the cores',
      { n: 8, topology: { kind: 'edges', edges: [[0, 4]] } },
      `${SRC}: topology.edges[0]: island 4 does not exist; with 4 (the available cores, as islands is null) islands, ids are 0..3`,
    ],
    [
      'kind edges without edges',
      { n: 8, topology: { kind: 'edges' } },
      `${SRC}: topology.edges: missing; topology.kind "edges" needs a list of [from, to] island pairs`,
    ],
    [
      'an option of another kind',
      { n: 8, topology: { kind: 'ring', probability: 0.3 } },
      `${SRC}: topology.probability: only used with topology.kind "random", not "ring"; remove it`,
    ],
    [
      'grid rows that do not divide the islands',
      { n: 8, islands: 6, topology: { kind: 'grid', rows: 4 } },
      `${SRC}: topology.rows: 4 rows do not divide the 6 islands into full rows; expected a divisor of 6`,
    ],
    [
      'a tournament larger than the population',
      { n: 8, ga: { populationSize: 4 }, migration: { emigrantSelection: 'tournament(5)' } },
      `${SRC}: migration.emigrantSelection: a tournament of 5 is more than ga.populationSize (4)`,
    ],
    [
      'a board that does not fit in memory',
      { n: 2_000_000, islands: 2 },
      `${SRC}: n: 2000000 needs about 57.7 GB for 2 islands (per island: population 1000, bad repository 1414, 500 pairs per iteration, 4 bytes per gene; 20 migrants in flight; 64 MB for its thread), more than the 12.0 GB this machine allows (75% of 16.0 GB); even one island needs about 28.9 GB; lower n or the population (ga.populationSize, --population), and even then paper mode at N = 2000000 would take at least about 155.1 days on 1 core (docs/large-n.md): for large N use --mode hybrid (docs/hybrid.md), which solves N = 10^6 in seconds`,
    ],
  ];
  for (const [name, input, message] of cases) it(`refuses ${name}`, () => refuses(() => resolve(input), message));
});

describe('run config: files', () => {
  it('reads YAML and JSON, by extension', () => {
    assert.equal(loadConfigFile(file('a.yaml', 'n: 9\n'), {}, env).n, 9);
    assert.equal(loadConfigFile(file('a.yml', 'n: 9\n'), {}, env).n, 9);
    assert.equal(loadConfigFile(file('a.json', '{"n": 9}'), {}, env).n, 9);
    assert.equal(loadConfigFile(file('a.conf', '{"n": 9}'), {}, env).n, 9);
  });

  it('refuses a missing file, a directory and an empty file', () => {
    const missing = path.join(tmp, 'nope.yaml');
    refuses(() => readConfigFile(missing), `${missing}: no such file`);
    const dir = path.join(tmp, 'dir.yaml');
    mkdirSync(dir);
    refuses(() => readConfigFile(dir), `${dir}: is a directory; expected a YAML or JSON file`);
    for (const [name, text] of [
      ['empty.yaml', ''],
      ['comments.yaml', '# nothing yet\n\n'],
      ['empty.json', '  \n'],
    ]) {
      const f = file(name, text);
      refuses(() => readConfigFile(f), `${f}: empty file; expected a mapping with at least "n"`);
    }
  });

  it('refuses YAML syntax errors with line and column', () => {
    const bad = file('bad.yaml', 'n: 8\nmigration:\n  interval: [1, 2\n');
    refuses(
      () => readConfigFile(bad),
      `${bad}:4:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    );
    const dup = file('dup.yaml', 'n: 8\nn: 9\n');
    refuses(() => readConfigFile(dup), `${dup}:2:1: invalid YAML: Map keys must be unique`);
  });

  it('refuses JSON syntax errors with line and column', () => {
    const comma = file('comma.json', '{\n  "n": 8,\n}\n');
    refuses(() => readConfigFile(comma), `${comma}:3:1: invalid JSON: Expected double-quoted property name`);
    const token = file('token.json', '{\n  "n": tru\n}\n');
    refuses(() => readConfigFile(token), `${token}:2:8: invalid JSON: Unresolved plain scalar "tru"`);
    const cut = file('cut.json', '{"n": 8');
    refuses(() => readConfigFile(cut), `${cut}:1:8: invalid JSON: Expected ',' or '}' after property value`);
    const dup = file('dup.json', '{"n": 8, "n": 9}');
    refuses(() => readConfigFile(dup), `${dup}:1:10: invalid JSON: Map keys must be unique`);
  });

  it('names the file in value errors', () => {
    const f = file('typo.yaml', 'n: 8\nmigration:\n  intervall: 3\n');
    refuses(() => loadConfigFile(f, {}, env), `${f}: unknown key "migration.intervall"; did you mean "migration.interval"?`);
  });

  it('resolves every example file in config/', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const p = path.join(dir, entry);
        if (statSync(p).isDirectory()) {
          // experiments/: studies; hpc/: scheduler recipes (docs/hpc.md). Neither holds run configs.
          if (p !== path.join(CONFIG_DIR, 'experiments') && p !== path.join(CONFIG_DIR, 'hpc')) walk(p);
        } else if (/\.(ya?ml|json)$/.test(entry) && !entry.endsWith('.schema.json')) files.push(p);
      }
    };
    walk(CONFIG_DIR);
    assert.ok(files.length >= 11, `only ${files.length} files`);
    for (const f of files) {
      // default.yaml leaves n to the user.
      const config = loadConfigFile(f, f === DEFAULT_CONFIG_FILE ? { n: 8 } : {}, env);
      assert.ok(config.n >= 1, f);
      const kind = path.basename(f, '.yaml');
      if (path.dirname(f).endsWith('topologies')) assert.equal(config.topology.kind, kind, f);
    }
  });

  it('paper.yaml is the paper: one island, no topology, the paper’s numbers', () => {
    const c = loadConfigFile(path.join(CONFIG_DIR, 'paper.yaml'), {}, env);
    assert.equal(c.islands, 1);
    assert.deepEqual(c.topology, { kind: 'none' });
    assert.deepEqual(c.ga, { ...DEFAULTS.ga, pairsPerIteration: 500, badRepositorySize: Math.floor(Math.sqrt(c.n)) });
  });
});

describe('run config: JSON Schema', () => {
  it('is JSON, lists every key, and the committed copy is current', () => {
    const schema = JSON.parse(JSON.stringify(runConfigJsonSchema()));
    assert.deepEqual(Object.keys(schema.properties), [
      'n',
      'seed',
      'ga',
      'islands',
      'threads',
      'topology',
      'migration',
      'islandGroups',
      'limits',
      'onIslandError',
      'lineage',
      'output',
      'cluster',
    ]);
    // n may come from -n (config/default.yaml leaves it out).
    assert.equal(schema.required, undefined);
    assert.equal(schema.additionalProperties, false);
    assert.ok(schema.properties.migration.properties.interval);
    assert.ok(schema.properties.ga.oneOf[0].properties.populationSize);
    const committed = JSON.parse(readFileSync(path.join(CONFIG_DIR, 'run-config.schema.json'), 'utf8'));
    assert.deepEqual(committed, schema, 'config/run-config.schema.json is stale: regenerate it with `config schema`');
  });
});

// In this process (runCli): the command's parsing, printing and exit codes, no process per case.
describe('config command', () => {
  it('prints the resolved config as YAML or JSON', async () => {
    const f = file('print.yaml', 'n: 12\nislands: 2\n');
    const yamlOut = await cliInProcess(['config', 'print', '--config', f, '--interval', '9']);
    assert.equal(yamlOut.code, 0);
    const printed = YAML.parse(yamlOut.stdout);
    assert.equal(printed.migration.interval, 9);
    assert.equal(printed.ga.badRepositorySize, 3);
    const jsonOut = await cliInProcess(['config', 'print', '-c', f, '--json', '--interval', '9']);
    assert.deepEqual(JSON.parse(jsonOut.stdout), printed);
  });

  it('answers a bad config with one line on stderr and exit code 2', async () => {
    const r = await cliInProcess(['config', 'print', '-c', file('bad-print.yaml', 'n: 12\n'), '--interval', '0']);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'nqueens-islands: --interval: expected an integer >= 1, got 0\n');
    assert.equal(r.code, 2);
  });

  it('prints the JSON Schema', async () => {
    const r = await cliInProcess(['config', 'schema']);
    assert.deepEqual(JSON.parse(r.stdout), JSON.parse(JSON.stringify(runConfigJsonSchema())));
  });
});
