// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
/**
 * The one plug-in contract (src/schema/plug-in.ts; docs/ARCHITECTURE.md, "How to add a
 * plug-in"): every registered GA mode, migration mode, topology and migration policy has a
 * name, a one-line help, described options with defaults and its family's implementation; the
 * exported registries are frozen; a name a registry lacks is one line naming the key and the
 * known names; a toy plug-in of each family goes in the documented way; and the recipe's
 * examples are the fixtures' code.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { extendRegistries } from '../src/archipelago/extension.ts';
import { ISLAND_REGISTRIES } from '../src/archipelago/island-registries.ts';
import { MIGRATION_MODE_REGISTRY, migrationModeOf } from '../src/archipelago/modes/registry.ts';
import { runFlags } from '../src/config/flags.ts';
import { REGISTRIES } from '../src/config/registries.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { gaModeOf } from '../src/ga/create-evolver.ts';
import { GA_MODE_REGISTRY } from '../src/ga/modes/registry.ts';
import { EMIGRANT_SELECTION_REGISTRY } from '../src/migration-policy/emigrant-selections/registry.ts';
import { emigrantSelectionFor, POLICY_REGISTRIES, replacementFor } from '../src/migration-policy/lookup.ts';
import { REPLACEMENT_REGISTRY } from '../src/migration-policy/replacements/registry.ts';
import { fields } from '../src/schema/fields.ts';
import { NO_OPTIONS, plugInNamed, registry, type PlugIn } from '../src/schema/plug-in.ts';
import { TOPOLOGY_REGISTRY } from '../src/topology/kinds/registry.ts';
import { TOPOLOGY_KINDS, topologyDefinition } from '../src/topology/topology.ts';
import gaModeExtension from './fixtures/ga-mode-extension.ts';
import migrationModeExtension from './fixtures/migration-mode-extension.ts';
import policyExtension from './fixtures/policy-extension.ts';
import { ringKTopology } from './fixtures/topology-plug-in.ts';
import { FIXTURES, ROOT } from './paths.ts';

type AnyPlugIn = PlugIn<string, z.ZodRawShape, object, never> & Record<string, unknown>;

interface Family {
  family: string;
  plugIns: readonly AnyPlugIn[];
  /** The family's own lookup, as the islands and the coordinator call it. */
  lookup: (name: string) => unknown;
  key: string;
  /** What the family's implementation must have besides the contract. */
  implementation: readonly string[];
}

const asPlugIns = (list: readonly object[]) => list as readonly AnyPlugIn[];

const FAMILIES: readonly Family[] = [
  {
    family: 'GA mode',
    plugIns: asPlugIns(GA_MODE_REGISTRY),
    lookup: (name) => gaModeOf(name),
    key: 'ga.mode',
    implementation: ['resolve', 'create', 'memory', 'initialEvaluations'],
  },
  {
    family: 'migration mode',
    plugIns: asPlugIns(MIGRATION_MODE_REGISTRY),
    lookup: (name) => migrationModeOf(name),
    key: 'migration.mode',
    implementation: ['create', 'coordinator', 'repeatable', 'stopsOnClaim', 'waitsForMigrants'],
  },
  {
    family: 'topology',
    plugIns: asPlugIns(TOPOLOGY_REGISTRY),
    lookup: (name) => topologyDefinition(name),
    key: 'topology.kind',
    implementation: ['build'],
  },
  {
    family: 'emigrant selection',
    plugIns: asPlugIns(EMIGRANT_SELECTION_REGISTRY),
    lookup: (name) => emigrantSelectionFor(name),
    key: 'migration.emigrantSelection',
    implementation: ['build'],
  },
  {
    family: 'replacement',
    plugIns: asPlugIns(REPLACEMENT_REGISTRY),
    lookup: (name) => replacementFor(name),
    key: 'migration.replacement',
    implementation: ['build'],
  },
];

/** The contract, checked on one plug-in: its failures, as lines naming the plug-in. */
function contractProblems(p: AnyPlugIn, implementation: readonly string[]): string[] {
  const problems: string[] = [];
  const at = `${String(p.kind)}:`;
  if (typeof p.kind !== 'string' || !/^[a-z][a-z0-9-]*$/.test(p.kind)) problems.push(`${at} name not lower-case words`);
  if (typeof p.help !== 'string' || p.help.trim() === '' || p.help.includes('\n')) problems.push(`${at} help not one line`);
  const options = p.options(fields) as Record<string, z.ZodType>;
  for (const [option, schema] of Object.entries(options)) {
    if (!schema.description) problems.push(`${at} option ${option} has no description`);
    // A file may leave any option out: it has a default or is optional.
    if (!schema.safeParse(undefined).success) problems.push(`${at} option ${option} has no default`);
  }
  for (const [option, flag] of Object.entries(p.flags ?? {})) {
    if (!(option in options)) problems.push(`${at} flag --${flag.name} for no option ${option}`);
    if (!/^[a-z][a-z0-9-]*$/.test(flag.name) || flag.describe.trim() === '')
      problems.push(`${at} flag ${flag.name} unnamed or undescribed`);
  }
  if (p.resolve !== undefined && typeof p.resolve !== 'function') problems.push(`${at} resolve is not a function`);
  for (const part of implementation) if (p[part] === undefined) problems.push(`${at} no ${part}`);
  return problems;
}

describe('every registered plug-in keeps the one contract', () => {
  for (const { family, plugIns, implementation } of FAMILIES) {
    it(`every ${family}: a name, a one-line help, described options with defaults, flags for its options, its implementation`, () => {
      assert.ok(plugIns.length > 0);
      assert.deepEqual(
        plugIns.flatMap((p) => contractProblems(p, implementation)),
        [],
      );
    });
  }

  it('the examples of the recipe keep it too (the fixtures of test/registry.test.ts)', () => {
    const examples: [AnyPlugIn, readonly string[]][] = [
      [ringKTopology as unknown as AnyPlugIn, FAMILIES[2].implementation],
      ...asPlugIns(policyExtension.emigrantSelections!).map((p) => [p, FAMILIES[3].implementation] as [AnyPlugIn, readonly string[]]),
      ...asPlugIns(policyExtension.replacements!).map((p) => [p, FAMILIES[4].implementation] as [AnyPlugIn, readonly string[]]),
      ...asPlugIns(gaModeExtension.gaModes!).map((p) => [p, FAMILIES[0].implementation] as [AnyPlugIn, readonly string[]]),
      ...asPlugIns(migrationModeExtension.migrationModes!).map((p) => [p, FAMILIES[1].implementation] as [AnyPlugIn, readonly string[]]),
    ];
    assert.equal(examples.length, 5);
    assert.deepEqual(
      examples.flatMap(([p, implementation]) => contractProblems(p, implementation)),
      [],
    );
  });

  it('the contract check can fail: an option without a default, a two-line help, a flag for no option, no implementation', () => {
    const bad = {
      kind: 'Bad',
      help: 'one\ntwo',
      options: (f: typeof fields) => ({ size: f.int(1) }),
      flags: { width: { name: 'width', value: 'number', describe: 'w' } },
    } as unknown as AnyPlugIn;
    assert.deepEqual(contractProblems(bad, ['build']), [
      'Bad: name not lower-case words',
      'Bad: help not one line',
      'Bad: option size has no description',
      'Bad: option size has no default',
      'Bad: flag --width for no option width',
      'Bad: no build',
    ]);
  });
});

describe('exported registries cannot be changed', () => {
  const frozenDeep = (what: string, value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    assert.ok(Object.isFrozen(value), `${what} is frozen`);
    for (const [key, inner] of Object.entries(value)) frozenDeep(`${what}.${key}`, inner);
  };

  it('each registry, each plug-in, its flags and its rules are frozen', () => {
    for (const { family, plugIns } of FAMILIES) frozenDeep(family, plugIns);
    frozenDeep('REGISTRIES', REGISTRIES);
    frozenDeep('ISLAND_REGISTRIES', ISLAND_REGISTRIES);
    frozenDeep('POLICY_REGISTRIES', POLICY_REGISTRIES);
    frozenDeep('TOPOLOGY_KINDS', TOPOLOGY_KINDS);
  });

  it('a change is refused, not dropped (modules are strict)', () => {
    assert.throws(() => (TOPOLOGY_REGISTRY as unknown as object[]).push(ringKTopology), TypeError);
    assert.throws(() => {
      (MIGRATION_MODE_REGISTRY[0] as { help: string }).help = 'changed';
    }, TypeError);
    assert.throws(() => {
      (REGISTRIES as { topologies: unknown }).topologies = [];
    }, TypeError);
    assert.throws(() => {
      (EMIGRANT_SELECTION_REGISTRY[2].flags!.size as { name: string }).name = 'k';
    }, TypeError);
    assert.equal(TOPOLOGY_REGISTRY.length, TOPOLOGY_KINDS.length);
  });

  it('registry() refuses a name given twice and a help of two lines, and freezes a copy', () => {
    const toy = (kind: string, help = 'a toy') => ({ kind, help, options: NO_OPTIONS, build: () => [] });
    assert.throws(() => registry('topology', [toy('ring'), toy('ring')]), {
      message: 'topology "ring" is registered twice; names must be unique',
    });
    assert.throws(() => registry('topology', [toy('ring', 'one\ntwo')]), { message: 'topology "ring": its help must be one line' });
    const given = [toy('a'), toy('b')];
    const made = registry('topology', given);
    assert.ok(Object.isFrozen(made) && made !== given && !Object.isFrozen(given));
    assert.deepEqual(
      made.map((p) => p.kind),
      ['a', 'b'],
    );
  });
});

describe('a name a registry lacks: one line naming the key and the known names', () => {
  for (const { family, plugIns, lookup, key } of FAMILIES) {
    it(`${family}: the family's own lookup`, () => {
      const names = plugIns.map((p) => p.kind);
      assert.throws(() => lookup('nothing-like-it'), {
        message: `${key}: expected one of ${names.join(' | ')}, got "nothing-like-it"`,
      });
      const near = `${names[names.length - 1]}z`;
      assert.throws(() => lookup(near), {
        message: `${key}: expected one of ${names.join(' | ')}, got "${near}"; did you mean "${names[names.length - 1]}"?`,
      });
      for (const name of names) assert.doesNotThrow(() => lookup(name));
    });
  }

  it('a name that is no string, from code: quoted as it is, no suggestion; the caller picks the error class', () => {
    class Refused extends Error {}
    assert.throws(
      () => plugInNamed(TOPOLOGY_REGISTRY, null, 'run.topology.kind', (m) => new Refused(m)),
      (e: Error) => {
        assert.ok(e instanceof Refused);
        assert.equal(e.message, `run.topology.kind: expected one of ${TOPOLOGY_KINDS.join(' | ')}, got null`);
        return true;
      },
    );
  });
});

describe('a toy plug-in of each family, registered the documented way (copies of the registries)', () => {
  const registries = {
    ...extendRegistries(REGISTRIES, [gaModeExtension, migrationModeExtension, policyExtension]),
    topologies: [...TOPOLOGY_REGISTRY, ringKTopology],
  };
  const env = { availableParallelism: 4, totalMemory: 16e9 };

  it('all four in one config: each resolved with its defaults, each found by its lookup, none in the built-in registries', () => {
    const config = resolveRunConfig(
      {
        n: 40,
        islands: 5,
        ga: { mode: 'steady', populationSize: 30 },
        topology: { kind: 'ring-k' },
        migration: { mode: 'latest', emigrantSelection: 'ranked', replacement: 'random', randomProbability: 0.5 },
      },
      'toy.yaml',
      {},
      env,
      registries,
    );
    assert.equal(config.ga.mode, 'steady');
    assert.deepEqual(config.topology, { kind: 'ring-k', k: 2 });
    assert.equal(config.migration.mode, 'latest');
    assert.deepEqual(config.migration.emigrantSelection, { kind: 'ranked', from: 1 });
    assert.deepEqual(config.migration.replacement, { kind: 'random', probability: 0.5 });

    assert.equal(gaModeOf('steady', registries.gaModes).kind, 'steady');
    assert.equal(migrationModeOf('latest', registries.migrationModes).kind, 'latest');
    assert.equal(topologyDefinition('ring-k', registries.topologies).build(3, { k: 1 }, 0).length, 3);
    assert.equal(typeof emigrantSelectionFor({ kind: 'ranked', from: 1 }, registries.emigrantSelections), 'function');
    assert.equal(typeof replacementFor({ kind: 'random', probability: 1 }, registries.replacements), 'function');
    assert.throws(() => gaModeOf('steady'), /^Error: ga\.mode: expected one of paper \| hybrid \| takeover, got "steady"$/);

    const flags = runFlags(registries).map((f) => f.name);
    for (const flag of ['ring-k', 'ranked-from', 'random-probability', 'bad-repository-size']) assert.ok(flags.includes(flag), flag);
  });

  it("an option of one family's toy is refused with another plug-in, naming the key", () => {
    assert.throws(() => resolveRunConfig({ n: 40, topology: { kind: 'ring', k: 2 } }, 'toy.yaml', {}, env, registries), {
      message: 'toy.yaml: topology.k: only used with topology.kind "ring-k", not "ring"; remove it',
    });
  });
});

/** A statement's code with layout and trailing commas removed, so prettier's wrapping does not count. */
const normalised = (code: string) => code.replace(/\s+/g, '').replace(/,(?=[)\]}])/g, '');

/** The `export const NAME = ...;` statements of a module's text, by name. */
function exportedStatements(text: string): Map<string, string> {
  const statements = new Map<string, string>();
  for (const match of text.matchAll(/^export const (\w+) = [\s\S]*?^\}\);$/gm)) statements.set(match[1], normalised(match[0]));
  return statements;
}

describe("docs/ARCHITECTURE.md's recipe", () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const start = doc.indexOf('## How to add a plug-in');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));

  it('has one example per family, each the code of the fixture the tests register and run', () => {
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    const fixtures = ['topology-plug-in', 'policy-extension', 'ga-mode-extension', 'migration-mode-extension'].map((name) =>
      exportedStatements(readFileSync(path.join(FIXTURES, `${name}.ts`), 'utf8')),
    );
    assert.equal(blocks.length, 4);
    const defines = blocks.map((block, i) => {
      const [[name, code]] = [...exportedStatements(block)];
      assert.equal(code, fixtures[i].get(name), `the docs' ${name} is test/fixtures' ${name}`);
      return /= (define\w+)\(/.exec(block)![1];
    });
    assert.deepEqual(defines, ['defineTopology', 'defineEmigrantSelection', 'defineGaMode', 'defineMigrationMode']);
  });
});
