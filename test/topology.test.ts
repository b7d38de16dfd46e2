// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TopologyError } from '../src/topology/errors.ts';
import { nearSquareRows } from '../src/topology/kinds/grid.ts';
import { buildTopology } from '../src/topology/schema.ts';
import { sourcesOf, targetsOf, TOPOLOGY_KINDS, type Edge } from '../src/topology/topology.ts';

/** A topology as a config file gives it (options may be left to their defaults). */
type TopologySpec = { kind: string } & Record<string, unknown>;

/** Edges as sorted "a>b" strings, so sets compare regardless of build order. */
function set(edges: readonly Edge[]): string[] {
  return edges.map(([a, b]) => `${a}>${b}`).sort();
}
function build(spec: TopologySpec, islands: number, seed = 1): string[] {
  return set(buildTopology(spec, islands, seed));
}
function all(islands: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < islands; i++) for (let j = 0; j < islands; j++) if (i !== j) out.push(`${i}>${j}`);
  return out.sort();
}

describe('topology table', () => {
  it('lists every kind once, and the names the config schema reads', () => {
    assert.deepEqual(
      [...TOPOLOGY_KINDS].sort(),
      ['edges', 'fully-connected', 'grid', 'hypercube', 'none', 'random', 'ring', 'ring-bi', 'star'].sort(),
    );
  });

  it('rejects an unknown kind and a bad island count with a clear error', () => {
    assert.throws(
      () => buildTopology({ kind: 'torus' }, 4, 1),
      (e: Error) => e instanceof TopologyError && /^topology\.kind: expected one of ring, .*got "torus"$/.test(e.message),
    );
    assert.throws(() => buildTopology({ kind: 'ring' }, 0, 1), /positive integer island count, got 0/);
  });

  it('never yields a self-loop or a repeated edge', () => {
    const specs: TopologySpec[] = [
      { kind: 'ring' },
      { kind: 'ring-bi' },
      { kind: 'fully-connected' },
      { kind: 'star' },
      { kind: 'grid' },
      { kind: 'random', probability: 0.5 },
      { kind: 'none' },
    ];
    for (const spec of specs) {
      for (let islands = 1; islands <= 9; islands++) {
        const edges = buildTopology(spec, islands, 3);
        assert.equal(new Set(set(edges)).size, edges.length, `${spec.kind} ${islands}`);
        for (const [a, b] of edges) {
          assert.ok(a !== b && a >= 0 && b >= 0 && a < islands && b < islands, `${spec.kind} ${islands}: ${a}>${b}`);
        }
      }
    }
  });
});

describe('ring', () => {
  it('is one-way i → i+1', () => {
    assert.deepEqual(build({ kind: 'ring' }, 4), ['0>1', '1>2', '2>3', '3>0']);
    assert.deepEqual(build({ kind: 'ring' }, 2), ['0>1', '1>0']);
    assert.deepEqual(build({ kind: 'ring' }, 1), []);
  });
  it('ring-bi goes both ways', () => {
    assert.deepEqual(build({ kind: 'ring-bi' }, 4), ['0>1', '0>3', '1>0', '1>2', '2>1', '2>3', '3>0', '3>2']);
    assert.deepEqual(build({ kind: 'ring-bi' }, 2), ['0>1', '1>0']);
    assert.deepEqual(build({ kind: 'ring-bi' }, 1), []);
  });
});

describe('fully-connected, star, none', () => {
  it('fully-connected has every ordered pair', () => {
    assert.deepEqual(build({ kind: 'fully-connected' }, 3), ['0>1', '0>2', '1>0', '1>2', '2>0', '2>1']);
    assert.equal(buildTopology({ kind: 'fully-connected' }, 6, 1).length, 30);
  });
  it('star links hub 0 with every leaf both ways', () => {
    assert.deepEqual(build({ kind: 'star' }, 4), ['0>1', '0>2', '0>3', '1>0', '2>0', '3>0']);
    assert.deepEqual(build({ kind: 'star' }, 1), []);
  });
  it('none has no edges', () => {
    assert.deepEqual(build({ kind: 'none' }, 5), []);
  });
});

describe('grid', () => {
  it('chooses near-square shapes', () => {
    assert.deepEqual([1, 2, 4, 6, 8, 9, 12, 7].map(nearSquareRows), [1, 1, 2, 2, 2, 3, 3, 1]);
  });
  it('is a 3 × 3 torus with 4 neighbours each', () => {
    const edges = buildTopology({ kind: 'grid' }, 9, 1);
    assert.equal(edges.length, 36);
    // Island 4 is the centre; island 0 wraps to 2 (left), 6 (up), 1 (right) and 3 (down).
    assert.deepEqual(targetsOf(edges, 4), [1, 3, 5, 7]);
    assert.deepEqual(targetsOf(edges, 0), [1, 2, 3, 6]);
    assert.deepEqual(sourcesOf(edges, 0), [1, 2, 3, 6]);
  });
  it('drops the duplicates of thin tori', () => {
    // 2 × 2: up and down are the same island, so are left and right.
    assert.deepEqual(build({ kind: 'grid' }, 4), ['0>1', '0>2', '1>0', '1>3', '2>0', '2>3', '3>1', '3>2']);
    // One row of 3 is a two-way ring.
    assert.deepEqual(build({ kind: 'grid', rows: 1 }, 3), build({ kind: 'ring-bi' }, 3));
    // 2 rows of 3 given explicitly: 3 neighbours each (up = down).
    const edges = buildTopology({ kind: 'grid', rows: 2 }, 6, 1);
    assert.deepEqual(targetsOf(edges, 0), [1, 2, 3]);
    assert.deepEqual(build({ kind: 'grid' }, 1), []);
  });
  it('rejects rows that do not divide the island count', () => {
    assert.throws(
      () => buildTopology({ kind: 'grid', rows: 4 }, 6, 1),
      /^TopologyError: topology\.rows: 4 rows do not divide the 6 islands into full rows; expected a divisor of 6$/,
    );
    assert.throws(() => buildTopology({ kind: 'grid', rows: 0 }, 6, 1), TopologyError);
  });
});

describe('hypercube', () => {
  it('links ids that differ in one bit', () => {
    assert.deepEqual(build({ kind: 'hypercube' }, 4), ['0>1', '0>2', '1>0', '1>3', '2>0', '2>3', '3>1', '3>2']);
    const edges = buildTopology({ kind: 'hypercube' }, 8, 1);
    assert.equal(edges.length, 24);
    assert.deepEqual(targetsOf(edges, 5), [1, 4, 7]);
    assert.deepEqual(build({ kind: 'hypercube' }, 1), []);
    assert.deepEqual(build({ kind: 'hypercube' }, 2), ['0>1', '1>0']);
  });
  it('needs a power-of-two island count', () => {
    assert.throws(
      () => buildTopology({ kind: 'hypercube' }, 6, 1),
      (e: Error) =>
        e.name === 'TopologyError' &&
        e.message === 'islands: 6 is not a power of two, which topology.kind "hypercube" needs; expected 1, 2, 4, 8, ...',
    );
  });
});

describe('random', () => {
  it('depends only on the seed', () => {
    const a = build({ kind: 'random', probability: 0.4 }, 8, 42);
    assert.deepEqual(build({ kind: 'random', probability: 0.4 }, 8, 42), a);
    assert.notDeepEqual(build({ kind: 'random', probability: 0.4 }, 8, 43), a);
  });
  it('has the extremes right and about p of the edges', () => {
    assert.deepEqual(build({ kind: 'random', probability: 0 }, 6), []);
    assert.deepEqual(build({ kind: 'random', probability: 1 }, 6), all(6));
    const edges = buildTopology({ kind: 'random', probability: 0.3 }, 40, 7).length;
    assert.ok(Math.abs(edges / (40 * 39) - 0.3) < 0.05, `${edges} edges`);
  });
  it('rejects a probability outside [0, 1]', () => {
    assert.throws(
      () => buildTopology({ kind: 'random', probability: 1.5 }, 4, 1),
      /^TopologyError: topology\.probability: expected a number in \[0, 1\], got 1\.5$/,
    );
    assert.throws(() => buildTopology({ kind: 'random', probability: Number.NaN }, 4, 1), TopologyError);
  });
});

describe('edges', () => {
  it('takes an explicit list', () => {
    assert.deepEqual(
      build(
        {
          kind: 'edges',
          edges: [
            [0, 2],
            [2, 1],
          ],
        },
        3,
      ),
      ['0>2', '2>1'],
    );
  });
  it('rejects a missing island, a self-loop, a repeat and a malformed edge', () => {
    assert.throws(
      () => buildTopology({ kind: 'edges', edges: [[0, 3]] }, 3, 1),
      /topology\.edges\[0\]: island 3 does not exist; with 3 islands, ids are 0\.\.2$/,
    );
    assert.throws(
      () => buildTopology({ kind: 'edges', edges: [[-1, 0]] }, 3, 1),
      /topology\.edges\[0\]\[0\]: expected an integer >= 0, got -1/,
    );
    assert.throws(
      () => buildTopology({ kind: 'edges', edges: [[1, 1]] }, 3, 1),
      /topology\.edges\[0\]: \[1, 1\] sends island 1 its own migrants/,
    );
    assert.throws(
      () =>
        buildTopology(
          {
            kind: 'edges',
            edges: [
              [0, 1],
              [0, 1],
            ],
          },
          3,
          1,
        ),
      /listed twice/,
    );
    assert.throws(() => buildTopology({ kind: 'edges', edges: [[0, 1, 2]] }, 3, 1), TopologyError);
  });
});
