import type { Genes } from '../problem/genes.ts';

/** Emigrants along one edge. `epoch` is the sync barrier number (0 in async mode). */
export interface MigrantsMessage {
  type: 'migrants';
  from: number;
  epoch: number;
  /** The sender's completed iterations when it sent. */
  iteration: number;
  count: number;
  genes: Genes;
  /** Lineage: each migrant's island of origin (ga/lineage.ts), in order; absent when not tracked. */
  origins?: Uint16Array;
}
