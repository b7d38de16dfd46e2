/**
 * `solve`'s progress when stderr is not a terminal (a batch job's log, `2> run.log`): a plain
 * line every few seconds from the islands' latest progress samples, where a terminal gets the
 * live view. `-q` turns it off. The rate is the current one, over the last interval (a mean
 * since the start hides a slowdown, and after `--resume` it would count the checkpoint's
 * evaluations as done in this sitting's time); the evaluations of this sitting are said
 * beside the run's total. A long solve gets, once, the large-N model's estimate of its time.
 */
import type { Observable } from 'rxjs';
import type { ArchipelagoEvent, ProgressEvent } from '../archipelago/events.ts';

/** Seconds between lines. */
export const PROGRESS_LINE_SECONDS = 5;
/** Test hook: milliseconds between lines instead (a test sees lines without a long run). */
export const PROGRESS_LINE_ENV = 'NQUEENS_ISLANDS_PROGRESS_MS';

/** The islands' latest samples summed: the furthest iteration, the best fitness, every island's evaluations. */
function totals(latest: ReadonlyMap<number, ProgressEvent>): { iteration: number; best: number; evaluations: number } {
  let iteration = 0;
  let best = Infinity;
  let evaluations = 0;
  for (const sample of latest.values()) {
    iteration = Math.max(iteration, sample.iteration);
    best = Math.min(best, sample.bestFitness);
    evaluations += sample.evaluations;
  }
  return { iteration, best, evaluations };
}

const millions = (count: number) => `${(count / 1e6).toFixed(2)}M`;

/** What a line needs besides the samples: this sitting's start and the previous line's point. */
export interface LinePoint {
  /** Seconds since this sitting started. */
  seconds: number;
  /** Evaluations the run had when this sitting started (a checkpoint's; 0 for a new run). */
  startEvaluations: number;
  /** The previous line's seconds and evaluations (this sitting's start for the first line). */
  previous: { seconds: number; evaluations: number };
}

/**
 * `progress: 12.0 s, iteration 4100, best 3, 8.35M evaluations (2.10M this sitting), 0.70M evaluations/s over the last 5.0 s`
 * from each island's latest sample.
 */
export function progressLine(latest: ReadonlyMap<number, ProgressEvent>, point: LinePoint): string {
  const { iteration, best, evaluations } = totals(latest);
  const span = point.seconds - point.previous.seconds;
  const rate = span > 0 ? Math.max(0, evaluations - point.previous.evaluations) / span : 0;
  const sitting = point.startEvaluations > 0 ? ` (${millions(Math.max(0, evaluations - point.startEvaluations))} this sitting)` : '';
  return (
    `progress: ${point.seconds.toFixed(1)} s, iteration ${iteration}, best ${best}, ` +
    `${millions(evaluations)} evaluations${sitting}, ${millions(rate)} evaluations/s over the last ${span.toFixed(1)} s`
  );
}

export interface ProgressLineOptions {
  /** The run's evaluations when this sitting started: a resumed checkpoint's. */
  startEvaluations?: number;
  /** Said once after the first line: the model's estimate of a long solve's time, or null. */
  estimate?: string | null;
}

/** Writes a progress line with `print` every PROGRESS_LINE_SECONDS while samples come; `close()` stops. */
export function showProgressLines(
  events$: Observable<ArchipelagoEvent>,
  print: (line: string) => void,
  { startEvaluations = 0, estimate = null }: ProgressLineOptions = {},
): { close(): void } {
  const latest = new Map<number, ProgressEvent>();
  const started = performance.now();
  let fresh = false;
  let previous = { seconds: 0, evaluations: startEvaluations };
  let toSay = estimate;
  const subscription = events$.subscribe((event) => {
    if (event.type !== 'progress') return;
    latest.set(event.island, event);
    fresh = true;
  });
  const env = Number(process.env[PROGRESS_LINE_ENV]);
  const everyMs = env > 0 ? env : PROGRESS_LINE_SECONDS * 1000;
  const timer = setInterval(() => {
    // No new sample (a stalled start-up, a waiting cluster): nothing new to say.
    if (!fresh) return;
    fresh = false;
    const seconds = (performance.now() - started) / 1000;
    print(progressLine(latest, { seconds, startEvaluations, previous }));
    previous = { seconds, evaluations: totals(latest).evaluations };
    if (toSay !== null) print(toSay);
    toSay = null;
  }, everyMs).unref();
  return {
    close() {
      clearInterval(timer);
      subscription.unsubscribe();
    },
  };
}
