/**
 * `solve`'s progress when stderr is not a terminal (a batch job's log, `2> run.log`): a plain
 * line every few seconds from the islands' latest progress samples, where a terminal gets the
 * live view. `-q` turns it off.
 */
import type { Observable } from 'rxjs';
import type { ArchipelagoEvent, ProgressEvent } from '../archipelago/events.ts';

/** Seconds between lines. */
export const PROGRESS_LINE_SECONDS = 5;
/** Test hook: milliseconds between lines instead (a test sees lines without a long run). */
export const PROGRESS_LINE_ENV = 'NQUEENS_ISLANDS_PROGRESS_MS';

/** `progress: 12.0 s, iteration 4100, best 3, 8.35M evaluations, 0.70M evaluations/s` from each island's latest sample. */
export function progressLine(latest: ReadonlyMap<number, ProgressEvent>, seconds: number): string {
  let iteration = 0;
  let best = Infinity;
  let evaluations = 0;
  for (const sample of latest.values()) {
    iteration = Math.max(iteration, sample.iteration);
    best = Math.min(best, sample.bestFitness);
    evaluations += sample.evaluations;
  }
  const rate = seconds > 0 ? evaluations / seconds : 0;
  return (
    `progress: ${seconds.toFixed(1)} s, iteration ${iteration}, best ${best}, ` +
    `${(evaluations / 1e6).toFixed(2)}M evaluations, ${(rate / 1e6).toFixed(2)}M evaluations/s`
  );
}

/** Writes a progress line with `print` every PROGRESS_LINE_SECONDS while samples come; `close()` stops. */
export function showProgressLines(events$: Observable<ArchipelagoEvent>, print: (line: string) => void): { close(): void } {
  const latest = new Map<number, ProgressEvent>();
  const started = performance.now();
  let fresh = false;
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
    print(progressLine(latest, (performance.now() - started) / 1000));
  }, everyMs).unref();
  return {
    close() {
      clearInterval(timer);
      subscription.unsubscribe();
    },
  };
}
