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
