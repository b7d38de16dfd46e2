import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { EMIGRANT_SELECTION_KINDS } from '../src/archipelago/policies/emigrant-selection.ts';
import { REPLACEMENT_KINDS } from '../src/archipelago/policies/replacement.ts';
import { defineTopology } from '../src/archipelago/topologies/define.ts';
import type { Edge } from '../src/archipelago/topologies/edge.ts';
import { TOPOLOGY_REGISTRY } from '../src/archipelago/topologies/registry.ts';
import { TOPOLOGY_KINDS, type TopologyRegistry } from '../src/archipelago/topology.ts';
import { buildTopology, resolveTopology, topologySection } from '../src/archipelago/topology-schema.ts';
import { flagOptions, RUN_FLAGS, runFlags } from '../src/config/flags.ts';
import { runConfigJsonSchema } from '../src/config/json-schema.ts';
import { cli } from './cli-helpers.ts';

/** `solve --help` with its line wrapping undone, so a long flag description reads as one line. */
function solveHelp(): string {
  const r = cli(['solve', '--help']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.replace(/\s+/g, ' ');
}

interface SchemaNode { properties?: Record<string, SchemaNode>; enum?: string[]; oneOf?: SchemaNode[] }

describe('registries reach the schema, the flags and --help', () => {
  const schema = runConfigJsonSchema() as SchemaNode;
  const flag = (name: string) => RUN_FLAGS.find((f) => f.name === name)!;
  const help = solveHelp();

  it('every topology kind and every topology option flag', () => {
    assert.deepEqual(schema.properties!.topology.properties!.kind.enum, [...TOPOLOGY_KINDS]);
    for (const kind of TOPOLOGY_KINDS) {
      assert.ok(flag('topology').describe.split(' | ').includes(kind), `--topology lists ${kind}`);
      assert.ok(help.includes(kind), `--help names ${kind}`);
    }
    for (const d of TOPOLOGY_REGISTRY) {
      for (const [option, f] of Object.entries((d as { flags?: Record<string, { name: string }> }).flags ?? {})) {
        assert.ok(schema.properties!.topology.properties![option], `topology.${option} in the JSON Schema`);
        assert.equal(flag(f.name).path, `topology.${option}`);
        assert.ok(help.includes(`--${f.name}`), `--help lists --${f.name}`);
      }
    }
  });

  it('every replacement and emigrant selection', () => {
    assert.deepEqual(schema.properties!.migration.properties!.replacement.enum, [...REPLACEMENT_KINDS]);
    for (const name of REPLACEMENT_KINDS) {
      assert.ok(flag('replacement').describe.split(' | ').includes(name));
      assert.ok(help.includes(name), `--help names ${name}`);
    }
    for (const name of EMIGRANT_SELECTION_KINDS) {
      assert.ok(flag('emigrant-selection').describe.split(' | ').includes(name));
      assert.ok(JSON.stringify(schema.properties!.migration.properties!.emigrantSelection).includes(name));
      assert.ok(help.includes(name), `--help names ${name}`);
    }
  });

  it('every GA mode', () => {
    const modes = schema.properties!.ga.oneOf!.map((o) => o.properties!.mode);
    assert.deepEqual(modes.map((m) => JSON.stringify(m).match(/"(paper|hybrid)"/)?.[1]), ['paper', 'hybrid']);
    for (const mode of ['paper', 'hybrid']) assert.ok(flag('mode').describe.includes(mode) && help.includes(mode));
  });
});

/**
 * The worked example of docs/ARCHITECTURE.md, "How to add a topology": one new module like
 * this one in src/archipelago/topologies/, and one line in registry.ts. Here the registry
 * is a copy with the line added, so the real one stays as it is.
 */
const ringK = defineTopology({
  kind: 'ring-k',
  help: 'island i sends to the next k islands',
  options: (f) => ({
    k: f.int(1).default(2).describe('ring-k only: how many islands ahead each island sends to; default 2'),
  }),
  flags: { k: { name: 'ring-k', value: 'number', describe: 'islands ahead that the ring-k topology sends to' } },
  resolve: ({ k }, { islands, fail }) => {
    if (k >= islands && islands > 1) fail('k', `${k} reaches past the ${islands} islands; expected at most ${islands - 1}`, ['islands']);
    return { k };
  },
  build: (islands, { k }) => {
    const edges: Edge[] = [];
    for (let i = 0; i < islands && islands > 1; i++) for (let d = 1; d <= k; d++) edges.push([i, (i + d) % islands]);
    return edges;
  },
});
const withRingK: TopologyRegistry = [...TOPOLOGY_REGISTRY, ringK];

describe('registering a topology with an option', () => {
  it('appears in the schema, the JSON Schema, the flags and --help', () => {
    const section = topologySection(withRingK);
    assert.equal(section.safeParse({ kind: 'ring-k', k: 3 }).success, true);
    assert.equal(section.safeParse({ kind: 'ring-k', k: 0 }).success, false);
    const json = z.toJSONSchema(section, { io: 'input' }) as SchemaNode;
    assert.ok(json.properties!.kind.enum!.includes('ring-k'));
    assert.ok(json.properties!.k);
    const flags = runFlags(withRingK);
    assert.ok(flags.find((f) => f.name === 'topology')!.describe.endsWith('| edges | ring-k'));
    assert.deepEqual(flags.find((f) => f.name === 'ring-k'), { name: 'ring-k', path: 'topology.k', value: 'number', describe: 'islands ahead that the ring-k topology sends to' });
    assert.ok(flagOptions(flags)['ring-k']);
    // The real registry is untouched.
    assert.ok(!RUN_FLAGS.some((f) => f.name === 'ring-k'));
  });

  it('resolves with its default, builds, and refuses what its resolve refuses', () => {
    const fail = (key: unknown, message: string): never => {
      throw new Error(`${JSON.stringify(key)}: ${message}`);
    };
    assert.deepEqual(resolveTopology({ kind: 'ring-k' }, { islands: 5, islandsText: '5', fail }, withRingK), { kind: 'ring-k', k: 2 });
    assert.deepEqual(buildTopology({ kind: 'ring-k', k: 1 }, 3, 1, withRingK), [[0, 1], [1, 2], [2, 0]]);
    assert.equal(buildTopology({ kind: 'ring-k' }, 5, 1, withRingK).length, 10);
    assert.throws(() => buildTopology({ kind: 'ring-k', k: 4 }, 4, 1, withRingK), /^TopologyError: topology\.k: 4 reaches past the 4 islands; expected at most 3$/);
    assert.throws(() => buildTopology({ kind: 'ring', k: 2 }, 4, 1, withRingK), /topology\.k: only used with topology\.kind "ring-k", not "ring"/);
    assert.throws(() => buildTopology({ kind: 'ring-k' }, 4, 1), /topology\.kind: expected one of/);
  });
});
