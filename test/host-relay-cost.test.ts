/**
 * What keeps a host's relay cheap (issue 50): its own young-generation collections every
 * YOUNG_GC_BYTES of migrants (launcher/young-gc.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { YOUNG_GC_BYTES, YoungCollection } from '../src/cluster/launcher/young-gc.ts';

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
