import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextSampleIteration, scheduledAtOrBefore } from '../src/archipelago/schedule.ts';
import { startRun, type ProgressEvent } from '../src/index.ts';

describe('progress samples by iteration', () => {
  it('come at iterations 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, ...', () => {
    const seen: number[] = [];
    for (let i = 0; seen.length < 14; i = nextSampleIteration(i)) seen.push(i);
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96]);
    assert.equal(nextSampleIteration(5), 6);
    assert.equal(nextSampleIteration(1000), 1024);
    // A long run adds about 2 log2(iterations) of them: 40 up to a million.
    let count = 0;
    for (let i = 0; i <= 1_000_000; i = nextSampleIteration(i)) count++;
    assert.equal(count, 40);
    // Where a takeover run's halt waits (the last sample at or before the takeover).
    assert.deepEqual([0, 1, 4, 5, 13, 16, 23, 24, 1000].map(scheduledAtOrBefore), [0, 1, 4, 4, 12, 16, 16, 24, 768]);
  });

  it("give a short run several points per island: its start, iteration samples, its end at the finder's fitness 0", async () => {
    // Sync: the run is the same every time, so the iteration samples are too (timed ones may add to them).
    const run = startRun({ n: 16, seed: 11, islands: 2, topology: { kind: 'ring' }, migration: { mode: 'sync', interval: 4 } });
    const progress: ProgressEvent[] = [];
    run.events$.subscribe((e) => e.type === 'progress' && progress.push(e));
    const record = await run.result;
    assert.equal(record.solved, true);
    for (const island of [0, 1]) {
      const own = progress.filter((p) => p.island === island);
      const iterations = own.map((p) => p.iteration);
      assert.equal(iterations[0], 0, 'a sample at the start');
      const last = record.islands[island].iterations;
      assert.equal(iterations.at(-1), last, 'a sample at the end');
      for (let i = 1; i <= last; i = nextSampleIteration(i))
        assert.ok(iterations.includes(i), `island ${island}: a sample at iteration ${i}`);
      assert.ok(own.length >= 3, `island ${island}: ${own.length} samples`);
    }
    assert.equal(progress.filter((p) => p.island === record.foundBy).at(-1)!.bestFitness, 0);
  });
});
