// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
/**
 * The takeover mode against theory (docs/takeover.md): the panmictic takeover time of the
 * paper's rank selection, the topologies' eccentricities, and real archipelagos (worker
 * threads, sync migration) on a ring and a fully connected topology, checked against the
 * prediction within the tolerance docs/takeover.md states.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { ArchipelagoEvent } from '../src/archipelago/events.ts';
import { LocalHost } from '../src/archipelago/local-host.ts';
import { TEST_FAULT_ENV, testFaultValue } from '../src/archipelago/test-fault.ts';
import { eccentricity, panmicticTakeover, predictTakeover } from '../src/ga/modes/takeover-prediction.ts';
import { edgesOf } from '../src/topology/topology.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { bestIndividual, TakeoverIsland } from '../src/ga/modes/takeover-island.ts';
import { Rng } from '../src/ga/rng.ts';
import { startSeededRun, type RunResult } from '../src/run/start-run.ts';
import { nextSampleIteration } from '../src/archipelago/schedule.ts';

/** docs/takeover.md: for interval >= 5 the median takeover time over seeds is within this many iterations of the prediction. */
const TOLERANCE = 4;
const env = { availableParallelism: 4, totalMemory: 8e9 };

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const h = Math.floor(v.length / 2);
  return v.length % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

describe('takeover theory', () => {
  it("one island: the mean takeover time of the rank selection with elitism is Goldberg and Deb's t* within half a generation", () => {
    for (const m of [16, 64, 256]) {
      const times: number[] = [];
      for (let seed = 1; seed <= 200; seed++) {
        const island = new TakeoverIsland({ n: 12, populationSize: m, bestIsland: 0 }, Rng.forStream(seed, 0), { island: 0, seed });
        assert.equal(island.copiesOfBest(), 1);
        while (island.takeoverIteration() < 0) {
          const before = island.copiesOfBest();
          island.step();
          assert.ok(island.copiesOfBest() >= 1 && before >= 1, 'elitism: the best is never lost');
        }
        times.push(island.takeoverIteration());
      }
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      assert.ok(Math.abs(mean - panmicticTakeover(m)) < 0.5, `M = ${m}: mean ${mean}, t* ${panmicticTakeover(m)}`);
    }
  });

  it('the best individual is the same on every island of a run and differs between seeds; other islands start without it', () => {
    assert.deepEqual(bestIndividual(16, 7), bestIndividual(16, 7));
    assert.notDeepEqual(bestIndividual(16, 7), bestIndividual(16, 8));
    const other = new TakeoverIsland({ n: 16, populationSize: 32, bestIsland: 0 }, Rng.forStream(7, 1), { island: 1, seed: 7 });
    assert.equal(other.copiesOfBest(), 0);
  });

  it('eccentricity of the best island: ring m - 1, bidirectional ring m / 2, star 1 from the hub and 2 from a leaf, hypercube log2 m, fully connected 1, torus 4 x 4: 4', () => {
    const ecc = (kind: string, m: number, from = 0, extra: object = {}) => eccentricity(edgesOf({ kind, ...extra }, m, 1), m, from);
    assert.deepEqual(
      [
        ecc('ring', 8),
        ecc('ring-bi', 8),
        ecc('star', 8),
        ecc('star', 8, 3),
        ecc('hypercube', 16),
        ecc('fully-connected', 16),
        ecc('grid', 16, 0, { rows: 4 }),
      ],
      [7, 4, 1, 2, 4, 1, 4],
    );
    assert.equal(ecc('none', 4), Infinity);
  });
});

describe('takeover mode in a real archipelago (sync, worker threads)', () => {
  const host = new LocalHost(4);
  after(() => host.close());

  /** A takeover run of `islands` islands of 64 on `topology`, sync every `interval`, best emigrants replacing the worst. */
  const takeoverConfig = (topology: string, islands: number, interval: number) =>
    resolveRunConfig(
      {
        n: 16,
        islands,
        topology: { kind: topology },
        ga: { mode: 'takeover', populationSize: 64 },
        migration: { mode: 'sync', interval, migrants: 1, emigrantSelection: 'best', replacement: 'worst-if-better' },
      },
      'test',
      {},
      env,
    );

  async function takeoverTimes(
    topology: string,
    islands: number,
    interval: number,
    seeds: number[],
  ): Promise<{ times: number[]; predicted: number; events: ArchipelagoEvent[][]; results: RunResult[] }> {
    const config = takeoverConfig(topology, islands, interval);
    const times: number[] = [];
    const events: ArchipelagoEvent[][] = [];
    const results: RunResult[] = [];
    for (const seed of seeds) {
      const run = startSeededRun({ ...config, seed }, { launcher: host });
      const seen: ArchipelagoEvent[] = [];
      run.events$.subscribe((e) => seen.push(e));
      const result = await run.result;
      assert.ok(result.takeover, 'a takeover run reports its takeover');
      assert.equal(result.takeover.iteration, Math.max(...result.takeover.islands.map((t) => t ?? Infinity)));
      assert.equal(
        result.takeover.islands[0],
        Math.min(...result.takeover.islands.map((t) => t ?? Infinity)),
        'the best island is taken over first',
      );
      times.push(result.takeover.iteration);
      events.push(seen);
      results.push(result);
    }
    const predicted = predictTakeover({
      edges: edgesOf(config.topology, islands, 1),
      islands,
      bestIsland: 0,
      interval,
      populationSize: 64,
    }).predicted;
    return { times, predicted, events, results };
  }

  for (const [topology, expected] of [
    ['ring', 3 * 5],
    ['fully-connected', 5],
  ] as const) {
    it(`${topology}, 4 islands, interval 5: the median takeover time is the prediction (${expected} + t*) within ${TOLERANCE} iterations`, async () => {
      const { times, predicted, events, results } = await takeoverTimes(topology, 4, 5, [1, 2, 3, 4, 5]);
      assert.ok(Math.abs(predicted - expected - panmicticTakeover(64)) < 1e-9);
      assert.ok(
        Math.abs(median(times) - predicted) <= TOLERANCE,
        `${topology}: takeover ${times.join(', ')}, predicted ${predicted.toFixed(2)}`,
      );
      // The observables follow the takeover: random distinct populations at the start, far fewer genotypes and closer islands at the end.
      const samples = events.map((run) => run.flatMap((e) => (e.type === 'between' ? [e] : [])));
      for (const between of samples) {
        assert.ok(between.length >= 5, `${between.length} between samples`);
        assert.deepEqual([between[0].iteration, between[0].distinct, between[0].sampled], [0, 4 * 32, 4 * 32]);
        assert.ok(between[0].meanDistance > 0.8, JSON.stringify(between[0]));
      }
      // The record's series holds every scheduled iteration up to the takeover, whenever the halt reached the islands
      // (the run halts once each island has sampled the last of them), and none after it.
      for (const result of results) {
        const series = result.between!.map((p) => p.iteration);
        const scheduled: number[] = [];
        for (let i = 0; i <= result.takeover!.iteration!; i = nextSampleIteration(i)) scheduled.push(i);
        assert.deepEqual(series, scheduled, `takeover at ${result.takeover!.iteration}`);
      }
      // Of the seeds' last samples, those past the takeover's start show it; at least one of the five is.
      const lasts = results.map((result) => result.between!.at(-1)!);
      const late = lasts.filter((last) => last.iteration >= expected + 4);
      assert.ok(late.length > 0, JSON.stringify(lasts.map((l) => l.iteration)));
      for (const last of late)
        assert.ok(last.meanDistance < samples[0][0].meanDistance * 0.75 && last.distinct < (4 * 32) / 4, JSON.stringify(last));
    });
  }

  it("a takeover run's record repeats whenever the halt reaches its islands: the same takeover and series with an island slowed", async () => {
    // Island 3 sleeps 1 ms an iteration from iteration 2 on: the others wait for it at the barriers, and it is last to every sample.
    const fault = testFaultValue({ island: 3, atIteration: 2, kind: 'slow', delayMs: 1 });
    const slowHost = new LocalHost(4, { env: { [TEST_FAULT_ENV]: fault } });
    try {
      const config = { ...takeoverConfig('ring', 4, 5), seed: 7 };
      const records: unknown[] = [];
      for (const launcher of [host, slowHost, host]) {
        const result = await startSeededRun(config, { launcher }).result;
        assert.ok(result.between!.length >= 5, JSON.stringify(result.between));
        records.push({ takeover: result.takeover, between: result.between });
      }
      assert.deepEqual(records[1], records[0], 'slowed');
      assert.deepEqual(records[2], records[0], 'again');
    } finally {
      await slowHost.close();
    }
  });

  it('interval 1: the prediction is an upper bound (every generation brings more copies), fully connected far below it', async () => {
    const ring = await takeoverTimes('ring', 4, 1, [1, 2, 3]);
    const full = await takeoverTimes('fully-connected', 8, 1, [1, 2, 3]);
    assert.ok(median(ring.times) <= ring.predicted + 1, `ring: ${ring.times.join(', ')} vs ${ring.predicted}`);
    assert.ok(median(full.times) < full.predicted - 1, `fully connected: ${full.times.join(', ')} vs ${full.predicted}`);
  });
});

describe('takeover mode config', () => {
  it('refuses a best island past the islands and boards without a run, with one line; gives runs an iteration limit', () => {
    assert.throws(() => resolveRunConfig({ n: 16, islands: 4, ga: { mode: 'takeover', bestIsland: 4 } }, 'x.yaml', {}, env), {
      message: 'x.yaml: ga.bestIsland: 4 is not one of the 4 islands; expected at most 3',
    });
    assert.throws(() => resolveRunConfig({ n: 3, islands: 2, ga: { mode: 'takeover' } }, 'x.yaml', {}, env), {
      message: /^x\.yaml: ga\.mode: takeover needs n >= 4/,
    });
    assert.equal(resolveRunConfig({ n: 16, islands: 2, ga: { mode: 'takeover' } }, 'x.yaml', {}, env).limits.maxIterations, 10_000);
    assert.equal(
      resolveRunConfig({ n: 16, islands: 2, ga: { mode: 'takeover' }, limits: { maxIterations: 50 } }, 'x.yaml', {}, env).limits
        .maxIterations,
      50,
    );
    assert.equal(resolveRunConfig({ n: 16, islands: 2 }, 'x.yaml', {}, env).limits.maxIterations, null, 'other modes keep no limit');
  });
});
