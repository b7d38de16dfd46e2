import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MigrationPolicyError } from '../src/migration-policy/errors.ts';
import { selectBest } from '../src/migration-policy/emigrant-selections/best.ts';
import { selectRandom } from '../src/migration-policy/emigrant-selections/random.ts';
import { selectTournament } from '../src/migration-policy/emigrant-selections/tournament.ts';
import { emigrantSelectionFor, replacementFor } from '../src/migration-policy/lookup.ts';
import { replaceRandomIfBetter } from '../src/migration-policy/replacements/random-if-better.ts';
import { replaceWorstIfBetter } from '../src/migration-policy/replacements/worst-if-better.ts';
import { replaceWorst } from '../src/migration-policy/replacements/worst.ts';
import { Island } from '../src/ga/island.ts';
import { paperParams } from '../src/ga/params.ts';
import { Population } from '../src/ga/population.ts';
import { Rng } from '../src/ga/rng.ts';
import { plusSelection, SurvivalScratch } from '../src/ga/survival.ts';
import { allocGenes } from '../src/problem/genes.ts';

const N = 8;

/** A population whose slot s holds a recognisable chromosome (gene 0 = s mod N) and the given fitness. */
function population(fitness: number[]): Population {
  const pop = new Population(N, fitness.length);
  const genes = allocGenes(N);
  fitness.forEach((f, s) => {
    for (let i = 0; i < N; i++) genes[i] = (i + s) % N;
    pop.copyIn(s, genes, 0, f);
  });
  pop.rerank();
  return pop;
}

function immigrants(fitness: number[]): { genes: ReturnType<typeof allocGenes>; fit: Int32Array } {
  const genes = allocGenes(N, fitness.length);
  for (let c = 0; c < fitness.length; c++) for (let i = 0; i < N; i++) genes[c * N + i] = (N - 1 - i + c) % N;
  return { genes, fit: Int32Array.from(fitness) };
}

function snapshot(pop: Population): { genes: number[]; fitness: number[]; order: number[] } {
  return { genes: [...pop.genes], fitness: [...pop.fitness], order: [...pop.order] };
}

const FITNESS = [5, 3, 9, 1, 7, 3, 12, 0 + 2, 4, 6];

describe('emigrant selection', () => {
  it('best k takes ranks 0..k-1 and draws nothing', () => {
    const pop = population(FITNESS);
    const rng = Rng.forStream(1, 0);
    const before = rng.saveState();
    const slots = new Int32Array(3);
    selectBest(pop, rng, 3, slots);
    assert.deepEqual([...slots], [3, 7, 1]); // fitness 1, 2, then 3 (slot 1 before slot 5)
    assert.deepEqual(rng.saveState(), before);
  });

  it('random k gives k distinct slots, repeatably, covering the population', () => {
    const pop = population(FITNESS);
    const seen = new Set<number>();
    for (let t = 0; t < 200; t++) {
      const slots = new Int32Array(4);
      selectRandom(pop, Rng.forStream(t, 0), 4, slots);
      assert.equal(new Set(slots).size, 4);
      for (const s of slots) {
        assert.ok(s >= 0 && s < pop.size);
        seen.add(s);
      }
      const again = new Int32Array(4);
      selectRandom(pop, Rng.forStream(t, 0), 4, again);
      assert.deepEqual(again, slots);
    }
    assert.equal(seen.size, pop.size);
    const every = new Int32Array(pop.size);
    selectRandom(pop, Rng.forStream(9, 0), pop.size, every);
    assert.deepEqual(
      [...every].sort((a, b) => a - b),
      [...Array(pop.size).keys()],
    );
  });

  it('tournament k picks distinct slots, the best ones under high pressure', () => {
    const pop = population(FITNESS);
    for (let t = 0; t < 50; t++) {
      const slots = new Int32Array(5);
      selectTournament(3)(pop, Rng.forStream(t, 0), 5, slots);
      assert.equal(new Set(slots).size, 5);
    }
    // Huge tournaments always contain rank 0: the winners are the best ranks, in order.
    const slots = new Int32Array(3);
    selectTournament(500)(pop, Rng.forStream(2, 0), 3, slots);
    assert.deepEqual([...slots], [...pop.order.subarray(0, 3)]);
    const all = new Int32Array(pop.size);
    selectTournament(2)(pop, Rng.forStream(3, 0), pop.size, all);
    assert.equal(new Set(all).size, pop.size);
  });

  it('fitter members leave more often in a tournament than at random', () => {
    const pop = population(FITNESS);
    let tour = 0;
    let rand = 0;
    const slots = new Int32Array(1);
    for (let t = 0; t < 2000; t++) {
      selectTournament(3)(pop, Rng.forStream(t, 1), 1, slots);
      tour += pop.fitness[slots[0]];
      selectRandom(pop, Rng.forStream(t, 1), 1, slots);
      rand += pop.fitness[slots[0]];
    }
    assert.ok(tour < rand * 0.8, `${tour} vs ${rand}`);
  });

  it('is picked by name, with clear errors', () => {
    assert.equal(emigrantSelectionFor({ kind: 'best' }), selectBest);
    assert.equal(emigrantSelectionFor({ kind: 'random' }), selectRandom);
    assert.equal(typeof emigrantSelectionFor({ kind: 'tournament', size: 2 }), 'function');
    assert.throws(
      () => emigrantSelectionFor({ kind: 'worst' }),
      (e: Error) =>
        e instanceof MigrationPolicyError &&
        e.message === 'migration.emigrantSelection: expected one of best | random | tournament, got "worst"',
    );
  });
});

describe('replacement', () => {
  it('worst-if-better is exactly plusSelection', () => {
    const a = population(FITNESS);
    const b = population(FITNESS);
    const { genes, fit } = immigrants([4, 12, 0 + 1, 11]);
    const accepted = replaceWorstIfBetter(a, Rng.forStream(1, 0), genes.slice(), fit.slice(), 4, new SurvivalScratch(N));
    const expected = plusSelection(b, genes.slice(), fit.slice(), 4, new SurvivalScratch(N));
    assert.equal(accepted, expected);
    assert.equal(accepted, 2); // 4 and 1 beat the worst (12, 9); 12 and 11 do not
    assert.deepEqual(snapshot(a), snapshot(b));
  });

  it('worst-if-better keeps the resident on a tie', () => {
    const pop = population(FITNESS);
    const before = snapshot(pop);
    const { genes, fit } = immigrants([12]);
    assert.equal(replaceWorstIfBetter(pop, Rng.forStream(1, 0), genes, fit, 1, new SurvivalScratch(N)), 0);
    assert.deepEqual(snapshot(pop), before);
  });

  it('worst replaces the worst members whatever the immigrants are worth', () => {
    const pop = population(FITNESS);
    const { genes, fit } = immigrants([13, 14]);
    assert.equal(replaceWorst(pop, Rng.forStream(1, 0), genes, fit, 2, new SurvivalScratch(N)), 2);
    // The old worst two (12 in slot 6, 9 in slot 2) are gone.
    assert.deepEqual(
      [...pop.fitness].sort((x, y) => x - y),
      [1, 2, 3, 3, 4, 5, 6, 7, 13, 14],
    );
    assert.equal(pop.fitness[6], 13);
    assert.equal(pop.fitness[2], 14);
    assert.equal(pop.fitness[pop.worstSlot()], 14);
  });

  it('random-if-better replaces a random member only when strictly fitter', () => {
    const worse = population(FITNESS);
    const before = snapshot(worse);
    const bad = immigrants([12, 12, 12]);
    assert.equal(replaceRandomIfBetter(worse, Rng.forStream(1, 0), bad.genes, bad.fit, 3, new SurvivalScratch(N)), 0);
    assert.deepEqual(snapshot(worse), before);

    const pop = population(FITNESS);
    const good = immigrants([0 + 1, 1, 1]);
    const rng = Rng.forStream(5, 0);
    const expectSlots = [rng.int(10), rng.int(10), rng.int(10)];
    const accepted = replaceRandomIfBetter(pop, Rng.forStream(5, 0), good.genes, good.fit, 3, new SurvivalScratch(N));
    const hit = new Set(expectSlots.filter((s) => FITNESS[s] > 1));
    assert.equal(accepted, expectSlots.filter((s) => FITNESS[s] > 1).length);
    for (const s of hit) assert.equal(pop.fitness[s], 1);
    assert.equal(pop.fitness[pop.order[0]], 1);
  });

  it('is picked by name, with a clear error', () => {
    assert.equal(replacementFor('worst-if-better'), replaceWorstIfBetter);
    assert.equal(replacementFor('worst'), replaceWorst);
    assert.equal(replacementFor('random-if-better'), replaceRandomIfBetter);
    assert.equal(replacementFor({ kind: 'worst' }), replaceWorst);
    assert.throws(() => replacementFor('best'), {
      message: 'migration.replacement: expected one of worst-if-better | worst | random-if-better, got "best"',
    });
    // A name near a registered one is suggested.
    assert.throws(() => replacementFor('worst-if-beter'), { message: /, got "worst-if-beter"; did you mean "worst-if-better"\?$/ });
  });

  it('composes with Island.emigrants and Island.immigrate (duplicates rejected on request)', () => {
    const a = new Island({ params: paperParams(12, { populationSize: 30 }), rng: Rng.forStream(3, 0) });
    const b = new Island({ params: paperParams(12, { populationSize: 30 }), rng: Rng.forStream(3, 1) });
    const out = a.emigrants(3, selectBest);
    assert.equal(out.length, 3 * 12);
    const accepted = b.immigrate(out.slice(), 3, replaceWorst);
    assert.equal(accepted, 3);
    // The same three again are now duplicates of members.
    assert.equal(b.immigrate(out.slice(), 3, replaceWorst, true), 0);
  });
});
