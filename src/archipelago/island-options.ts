/** The parts of the archipelago's options that each island's task carries too (messages.ts). */
import type { MigrationMode } from './migration-modes.ts';
import type { EmigrantSelectionSpec, ReplacementKind, ReplacementSpec } from '../migration-policy/lookup.ts';

export interface MigrationOptions {
  /** migration-modes.ts: 'async' islands never wait; 'sync' a global epoch barrier; 'lagged' bounded staleness. */
  mode: MigrationMode;
  /** Lagged: migrants sent at iteration t enter at the receiver's iteration t + lag. */
  lag: number;
  /** Iterations between migrations (an epoch, in sync mode). */
  interval: number;
  /** Emigrants per migration (a count; the config layer resolves fractions). 0 turns migration off. */
  migrants: number;
  emigrantSelection: EmigrantSelectionSpec;
  /** A spec, or for a replacement without options its name. */
  replacement: ReplacementSpec | ReplacementKind;
  /** Drop immigrants equal to a current member. */
  rejectDuplicates: boolean;
}

/**
 * A deliberate fault for tests: island `island`'s worker throws (or exits) on reaching
 * iteration `atIteration`, or (`slow`) sleeps `delayMs` in every iteration from there on.
 */
export interface TestFault {
  island: number;
  atIteration: number;
  kind: 'throw' | 'exit' | 'slow';
  /** `slow` only: milliseconds of sleep per iteration. */
  delayMs?: number;
}
