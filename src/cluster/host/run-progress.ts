/**
 * A study member's run as it goes, told to the study's coordinator (`run-progress`), so that
 * `experiment --nats --serve` shows the runs going on at hosts: each island's latest progress
 * sample, only the islands that changed, at most once a period and MAX_PROGRESS_ISLANDS per
 * message (the islands that changed longest ago go first; the rest wait their turn).
 */
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import { MAX_PROGRESS_ISLANDS, type ProgressSample } from '../bus/messages.ts';

/** How often a host tells its run's progress. */
export const PROGRESS_PERIOD_MS = 1000;

export class ProgressFeed {
  /** Each island's latest sample, in the order they changed (a changed island goes to the end). */
  private readonly latest = new Map<number, ProgressSample>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly send: (islands: ProgressSample[]) => void,
    periodMs = PROGRESS_PERIOD_MS,
  ) {
    this.timer = setInterval(() => this.flush(), periodMs).unref();
  }

  add(event: ArchipelagoEvent): void {
    if (event.type !== 'progress') return;
    const { island, iteration, evaluations, bestFitness, meanFitness, diversity, migrantsSent, migrantsAccepted, seconds } = event;
    this.latest.delete(island);
    // A diversity not measured (a population of one) goes as 0: the message takes only shares.
    const share = Number.isFinite(diversity) ? Math.min(1, Math.max(0, diversity)) : 0;
    this.latest.set(island, [island, iteration, evaluations, bestFitness, meanFitness, share, migrantsSent, migrantsAccepted, seconds]);
  }

  /** Sends what changed (the first MAX_PROGRESS_ISLANDS of it). */
  flush(): void {
    if (this.latest.size === 0) return;
    const islands: ProgressSample[] = [];
    for (const [island, sample] of this.latest) {
      if (islands.length === MAX_PROGRESS_ISLANDS) break;
      islands.push(sample);
      this.latest.delete(island);
    }
    this.send(islands);
  }

  close(): void {
    clearInterval(this.timer);
  }
}
