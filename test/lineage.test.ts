/**
 * Lineage (src/ga/lineage.ts, docs/live-view.md): each member's island of origin. The mix
 * counts add up to the population; a child takes its first parent's origin; migrants carry
 * theirs over real MessagePorts; the search is the same with lineage on and off (records
 * equal but for the lineage observable); a ring takeover ends with island 0's origin holding
 * every member of every island; and the last iteration of a run is observed even between
 * the schedule's iterations (the final heat map).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { ArchipelagoEvent, BetweenEvent } from '../src/archipelago/events.ts';
import { LocalHost } from '../src/archipelago/local-host.ts';
import { FOREIGN_MESSAGE_SHAPES } from '../src/archipelago/message-shapes.ts';
import { BetweenTracker, lineageMix, OTHER_ORIGINS } from '../src/archipelago/observables/between.ts';
import { observe } from '../src/archipelago/observables/sample.ts';
import { isScheduledIteration } from '../src/archipelago/schedule.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import type { RunConfigInput } from '../src/config/schema.ts';
import { Island } from '../src/ga/island.ts';
import { originMix, UNKNOWN_ORIGIN } from '../src/ga/lineage.ts';
import { bestIndividual, TakeoverIsland } from '../src/ga/modes/takeover-island.ts';
import { PAPER_DEFAULTS } from '../src/ga/params.ts';
import { Rng } from '../src/ga/rng.ts';
import { rankSelect } from '../src/ga/selection.ts';
import { replaceWorst } from '../src/migration-policy/replacements/worst.ts';
import { replaceWorstIfBetter } from '../src/migration-policy/replacements/worst-if-better.ts';
import { startSeededRun, type RunResult } from '../src/run/start-run.ts';
import { lineageFigure, lineageRows } from '../src/report/figures/lineage-figure.ts';
import { runExperiment, startRun } from '../src/index.ts';
import type { SolveRecord } from '../src/run/result-record.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliInProcess } from './cli-helpers.ts';
import { repeatablePart } from './helpers.ts';

const env = { availableParallelism: 4, totalMemory: 8e9 };
const host = new LocalHost(4);
after(() => host.close());

const sum = (mix: ArrayLike<number>) => {
  let s = 0;
  for (let k = 1; k < mix.length; k += 2) s += mix[k];
  return s;
};

describe('lineage in one island', () => {
  it('the mix counts add up to the population, largest first; a paper island after 20 steps and immigrants of island 3', () => {
    const params = { ...PAPER_DEFAULTS, n: 16, populationSize: 16, pairsPerIteration: 8, badRepositorySize: 4 };
    const island = new Island({ params, rng: Rng.forStream(5, 2) });
    island.trackLineage(2);
    assert.deepEqual([...originMix(island.population)], [2, 16]);
    const migrants = new Island({ params, rng: Rng.forStream(5, 3) }).emigrants(4, (_p, _r, k, slots) =>
      slots.set([0, 1, 2, 3].slice(0, k)),
    );
    // Worst replacement takes all four whatever their fitness: four members of origin 3.
    assert.equal(island.immigrate(migrants, 4, replaceWorst, false, new Uint16Array([3, 3, 3, 3])), 4);
    assert.deepEqual([...originMix(island.population)], [2, 12, 3, 4]);
    for (let i = 0; i < 20; i++) island.step();
    const mix = originMix(island.population);
    assert.equal(sum(mix), params.populationSize);
    for (let k = 2; k < mix.length; k += 2) assert.ok(mix[k + 1] <= mix[k - 1], 'largest first');
    for (let k = 0; k < mix.length; k += 2) assert.ok([2, 3].includes(mix[k]), `origin ${mix[k]} came from nowhere`);
    // Immigrants whose message carried no origins are of an unknown island, not counted as natives.
    island.immigrate(migrants.slice(), 1, replaceWorst);
    assert.ok(island.population.currentOrigins()!.includes(UNKNOWN_ORIGIN));
  });

  it('a child takes its first parent origin: a takeover island whose members each have their own origin', () => {
    const m = 32;
    const island = new TakeoverIsland({ n: 16, populationSize: m, bestIsland: 0 }, Rng.forStream(9, 0), { island: 0, seed: 9 });
    const origins = Uint16Array.from({ length: m }, (_, s) => 100 + s);
    island.trackLineage(0, origins);
    const key = (s: number) => island.population.genes.subarray(s * 16, s * 16 + 16).join(',');
    const originOf = new Map(Array.from({ length: m }, (_, s) => [key(s), 100 + s]));
    island.step();
    for (let s = 0; s < m; s++) assert.equal(island.population.currentOrigins()![s], originOf.get(key(s)), `slot ${s}`);
    assert.equal(sum(originMix(island.population)), m);
    assert.deepEqual([...observe(island.population).lineage!], [...originMix(island.population)]);
  });

  /** One generation of `island` replayed from its own random state (the elite, then M - 1 rank draws): its members' origins must be the drawn parents'. */
  const checkedStep = (island: TakeoverIsland, label: string) => {
    const pop = island.population;
    const m = pop.size;
    const rng = new Rng(island.rng.saveState());
    const order = pop.order.slice();
    const before = pop.currentOrigins()!.slice();
    const expected = [before[order[0]], ...Array.from({ length: m - 1 }, () => before[order[rankSelect(rng, m)]])];
    island.step();
    assert.deepEqual([...pop.currentOrigins()!], expected, `${label}, iteration ${island.iterations}`);
  };
  const copiesOfB = (k: number, seed: number) => Uint16Array.from({ length: k * 16 }, (_, i) => bestIndividual(16, seed)[i % 16]);

  it('a takeover island: members keep their origins every generation, also once taken over (one origin) and after immigrants of another', () => {
    const m = 32;
    const island = new TakeoverIsland({ n: 16, populationSize: m, bestIsland: 0 }, Rng.forStream(4, 0), { island: 0, seed: 4 });
    island.trackLineage(
      0,
      Uint16Array.from({ length: m }, (_, s) => s % 3),
    );
    const pop = island.population;
    while (island.takeoverIteration() < 0) checkedStep(island, 'before the takeover');
    for (let i = 0; i < 3; i++) checkedStep(island, 'taken over');
    assert.equal(originMix(pop).length, 2, 'one origin left');
    island.immigrate(copiesOfB(2, 4), 2, replaceWorst, false, new Uint16Array([originMix(pop)[0], originMix(pop)[0]]));
    checkedStep(island, 'after immigrants of its own origin');
    // Copies of B from island 7: as fit as every member, so selection shuffles both origins.
    island.immigrate(copiesOfB(8, 4), 8, replaceWorst, false, new Uint16Array(8).fill(7));
    assert.equal(pop.currentOrigins()!.filter((o) => o === 7).length, 8);
    for (let i = 0; i < 6; i++) checkedStep(island, 'after immigrants of island 7');
  });

  it("a takeover island keeps origins by fitness while each fitness has one (its own members, then B's copies of island 0), and copies them once one has two", () => {
    const m = 32;
    const island = new TakeoverIsland({ n: 16, populationSize: m, bestIsland: 0 }, Rng.forStream(6, 1), { island: 1, seed: 6 });
    island.trackLineage(1);
    const pop = island.population;
    for (let i = 0; i < 2; i++) checkedStep(island, 'its own members');
    // B's copies from island 0: the only members of fitness 1, so of one origin.
    assert.equal(island.immigrate(copiesOfB(4, 6), 4, replaceWorst, false, new Uint16Array(4).fill(0)), 4);
    assert.deepEqual([...originMix(pop)], [1, m - 4, 0, 4]);
    for (let i = 0; i < 3; i++) checkedStep(island, "B's copies of island 0");
    const emigrants = island.emigrants(2, (p, _rng, k, out) => out.set(p.order.subarray(0, k)));
    assert.ok(emigrants.length === 32 && [...island.emigrantOrigins()!].every((o) => o === 0), "the best two are B's copies, of island 0");
    // A member of fitness 2 from island 5: fitness 2 now holds origins 1 and 5.
    const other = pop.genes.slice(pop.worstSlot() * 16, pop.worstSlot() * 16 + 16);
    assert.equal(island.immigrate(other, 1, replaceWorst, false, new Uint16Array([5])), 1);
    assert.equal(pop.currentOrigins()!.filter((o) => o === 5).length, 1);
    assert.equal(sum(originMix(pop)), m);
    while (island.takeoverIteration() < 0) checkedStep(island, 'fitness 2 of two origins');
    for (let i = 0; i < 2; i++) checkedStep(island, 'taken over by island 0');
    assert.deepEqual([...originMix(pop)], [0, m]);
    assert.deepEqual([...island.snapshot().origins!], new Array(m).fill(0));
  });

  it('immigrants the replacement turns away do not end keeping origins by fitness (an island sends B and a member of fitness 2; worst-if-better takes B only)', () => {
    const m = 32;
    const island = new TakeoverIsland({ n: 16, populationSize: m, bestIsland: 0 }, Rng.forStream(6, 1), { island: 1, seed: 6 });
    island.trackLineage(1);
    const pop = island.population;
    const byFitness = () => (island as unknown as { byFitness: boolean }).byFitness;
    const genes = new Uint16Array(32);
    genes.set(copiesOfB(1, 6));
    genes.set(pop.genes.subarray(0, 16), 16); // of fitness 2, as every member here: no better than the worst
    assert.equal(island.immigrate(genes, 2, replaceWorstIfBetter, false, Uint16Array.of(0, 0)), 1);
    assert.equal(byFitness(), true, 'the member of fitness 2 from island 0 never entered');
    assert.deepEqual([...originMix(pop)], [1, m - 1, 0, 1]);
    for (let i = 0; i < 3; i++) checkedStep(island, 'B of island 0 among its own');
    // One that enters with a second origin for its fitness ends it: a copy of B from island 4.
    assert.equal(island.immigrate(copiesOfB(1, 6), 1, replaceWorst, false, Uint16Array.of(4)), 1);
    assert.equal(byFitness(), false);
    for (let i = 0; i < 3; i++) checkedStep(island, 'B of islands 0 and 4');
  });

  it('a sample names the 8 largest origins and counts the rest together as origin -1', () => {
    const pairs = Uint32Array.from(Array.from({ length: 10 }, (_, i) => [i, 10 - i]).flat());
    const mix = lineageMix(pairs);
    assert.equal(mix.length, 18);
    assert.deepEqual(mix.slice(16), [OTHER_ORIGINS, 2 + 1]);
    assert.equal(sum(mix), sum(pairs));
  });

  it('the final state of islands that stopped at different iterations: their last observations, at the latest iteration; none when they all ended at one', () => {
    const obs = (gene: number, origin: number) => ({
      positions: 2,
      genes: new Uint16Array([gene, gene]),
      hashes: new Uint32Array([gene]),
      lineage: new Uint32Array([origin, 10]),
    });
    const tracker = new BetweenTracker(3);
    assert.equal(tracker.add(0, 8, obs(0, 0)), null);
    assert.equal(tracker.add(1, 9, obs(1, 0)), null);
    assert.equal(tracker.final(), null, 'island 2 has not observed yet');
    tracker.add(2, 11, obs(1, 2));
    const final = tracker.final()!;
    assert.equal(final.iteration, 11);
    assert.deepEqual(final.distance[0], [0, 1, 1]);
    assert.deepEqual(final.lineage, [
      [0, 10],
      [0, 10],
      [2, 10],
    ]);
    assert.deepEqual(tracker.series(), [], 'not in the series: no iteration every island sampled');
    const even = new BetweenTracker(2);
    even.add(0, 5, obs(0, 0));
    assert.ok(even.add(1, 5, obs(0, 1)));
    assert.equal(even.final(), null, 'the set of iteration 5 was complete');
  });

  it('a migrants message from another host carries one origin per migrant, or is refused', () => {
    const message = {
      type: 'migrants',
      from: 1,
      epoch: 0,
      iteration: 3,
      count: 2,
      genes: new Uint16Array(8),
      origins: new Uint16Array([1, 0]),
    };
    assert.ok(FOREIGN_MESSAGE_SHAPES.migrants.safeParse(message).success);
    assert.ok(!FOREIGN_MESSAGE_SHAPES.migrants.safeParse({ ...message, origins: new Uint16Array([1]) }).success);
    assert.ok(FOREIGN_MESSAGE_SHAPES.migrants.safeParse({ ...message, origins: undefined }).success);
  });
});

async function run(
  input: RunConfigInput,
  seed: number,
  lineage: boolean,
): Promise<{ result: RunResult; between: BetweenEvent[]; events: ArchipelagoEvent[] }> {
  const config = { ...resolveRunConfig({ ...input, lineage }, 'test', {}, env), seed };
  const started = startSeededRun(config, { launcher: host });
  const between: BetweenEvent[] = [];
  const events: ArchipelagoEvent[] = [];
  started.events$.subscribe((e: ArchipelagoEvent) => {
    events.push(e);
    if (e.type === 'between') between.push(e);
  });
  return { result: await started.result, between, events };
}

/** The record's repeatable part without the lineage observable. */
const withoutLineage = (result: RunResult) =>
  JSON.parse(JSON.stringify(repeatablePart(result), (k, v: unknown) => (k === 'lineage' ? undefined : v)));

const ringTakeover: RunConfigInput = {
  n: 16,
  islands: 4,
  topology: { kind: 'ring' },
  ga: { mode: 'takeover', populationSize: 32 },
  migration: { mode: 'sync', interval: 3, migrants: 1, emigrantSelection: 'best', replacement: 'worst-if-better' },
};

describe('lineage in a real archipelago (worker threads, MessagePorts)', () => {
  const modes: [string, RunConfigInput][] = [
    [
      'paper',
      {
        n: 40,
        islands: 3,
        topology: { kind: 'ring' },
        limits: { maxIterations: 30 },
        migration: { mode: 'sync', interval: 2, migrants: 2 },
      },
    ],
    [
      'hybrid',
      {
        n: 64,
        islands: 3,
        topology: { kind: 'ring' },
        ga: { mode: 'hybrid' },
        limits: { maxIterations: 20 },
        migration: { mode: 'sync', interval: 2, migrants: 2 },
      },
    ],
    ['takeover', ringTakeover],
  ];
  for (const [mode, input] of modes) {
    it(`${mode}: the same record with lineage on and off, but for the lineage observable, which only the run with it has`, async () => {
      const on = await run(input, 11, true);
      const off = await run(input, 11, false);
      // A takeover run's islands run on until the halt reaches them (timing): its record is the takeover and the samples before it.
      const part = (r: RunResult) => withoutLineage(mode === 'takeover' ? ({ takeover: r.takeover, between: r.between } as RunResult) : r);
      assert.deepEqual(part(on.result), part(off.result));
      assert.ok(on.result.between!.length > 0 && on.result.between!.every((p) => p.lineage?.length === input.islands));
      assert.ok(off.result.between!.every((p) => p.lineage === undefined));
      for (const p of on.result.between!) for (const mix of p.lineage!) assert.ok(sum(mix) > 0);
    });
  }

  it('a takeover run stopped by its iteration limit between two sampled iterations (13: samples at 12 and 16) ends with a sample of iteration 13', async () => {
    const { result, between } = await run({ ...ringTakeover, islands: 8, limits: { maxIterations: 13 } }, 3, true);
    assert.ok(result.islands.every((i) => i.iterations === 13));
    assert.ok(!isScheduledIteration(13));
    const last = between.at(-1)!;
    assert.equal(last.iteration, 13);
    assert.equal(last.final, undefined, 'every island observed iteration 13: a complete set');
    assert.equal(last.distance.length, 8);
    assert.deepEqual(result.between!.at(-1)!.iteration, 13, 'the record holds it too');
  });

  it("ring takeover: island 0's origin reaches every island; the last sample is the islands' final state", async () => {
    const { result, between, events } = await run(ringTakeover, 3, true);
    assert.ok(
      between[0].lineage!.every((mix, i) => mix[0] === i && mix[1] === 32),
      'each island starts with its own',
    );
    const last = between.at(-1)!;
    const final = Math.max(...result.islands.map((i) => i.iterations));
    assert.equal(last.iteration, final, 'the last between sample is of the last iteration');
    assert.deepEqual(
      last.lineage,
      [
        [0, 32],
        [0, 32],
        [0, 32],
        [0, 32],
      ],
      'one origin, island 0, holds 100% everywhere',
    );
    // The report's figure: shares per island and origin at each sample, island 0 alone at the end.
    const rows = lineageRows(events);
    assert.deepEqual(
      rows.filter((r) => r.iteration === last.iteration).map((r) => [r.island, r.origin, r.share]),
      [0, 1, 2, 3].map((i) => [i, 'island 0', 1]),
    );
    const [figure] = await lineageFigure(events, (svg, caption) => `${svg}<p>${caption}</p>`);
    assert.match(figure, /<svg[\s\S]*lineage: each island by island of origin/);
  });
});

describe('the switch: the run config key lineage (solve --no-lineage, a study, a sweep, the library)', () => {
  it('the CLI and the library turn lineage off: the same record without between.lineage; the resolved config says so, a config leaving it on keeps its hash', async () => {
    const args = ['solve', '-n', '24', '--islands', '2', '--seed', '5', '--max-iterations', '10', '--json'];
    const on = await cliInProcess(args);
    const off = await cliInProcess([...args, '--no-lineage']);
    assert.equal(on.code, 1, on.stderr);
    assert.equal(off.code, 1, off.stderr);
    const [withIt, without] = [JSON.parse(on.stdout) as SolveRecord, JSON.parse(off.stdout) as SolveRecord];
    assert.ok(withIt.between.every((p) => p.lineage?.length === 2));
    assert.ok(without.between.every((p) => p.lineage === undefined));
    assert.equal((without.config as { lineage?: boolean }).lineage, false);
    assert.ok(!('lineage' in withIt.config), 'lineage on is left out of the resolved config (and its hash)');
    assert.notEqual(without.provenance.configHash, withIt.provenance.configHash);
    const fields = (r: SolveRecord) => withoutLineage({ ...r, config: undefined, provenance: undefined } as unknown as RunResult);
    assert.deepEqual(fields(withIt), fields(without));
    const handle = startRun({ n: 24, islands: 2, seed: 5, limits: { maxIterations: 10 }, lineage: false });
    assert.ok((await handle.result).between?.every((p) => p.lineage === undefined));
    assert.throws(() => startRun({ n: 24, lineage: 'no' as unknown as boolean }), /lineage: expected true or false/);
  });

  it('a study sweeps it: the cell lineage=false has no between.lineage, the cell lineage=true has it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nq-lineage-study-'));
    try {
      const out = join(dir, 'out');
      const base = { overrides: { n: 12, islands: 2, topology: { kind: 'ring' }, limits: { maxIterations: 6 } } };
      const outcome = await runExperiment({ name: 'lineage-switch', base, sweep: { lineage: [true, false] }, seeds: [1] }, { out });
      assert.equal(outcome.completed, 2);
      const runs = readFileSync(join(out, 'runs.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { values: { lineage: boolean }; between: { lineage?: unknown }[] });
      assert.equal(runs.length, 2);
      for (const run of runs) {
        assert.ok(run.between.length > 0);
        assert.ok(
          run.between.every((p) => (p.lineage !== undefined) === run.values.lineage),
          `cell lineage=${run.values.lineage}`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
