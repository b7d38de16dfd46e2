/**
 * What keeps a host's relay cheap (issue 50): its own young-generation collections every
 * YOUNG_GC_BYTES of migrants (launcher/young-gc.ts), and lagged arrivals sent to other hosts
 * every few iterations only (a mode's `arrivalsEvery`, launcher/island-relay.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { arrivalDue } from '../src/cluster/launcher/island-relay.ts';
import { YOUNG_GC_BYTES, YoungCollection } from '../src/cluster/launcher/young-gc.ts';
import { DEPARTED } from '../src/archipelago/coordination.ts';
import { migrationModeOf } from '../src/archipelago/modes/registry.ts';

/** Forced minor collections seen while `body` runs (the observer's entries come after it). */
async function forcedMinorGcs(body: () => void): Promise<number> {
  const seen: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => seen.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  body();
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return seen.filter((e) => {
    const detail = (e as PerformanceEntry & { detail: { kind: number; flags: number } }).detail;
    return detail.kind === constants.NODE_PERFORMANCE_GC_MINOR && (detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0;
  }).length;
}

describe("a host relay's young collections", () => {
  it('collects the young generation once every YOUNG_GC_BYTES relayed, not before', async () => {
    const young = new YoungCollection();
    assert.equal(await forcedMinorGcs(() => young.relayed(YOUNG_GC_BYTES - 1)), 0);
    assert.equal(await forcedMinorGcs(() => young.relayed(1)), 1);
    assert.equal(await forcedMinorGcs(() => young.relayed(YOUNG_GC_BYTES / 2)), 0, 'the count starts again');
    assert.equal(
      await forcedMinorGcs(() => {
        for (let k = 0; k < 4; k++) young.relayed(YOUNG_GC_BYTES / 2);
      }),
      2,
    );
  });
});

describe('arrivals sent to other hosts', () => {
  it('every arrival in sync (each is a barrier), every 64th iteration in lagged', () => {
    assert.equal(migrationModeOf('sync').arrivalsEvery ?? 1, 1);
    assert.equal(migrationModeOf('lagged').arrivalsEvery, 64);
  });

  it('the first, the start gate and a departure at once; others once `every` iterations on', () => {
    assert.equal(arrivalDue(undefined, -1, 64), true, 'the first state');
    assert.equal(arrivalDue(-1, 0, 64), true, 'the start gate');
    assert.equal(arrivalDue(0, 1, 64), false);
    assert.equal(arrivalDue(0, 63, 64), false);
    assert.equal(arrivalDue(0, 64, 64), true);
    assert.equal(arrivalDue(64, 100, 64), false);
    assert.equal(arrivalDue(100, DEPARTED, 64), true, 'a departure');
    assert.equal(arrivalDue(5, 6, 1), true, 'sync: every one');
  });
});
