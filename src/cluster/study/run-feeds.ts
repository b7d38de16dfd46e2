/**
 * The runs going on at hosts, as the study's hooks see a run on this machine (`onRunEvents`,
 * what `experiment --nats --serve` shows): a run a host started gets an event stream, fed with
 * progress events from that host's `run-progress` messages, and ended when the run's result
 * lands, its host goes or the study ends. Everything here came from the bus: only the host
 * that started a run feeds it, only with islands the run has; the streams are bounded by the
 * study's runs (one each, a restart replaces it).
 */
import { Subject } from 'rxjs';
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import type { PlannedRun, StudyHooks } from '../../experiment/runner.ts';
import type { BusEndpoint } from '../bus/endpoint.ts';
import type { BusMessage } from '../bus/messages.ts';

interface Feed {
  /** The id of the host that started it: the only one that may feed it. */
  host: string;
  islands: number;
  events: Subject<ArchipelagoEvent>;
}

export class RunFeeds {
  private readonly feeds = new Map<string, Feed>();

  constructor(private readonly hooks: StudyHooks) {}

  /** Feeds a study's `run-progress` messages on `subject` to the runs' streams; anything else is dropped and counted. */
  listen(bus: BusEndpoint, subject: string, session: string): void {
    if (!this.hooks.onRunEvents) return;
    bus.listen(subject, ['run-progress'], (message, from) => {
      if (message.session !== session) return void bus.dropped.malformed++;
      if (!this.progress(message, from)) bus.dropped.unauthenticated++;
    });
  }

  /** Host `from` started `planned` (as `runId`): its run gets a stream (a run started again, a new one). */
  started(runId: string, planned: PlannedRun, from: string): void {
    if (!this.hooks.onRunEvents) return;
    this.end(runId);
    const feed: Feed = { host: from, islands: planned.cell.config.islands, events: new Subject() };
    this.feeds.set(runId, feed);
    this.hooks.onRunEvents(planned, feed.events);
  }

  /** False when `from` is not the host running it (or the run is not going on). */
  private progress(message: BusMessage<'run-progress'>, from: string): boolean {
    const feed = this.feeds.get(message.runId);
    if (feed === undefined || feed.host !== from) return false;
    for (const [
      island,
      iteration,
      evaluations,
      bestFitness,
      meanFitness,
      diversity,
      migrantsSent,
      migrantsAccepted,
      seconds,
    ] of message.islands) {
      if (island >= feed.islands) continue;
      feed.events.next({
        type: 'progress',
        island,
        iteration,
        evaluations,
        bestFitness,
        meanFitness,
        diversity,
        migrantsSent,
        migrantsAccepted,
        seconds,
      });
    }
    return true;
  }

  /** The run ended (its result landed) or was given back. */
  end(runId: string): void {
    this.feeds.get(runId)?.events.complete();
    this.feeds.delete(runId);
  }

  /** Host `hostId` left or was lost: its runs are no longer going on there. */
  hostGone(hostId: string): void {
    for (const [runId, feed] of this.feeds) if (feed.host === hostId) this.end(runId);
  }

  close(): void {
    for (const runId of [...this.feeds.keys()]) this.end(runId);
  }
}
