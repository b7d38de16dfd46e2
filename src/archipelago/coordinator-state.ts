/**
 * The coordinator's state in small named trackers (archipelago.ts holds one of each): the
 * winner, the stop schedule and the islands' ends. Checkpoints are checkpoint-requests.ts.
 */
import type { Failure, Winner } from './run-result.ts';
import { earliestFinder, heldAt } from './run-result.ts';
import type { BestMessage, IslandReport, SolutionMessage } from './messages.ts';
import { wallClock } from './schedule.ts';
import type { Rows } from '../problem/genes.ts';

/** Validates an island's solution (1-based tuple), or says why not and returns null. */
export type Validate = (island: number, genes: SolutionMessage['genes']) => Rows | null;

/**
 * Who won: the claimer (its solution validated as soon as its message arrives), or, under
 * the first-finder rule or when nobody claimed, the earliest finder read from the reports.
 */
export class WinnerTracker {
  /** The claimer's validated solution. */
  claimed: Winner | null = null;
  private invalidClaim = false;

  constructor(private readonly firstFinder: boolean) {}

  /** Takes a claim (the first valid one counts; after an invalid one, none does); the winner if this one won. */
  claim(message: SolutionMessage, validate: Validate): Winner | null {
    if (this.claimed || this.invalidClaim) return null;
    const solution = validate(message.island, message.genes);
    if (!solution) {
      this.invalidClaim = true;
      return null;
    }
    this.claimed = { island: message.island, iteration: message.iteration, solution, foundAt: message.foundAt };
    return this.claimed;
  }

  /**
   * The run's winner once every island ended. A run nobody claimed may still hold a
   * solution (async islands stopped before they looked at their initial population): it is
   * one, validated, whatever ended the run.
   */
  winner(reports: readonly (IslandReport | null)[], validate: Validate): Winner | null {
    if (!this.firstFinder && this.claimed) return this.claimed;
    const finder = earliestFinder(reports);
    const solution = finder ? validate(finder.island, finder.solution!) : null;
    return finder && solution
      ? { island: finder.island, iteration: heldAt(finder), solution, foundAt: finder.foundAt || finder.stoppedAt }
      : null;
  }

  /** The result's solution was not announced as a claim (first-finder, or nobody claimed): announce it at the end. */
  get announcesAtEnd(): boolean {
    return this.firstFinder || !this.claimed;
  }
}

/** When the run stops: the halt, the grace period after it, the time limit; what is left to clear at the end. */
export class StopSchedule {
  /** When the coordinator halted the run (wall ms), if it did. */
  haltedAt: number | null = null;
  /** Workers are being terminated after the stop's grace period. */
  terminating = false;
  finished = false;
  private graceTimer: NodeJS.Timeout | undefined;
  private readonly timeLimit: NodeJS.Timeout | undefined;

  constructor(
    private readonly graceMs: number,
    private readonly terminate: () => void,
    timeLimitSeconds: number | null,
    onTimeLimit: () => void,
  ) {
    this.timeLimit = timeLimitSeconds !== null ? setTimeout(onTimeLimit, timeLimitSeconds * 1000) : undefined;
  }

  /** The coordination's halt took (it was the first): note when. */
  halted(): void {
    this.haltedAt = wallClock();
  }

  /** Islands stop by themselves within milliseconds; terminate workers only if one does not. */
  startGrace(): void {
    if (this.graceTimer || this.finished) return;
    this.graceTimer = setTimeout(() => {
      this.terminating = true;
      this.terminate();
    }, this.graceMs);
  }

  finish(): void {
    this.finished = true;
    clearTimeout(this.timeLimit);
    clearTimeout(this.graceTimer);
  }
}

/** What each island said last and how it ended: its report or its failure, its best and evaluations so far, the start gate. */
export class IslandEnds {
  readonly reports: (IslandReport | null)[];
  readonly failures: (Failure | null)[];
  /** The best each island has reported so far (what counts for an island that ends without a report). */
  readonly lastBest: (BestMessage | null)[];
  /** Each island's evaluations at its last progress message (what counts for an island without a report). */
  readonly lastEvaluations: number[];
  /** When the last island passed the start gate (so far): the search's clock starts here. */
  searchFrom: number | null = null;
  started = 0;

  constructor(readonly islands: number) {
    this.reports = new Array<IslandReport | null>(islands).fill(null);
    this.failures = new Array<Failure | null>(islands).fill(null);
    this.lastBest = new Array<BestMessage | null>(islands).fill(null);
    this.lastEvaluations = new Array<number>(islands).fill(0);
  }

  /** An island passed the start gate at `time`; true when it was the last. */
  start(time: number): boolean {
    this.searchFrom = Math.max(this.searchFrom ?? time, time);
    return ++this.started === this.islands;
  }

  get allStarted(): boolean {
    return this.started === this.islands;
  }

  get anyFailed(): boolean {
    return this.failures.some((f) => f !== null);
  }
}
