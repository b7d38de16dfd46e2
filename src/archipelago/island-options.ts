/** The parts of the archipelago's options that each island's task carries too (messages.ts). */
import type { EmigrantSelectionSpec, ReplacementKind, ReplacementSpec } from './policies/lookup.ts';

export interface MigrationOptions {
  /** 'async' (default): islands never wait. 'sync': a global epoch barrier; repeatable. */
  mode: 'sync' | 'async';
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

/** A deliberate failure for tests: island `island`'s worker throws (or exits) on reaching iteration `atIteration`. */
export interface TestFault {
  island: number;
  atIteration: number;
  kind: 'throw' | 'exit';
}
