/**
 * Islands with settings of their own (`islandGroups`, docs/heterogeneous.md): the groups'
 * validation (one line naming the key, exit 2), their resolution and file shape, the record
 * of a run on real worker threads (each island names its settings, and runs them), its
 * repeatability in sync and lagged modes, studies that sweep them, `--help` and the JSON Schema.
 * Runs with groups spread over host processes on a broker are in cluster-island-groups.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import YAML from 'yaml';
import { solve, type RunConfigInput } from '../src/index.ts';
import { toFileShape } from '../src/config/file-shape.ts';
import { runConfigJsonSchema } from '../src/config/json-schema.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { checkResolved } from '../src/config/resolved-schema.ts';
import { islandRunOf } from '../src/archipelago/island-options.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { cli, cliInProcess, isOneLineError } from './cli-helpers.ts';
import { file, tmp } from './bad-input-cases.ts';
import { repeatablePart } from './helpers.ts';

const env = { availableParallelism: 4, totalMemory: 64e9 };
const resolve = (input: unknown) => ({ ...resolveRunConfig(input, 'g.yaml', {}, env), seed: 1 });
const HETEROGENEOUS = path.resolve('config/heterogeneous.yaml');
const shipped = () => YAML.parse(readFileSync(HETEROGENEOUS, 'utf8')) as RunConfigInput;

describe('islandGroups: bad groups are one line naming the key, exit 2', () => {
  const base = 'n: 8\nislands: 4\nmigration: { migrants: 2 }\nislandGroups:\n';
  const cases: [string, string, RegExp][] = [
    [
      'an island out of range',
      '  a: { islands: [1, 4] }\n',
      /: islandGroups\.a\.islands\[1\]: island 4 does not exist; with 4 islands, ids are 0\.\.3$/,
    ],
    [
      'groups that overlap',
      '  a: { islands: [0, 1] }\n  b: { islands: [1] }\n',
      /: islandGroups\.b\.islands\[0\]: island 1 is already in group a; expected each island in one group at most$/,
    ],
    ['an island twice in one group', '  a: { islands: [2, 2] }\n', /: islandGroups\.a\.islands\[1\]: island 2 is already in this group/],
    [
      'a count larger than the islands left',
      '  a: { islands: [0, 1] }\n  b: { islands: 3 }\n',
      /: islandGroups\.b\.islands: 3 islands, but 2 of the 4 are left .*; expected at most 2$/,
    ],
    ['no islands', '  a: { islands: [] }\n', /: islandGroups\.a\.islands: expected a list of 0-based island ids, or a count of islands/],
    [
      'an unknown policy',
      '  a: { islands: [0], migration: { replacement: wurst } }\n',
      /: islandGroups\.a\.migration\.replacement: expected one of .*, got "wurst"; did you mean "worst"\?$/,
    ],
    [
      'a GA value out of range',
      '  a: { islands: [0], ga: { mutationProbability: 2 } }\n',
      /: islandGroups\.a\.ga\.mutationProbability: expected a number in \[0, 1\], got 2$/,
    ],
    [
      'a key of another GA mode',
      '  a: { islands: [0], ga: { mode: hybrid, badRepositorySize: 2 } }\n',
      /: islandGroups\.a\.ga: unknown key "badRepositorySize"/,
    ],
    [
      'a cross-field check of the group',
      '  a: { islands: [0], ga: { mutationProbability: 0.1 } }\n',
      /: islandGroups\.a\.ga\.doubleMutationProbability: 0\.4 is more than ga\.mutationProbability \(0\.1\)/,
    ],
    [
      'takeover beside another mode',
      '  a: { islands: [0], ga: { mode: takeover } }\n',
      /: islandGroups\.a\.ga\.mode: takeover beside the run's paper/,
    ],
    [
      'more migrants than the group population',
      '  a: { islands: [0], ga: { populationSize: 10 }, migration: { migrants: 11 } }\n',
      /: islandGroups\.a\.migration\.migrants: 11 emigrants is more than this group's populationSize \(10\); expected at most 10$/,
    ],
    [
      'a group name that is no key',
      '  0a: { islands: [0] }\n',
      /: islandGroups\.0a: expected a group name: a letter, then letters, digits, - or _, got "0a"$/,
    ],
    [
      'a misspelt group key',
      '  a: { islands: [0], gaa: {} }\n',
      /: unknown key "islandGroups\.a\.gaa"; did you mean "islandGroups\.a\.ga"\?$/,
    ],
    ['a list instead of a mapping', '  - { islands: [0] }\n', /: islandGroups: expected a mapping from group names to groups, got a list$/],
  ];
  for (const [name, groups, says] of cases) {
    it(name, async () => {
      const config = file(`groups-${name.replace(/\W+/g, '-')}.yaml`, base + groups);
      const r = await cliInProcess(['solve', '--config', config]);
      assert.equal(r.code, 2, r.stderr);
      assert.ok(isOneLineError(r), r.stderr);
      assert.match(r.stderr.trim(), says);
      assert.equal(r.stdout, '');
    });
  }

  it('--island-groups: text that is not JSON, and a bad key inside it, name the flag', async () => {
    const notJson = await cliInProcess(['solve', '-n', '8', '--islands', '2', '--island-groups', '{a: 1}']);
    assert.equal(notJson.code, 2);
    assert.match(
      notJson.stderr.trim(),
      /^nqueens-islands: --island-groups: expected a mapping from group names to groups, got "\{a: 1\}"$/,
    );
    const badKey = await cliInProcess([
      'solve',
      '-n',
      '8',
      '--islands',
      '2',
      '--island-groups',
      '{"a": {"islands": 1, "ga": {"populationSize": 1}}}',
    ]);
    assert.equal(badKey.code, 2);
    assert.ok(isOneLineError(badKey), badKey.stderr);
    assert.match(badKey.stderr.trim(), /--island-groups a\.ga\.populationSize: expected an integer >= 2, got 1$/);
  });
});

describe('islandGroups: resolution', () => {
  it('lists, then counts from the lowest islands left; islands in no group run the run settings', () => {
    const c = resolve({ n: 12, islands: 6, islandGroups: { a: { islands: 2 }, b: { islands: [0, 3] }, c: { islands: 1 } } });
    assert.deepEqual(
      c.islandGroups!.map((g) => [g.name, g.islands]),
      [
        ['a', [1, 2]],
        ['b', [0, 3]],
        ['c', [4]],
      ],
    );
    assert.deepEqual(islandRunOf(c, 5), islandRunOf({ ...c, islandGroups: undefined }, 5));
    assert.equal(islandRunOf(c, 5).islandGroups, undefined);
  });

  it("a group's keys lie over the run's; a mode of its own takes none of them; migrants as a fraction are of the group's population", () => {
    const c = resolve({
      n: 16,
      islands: 3,
      ga: { populationSize: 400, mutationProbability: 0.6, doubleMutationProbability: 0.3 },
      migration: { migrants: '5%', emigrantSelection: 'tournament', tournamentSize: 4 },
      islandGroups: {
        small: { islands: [1], ga: { populationSize: 40 }, migration: { emigrantSelection: 'tournament(3)' } },
        hy: { islands: [2], ga: { mode: 'hybrid', populationSize: 60 }, migration: { replacement: 'worst' } },
      },
    });
    const [run0, run1, run2] = [0, 1, 2].map((k) => islandRunOf(c, k));
    assert.equal(run0.ga.populationSize, 400);
    assert.deepEqual(run1.ga, { ...run0.ga, populationSize: 40, pairsPerIteration: 20 });
    assert.equal(run2.ga.mode, 'hybrid');
    assert.deepEqual([run0.migration.migrants, run1.migration.migrants, run2.migration.migrants], [20, 2, 3]);
    // Naming a policy drops the run's options of that family (tournamentSize 4): tournament(3) is the group's own.
    assert.deepEqual(run1.migration.emigrantSelection, { kind: 'tournament', size: 3 });
    assert.deepEqual(run2.migration.emigrantSelection, { kind: 'tournament', size: 4 });
    assert.deepEqual(run2.migration.replacement, { kind: 'worst' });
  });

  it('the file shape reads back to the same config, and the resolved config passes the checks of checkpoints and bus orders', () => {
    const c = resolve({ ...shipped(), seed: 4 });
    assert.deepEqual(resolve(toFileShape(c)), c);
    const checked = checkResolved('seeded', { ...c, seed: 4 });
    assert.ok('config' in checked, JSON.stringify(checked));
    assert.deepEqual(checked.config.islandGroups, c.islandGroups);
  });

  it('no groups, null or {}: the config and its file shape are as without the key', () => {
    const plain = resolve({ n: 12, islands: 2 });
    for (const islandGroups of [null, {}]) {
      const c = resolve({ n: 12, islands: 2, islandGroups });
      assert.deepEqual(c, plain);
      assert.equal('islandGroups' in toFileShape(c), false);
    }
  });
});

describe('islandGroups: runs on real worker threads', { timeout: 300_000 }, () => {
  const small = (mode: 'sync' | 'lagged'): RunConfigInput => ({
    n: 20,
    seed: 11,
    islands: 3,
    ga: { populationSize: 60 },
    topology: { kind: 'ring' },
    migration: { mode, interval: 2, migrants: 2 },
    limits: { maxIterations: 6 },
    islandGroups: {
      big: { islands: [0], ga: { populationSize: 120, mutationProbability: 1, doubleMutationProbability: 0.5 } },
      hy: { islands: [2], ga: { mode: 'hybrid', populationSize: 30 }, migration: { emigrantSelection: 'random', replacement: 'worst' } },
    },
  });

  it('config/heterogeneous.yaml: each island record names its group, ga and migration; the config keeps the groups', async () => {
    const record = await solve(shipped());
    assert.deepEqual(
      record.islands.map((i) => [i.group, i.ga?.mode, (i.ga as { mutationProbability?: number } | undefined)?.mutationProbability]),
      [
        ['calm', 'paper', 0.2],
        ['mild', 'paper', 0.5],
        [null, 'paper', 0.8],
        ['wild', 'paper', 1],
      ],
    );
    assert.deepEqual(record.islands[3].migration, { migrants: 2, emigrantSelection: 'random', replacement: 'worst' });
    assert.deepEqual(record.islands[2].migration, { migrants: 2, emigrantSelection: 'best', replacement: 'worst-if-better' });
    assert.deepEqual(Object.keys(record.config.islandGroups ?? {}), ['calm', 'mild', 'wild']);
    assert.equal(record.repeatable, true);
  });

  it('each island runs its own settings: isolated islands run as in a run of their group settings', async () => {
    const own = { populationSize: 120, mutationProbability: 1, doubleMutationProbability: 0.5 };
    const base: RunConfigInput = {
      n: 40,
      seed: 3,
      islands: 2,
      ga: { populationSize: 60 },
      topology: { kind: 'none' },
      limits: { maxIterations: 8 },
    };
    const mixed = await solve({ ...base, islandGroups: { big: { islands: [0], ga: own } } });
    const allBig = await solve({ ...base, ga: own });
    const plain = await solve(base);
    const island = (r: typeof mixed, k: number) =>
      repeatablePart({ ...r.islands[k], group: undefined, ga: undefined, migration: undefined });
    assert.deepEqual(island(mixed, 0), island(allBig, 0));
    assert.deepEqual(island(mixed, 1), island(plain, 1));
    assert.notDeepEqual(island(allBig, 0), island(plain, 0));
  });

  it('a group over every island runs as a run with its settings (policies included), and its records name none (all alike)', async () => {
    const base: RunConfigInput = {
      n: 24,
      seed: 5,
      islands: 2,
      ga: { populationSize: 40 },
      migration: { mode: 'sync', interval: 2, migrants: 3 },
      limits: { maxIterations: 30 },
    };
    const own = { ga: { populationSize: 50 }, migration: { emigrantSelection: 'random', replacement: 'worst' } } as const;
    const grouped = await solve({ ...base, islandGroups: { all: { islands: 2, ...own } } });
    const uniform = await solve({ ...base, ga: own.ga, migration: { ...base.migration, ...own.migration } });
    const { config: _g, provenance: _p, ...groupedRest } = grouped;
    const { config: _u, provenance: _q, ...uniformRest } = uniform;
    assert.deepEqual(repeatablePart(groupedRest), repeatablePart(uniformRest));
    assert.ok(grouped.islands.every((i) => !('ga' in i)));
  });

  for (const mode of ['sync', 'lagged'] as const) {
    it(`${mode}: a run with groups repeats from its seed`, async () => {
      const config = { ...small(mode), n: 24, limits: { maxIterations: 40 } };
      const [a, b] = [await solve(config), await solve(config)];
      assert.deepEqual(repeatablePart(b), repeatablePart(a));
      assert.equal(a.repeatable, true);
      assert.ok(a.islands.every((i) => i.ga !== undefined));
    });
  }

  it('groups that change nothing: the island records are as without groups', async () => {
    const config: RunConfigInput = { n: 8, seed: 2, islands: 2, ga: { populationSize: 20 }, limits: { maxIterations: 3 } };
    const same = await solve({ ...config, islandGroups: { a: { islands: [1], ga: { populationSize: 20 } } } });
    const plain = await solve(config);
    assert.deepEqual(repeatablePart(same.islands), repeatablePart(plain.islands));
    assert.ok(same.islands.every((i) => !('ga' in i) && !('group' in i)));
  });
});

type Essence = Record<string, unknown> & {
  islands: (Record<string, unknown> & { group?: string | null; ga?: { mutationProbability?: number } })[];
};

// The resume runs in the built CLI, a process of its own; the runs it is compared with and the refusal in this one (`runCli`).
describe('islandGroups: checkpoint and resume (sync, the built CLI)', { timeout: 300_000 }, () => {
  it('a run with groups checkpointed, ended and resumed reaches the result of a run never stopped; the groups come from the checkpoint', async () => {
    const groups =
      '{"hot": {"islands": [1], "ga": {"mutationProbability": 1, "doubleMutationProbability": 0.5}, "migration": {"emigrantSelection": "random"}}}';
    const run = [
      'solve',
      '-n',
      '48',
      '--seed',
      '3',
      '--population',
      '200',
      '--islands',
      '2',
      '--migration',
      'sync',
      '--interval',
      '5',
      '--migrants',
      '2',
    ];
    const ckpt = path.join(tmp, 'groups.ckpt');
    const first = await cliInProcess([
      ...run,
      '--island-groups',
      groups,
      '--checkpoint',
      ckpt,
      '--checkpoint-every',
      '0.02',
      '--max-iterations',
      '100',
    ]);
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /checkpoint written to/);
    const json = async (args: string[], fresh = false) => {
      const r = fresh ? cli([...args, '--json', '-q']) : await cliInProcess([...args, '--json', '-q']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as Essence;
    };
    const resumed = await json(['solve', '--resume', ckpt, '--max-iterations', '100000'], true);
    const uninterrupted = await json([...run, '--island-groups', groups]);
    // What checkpoint.test.ts holds a resumed run to (the immigrant counters start again at a resume).
    const essence = (r: Essence) => ({
      ...Object.fromEntries(
        ['solved', 'solution', 'fitness', 'foundBy', 'foundAtIteration', 'iterations', 'evaluations'].map((k) => [k, r[k]]),
      ),
      islands: r.islands.map((i) => [i.iterations, i.evaluations, i.bestFitness, i.migrantsSent, i.migrantsAccepted, i.stopReason]),
    });
    assert.deepEqual(essence(resumed), essence(uninterrupted));
    // Groups are not resumable: another group on the command line is refused.
    const other = await cliInProcess(['solve', '--resume', ckpt, '--island-groups', '{"cold": {"islands": [0]}}']);
    assert.equal(other.code, 2);
    assert.ok(isOneLineError(other), other.stderr);
    assert.match(
      other.stderr,
      /--island-groups cold\.islands: \[0\] contradicts the checkpoint .*groups\.ckpt, which has no islandGroups\.cold\.islands; with --resume only/,
    );
    assert.deepEqual(
      resumed.islands.map((i) => [i.group, i.ga?.mutationProbability]),
      [
        [null, 0.8],
        ['hot', 1],
      ],
    );
  });
});

describe('islandGroups: studies, --help and the JSON Schema', () => {
  it('config/experiments/heterogeneous.yaml: the uniform cell without groups, the spread cell with its three', () => {
    const study = loadExperiment(path.resolve('config/experiments/heterogeneous.yaml'));
    assert.equal(study.cells.length, 2);
    const [uniform, spread] = study.cells;
    assert.equal(uniform.id, 'islandGroups=null');
    assert.equal(uniform.config.islandGroups, undefined);
    assert.deepEqual(
      spread.config.islandGroups!.map((g) => [g.name, g.islands, (g.ga as { mutationProbability: number }).mutationProbability]),
      [
        ['calm', [0], 0.2],
        ['mild', [1], 0.5],
        ['wild', [3], 1],
      ],
    );
  });

  it('a sweep reaches into a group by its dotted key', () => {
    const spec = {
      name: 'into-a-group',
      base: { file: HETEROGENEOUS },
      sweep: { 'islandGroups.calm.ga.mutationProbability': [0.1, 0.3] },
      seed: 1,
    };
    const study = loadExperiment(file('into-a-group.yaml', JSON.stringify(spec)), env);
    assert.deepEqual(
      study.cells.map((c) => [c.id, (c.config.islandGroups![0].ga as { mutationProbability: number }).mutationProbability]),
      [
        ['islandGroups.calm.ga.mutationProbability=0.1', 0.1],
        ['islandGroups.calm.ga.mutationProbability=0.3', 0.3],
      ],
    );
  });

  it('solve --help lists --island-groups; the JSON Schema has islandGroups with every ga and policy key', async () => {
    const help = await cliInProcess(['solve', '--help']);
    assert.match(help.stdout, /--island-groups +islands with settings of their own, as JSON/);
    const schema = runConfigJsonSchema() as {
      properties: Record<
        string,
        {
          anyOf: {
            propertyNames?: unknown;
            additionalProperties?: { properties: Record<string, { properties?: Record<string, unknown> }> };
          }[];
        }
      >;
    };
    const groups = schema.properties.islandGroups.anyOf[0];
    assert.deepEqual(groups.propertyNames, { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]*$' });
    const group = groups.additionalProperties!.properties;
    assert.deepEqual(Object.keys(group), ['islands', 'ga', 'migration']);
    for (const key of ['mode', 'mutationProbability', 'conflictMutation', 'bestIsland']) assert.ok(group.ga.properties![key], key);
    for (const key of ['migrants', 'emigrantSelection', 'replacement', 'tournamentSize']) assert.ok(group.migration.properties![key], key);
  });
});
