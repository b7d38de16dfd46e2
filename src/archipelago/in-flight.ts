/**
 * The migrants in flight at a checkpoint. Islands answer a checkpoint each at its own moment
 * (lagged: between any two of its iterations), so a migrant may have left its source before
 * the source's snapshot and not yet been taken in at the target's: the target's snapshot holds
 * what had reached it (`inbox`), the source's what it sent once the checkpoint was asked
 * for (`sent`), which may reach the target only after. Resumed, each
 * island gets these again, so no migrant is lost or taken twice. Pure.
 */
import type { IslandSnapshot } from './island-snapshot.ts';
import type { MigrantsMessage } from './messages.ts';

/**
 * What island `island` (with in-neighbours `sources`) is to receive first on resuming: every
 * migrant its inbox held or a source's snapshot carries, sent at or before that source's
 * snapshot (what it sent later it sends again), each once, source by source in sending order.
 * What the island had already taken in its mode drops (an older key than the one it waits for).
 */
export function migrantsInFlight(snapshots: readonly IslandSnapshot[], island: number, sources: readonly number[]): MigrantsMessage[] {
  const candidates = [...(snapshots[island].inbox ?? [])];
  for (const s of sources) candidates.push(...(snapshots[s]?.sent ?? []));
  const seen = new Set<string>();
  return candidates
    .filter((m) => sources.includes(m.from) && m.iteration <= snapshots[m.from].state.iterations)
    .sort((a, b) => a.from - b.from || a.iteration - b.iteration)
    .filter((m) => {
      const key = `${m.from}:${m.iteration}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
