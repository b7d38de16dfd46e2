/**
 * How long paper mode takes to solve board size N, for the one-line advice `solve` prints
 * before it builds populations at an N paper mode cannot finish in reasonable time. The
 * model is a power law in N for the CPU time a whole solve takes with the default config
 * (population 1000, lagged migration, islands = cores), fitted by least squares on the log of
 * the median CPU seconds of measured runs; the wall time is that CPU time over the cores the
 * islands get. docs/large-n.md gives the runs, the fit and how to refit it.
 */
import type { GaConfig } from './run-config.ts';

/** CPU seconds ≈ COEFFICIENT × N ^ EXPONENT (docs/large-n.md, "The model behind the estimate"). */
export const PAPER_CPU_MODEL = { coefficient: 6.1e-5, exponent: 1.8 } as const;

/** Past this estimate (one hour), `solve` says so before it starts. */
export const LONG_RUN_SECONDS = 3600;

/** Estimated wall seconds for paper mode to solve `n` with `parallel` islands running at once (islands on cores of their own). */
export function paperSeconds(n: number, parallel: number): number {
  const { coefficient, exponent } = PAPER_CPU_MODEL;
  return (coefficient * n ** exponent) / Math.max(1, parallel);
}

/** `40 minutes`, `5.4 hours`, `3.1 days`: the estimate as people read it (a lower bound past the fitted range: docs/large-n.md). */
export function roughDuration(seconds: number): string {
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} minutes`;
  if (seconds < 2 * 86400) return `${(seconds / 3600).toFixed(1)} hours`;
  if (seconds < 365 * 86400) return `${(seconds / 86400).toFixed(1)} days`;
  return `${(seconds / (365 * 86400)).toFixed(1)} years`;
}

/**
 * For a paper-mode solve the model expects to take at least `atLeast` seconds: the model's
 * estimate as one line that says it is one (progress lines print it once); else null.
 */
export function solveEstimate(run: { n: number; ga: Pick<GaConfig, 'mode'> }, parallel: number, atLeast: number): string | null {
  if (run.ga.mode !== 'paper') return null;
  const seconds = paperSeconds(run.n, parallel);
  if (seconds < atLeast) return null;
  const about = seconds < 120 ? `${Math.round(seconds)} seconds` : roughDuration(seconds);
  return `estimate: a whole paper-mode solve at N = ${run.n} takes about ${about} on ${parallel} core${parallel === 1 ? '' : 's'} (the large-N model of docs/large-n.md, fitted to the median of default-config runs: an estimate, not a promise; a run may take several times as long)`;
}

/** For a paper-mode run that would take past LONG_RUN_SECONDS: how long, as a clause, else null. */
function tooLong(run: { n: number; ga: Pick<GaConfig, 'mode'> }, parallel: number): string | null {
  if (run.ga.mode !== 'paper') return null;
  const seconds = paperSeconds(run.n, parallel);
  if (seconds <= LONG_RUN_SECONDS) return null;
  return `paper mode at N = ${run.n} would take at least about ${roughDuration(seconds)} on ${parallel} core${parallel === 1 ? '' : 's'} (docs/large-n.md)`;
}

const USE_HYBRID = 'for large N use --mode hybrid (docs/hybrid.md), which solves N = 10^6 in seconds';

/**
 * The one line for a paper-mode run whose estimate passes LONG_RUN_SECONDS, else null (other
 * modes, or a run the model expects to finish within the hour). `parallel`: islands that run
 * at once (the islands, at most the cores that run them).
 */
export function largeNAdvice(run: { n: number; ga: Pick<GaConfig, 'mode'> }, parallel: number): string | null {
  const long = tooLong(run, parallel);
  return long === null ? null : `${long}; ${USE_HYBRID}`;
}

/** What a memory refusal suggests for a paper-mode run that fewer islands would not rescue either (null otherwise). */
export function hybridInstead(run: { n: number; ga: Pick<GaConfig, 'mode'> }): string | null {
  // One island: the fewest the memory check could offer, so the longest such a run would take.
  const long = tooLong(run, 1);
  return long === null ? null : `and even then ${long}: ${USE_HYBRID}`;
}
