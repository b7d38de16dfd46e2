/**
 * The record's cut: what a run's record holds of its course, so that a seed repeats it in
 * sync and lagged modes whatever the threads' timing (docs/experiments.md, "What the record holds exactly").
 * Islands may run on past the point the record counts (lagged islands past the run's cut,
 * every island of a run its GA mode's hook halts, until the halt reaches it); what they did
 * there depends on timing and is left out. Pure.
 */
import type { ArchipelagoEvent, ArchipelagoResult } from './events.ts';
import type { BetweenPoint } from './observables/between.ts';

/**
 * The first iteration whose between-island samples the record does not hold: a solved run's
 * winning iteration (the record's course is before it, as its trajectory's is; the sample of
 * the initial populations, taken before any step, is always held); otherwise `modeCut`, the
 * cut of the run's GA mode (its coordinator hook's `recordCut`; Infinity: the islands stopped
 * where the record counts).
 */
export function observablesCut(foundAtIteration: number | null, modeCut: number): number {
  return foundAtIteration !== null ? Math.max(1, foundAtIteration) : modeCut;
}

/** The samples of a series before `cut`. */
export function betweenBefore(series: readonly BetweenPoint[], cut: number): BetweenPoint[] {
  return series.filter((p) => p.iteration < cut);
}

/**
 * Whether the record holds `event`: drops what an island did past the iteration its record
 * counts (`result.islands[k].iterations`): its progress samples past it, the survival checks
 * made after it, and migrants taken in beyond the count its record gives (migrantsReceived:
 * events come in the order the island took them in); and `between` samples the record's series
 * leaves out. An island without a report (failed) keeps all it sent. Build one per result.
 */
export function recordHolds(result: ArchipelagoResult): (event: ArchipelagoEvent) => boolean {
  const islands = result.islands;
  const between = new Set((result.between ?? []).map((p) => p.iteration));
  const received = islands.map(() => 0);
  const counted = (k: number) => islands[k]?.stopReason != null;
  return (event) => {
    switch (event.type) {
      case 'progress':
        return !counted(event.island) || event.iteration <= islands[event.island].iterations;
      case 'survival':
        return !counted(event.to) || event.iteration + event.after <= islands[event.to].iterations;
      case 'migration':
        if (!counted(event.to)) return true;
        received[event.to] += event.sent;
        return received[event.to] <= (islands[event.to].migrantsReceived ?? Infinity);
      case 'between':
        return between.has(event.iteration);
      default:
        return true;
    }
  };
}

/** The events of a run kept for its record (a study's events/ file): every event as it came, then those the record holds. */
export class RecordEvents {
  private readonly events: ArchipelagoEvent[] = [];

  add(event: ArchipelagoEvent): void {
    if (event.type !== 'done') this.events.push(event);
  }

  /** One JSON line (without its newline) per event the record holds. */
  lines(result: ArchipelagoResult): string[] {
    const holds = recordHolds(result);
    return this.events.filter(holds).map((e) => JSON.stringify(e));
  }
}
