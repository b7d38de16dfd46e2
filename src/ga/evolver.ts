import type { Genes } from '../problem/genes.ts';
import type { EmigrantSelection, ReplacementPolicy } from './migration-policy.ts';
import type { Population } from './population.ts';
import type { Rng } from './rng.ts';
import type { IslandState } from './snapshot.ts';
import type { GaModeSampleFields } from './modes/coordinator-hook.ts';

/**
 * What the island model needs from one island's algorithm, whatever it is (the paper's
 * GA in `Island`, or a hybrid beyond the paper). Workers and tests drive this interface.
 */
export interface Evolver {
  readonly n: number;
  readonly population: Population;
  readonly rng: Rng;
  iterations: number;
  evaluations: number;
  /**
   * Evaluations the island may reach (Infinity: no limit). Once `evaluations` reaches it, a
   * generation is abandoned (uncounted) and immigrants beyond it are dropped unevaluated, so
   * the count never passes it.
   */
  evaluationBudget: number;
  /** 0-based genes of the first chromosome found with fitness 0, once found. */
  solution: Genes | null;
  /** One iteration; true once a solution is known. */
  step(): boolean;
  bestFitness(): number;
  best(): Genes;
  /** k members chosen by `select`, flat; an island may lend its own array, valid until its next step or migration (the hybrid's does). */
  emigrants(k: number, select: EmigrantSelection): Genes;
  /** `origins`: the immigrants' islands of origin (lineage), in their order. */
  immigrate(genes: Genes, count: number, replace: ReplacementPolicy, rejectDuplicates?: boolean, origins?: Uint16Array): number;
  /** Lineage (ga/lineage.ts): starts tracking each member's island of origin, `home` for all or a checkpoint's. An evolver without it has no lineage. */
  trackLineage?(home: number, origins?: Uint16Array): void;
  /** The origins of the emigrants chosen last (null: lineage not tracked); lent, as `emigrants`' genes may be: valid until the next call. */
  emigrantOrigins?(): Uint16Array | null;
  /**
   * Frees what the island no longer needs once it holds a solution and reports it (the
   * hybrid's boards at large N); nothing reads its population after. Optional: others keep all.
   */
  release?(): void;
  /** A copy of the whole GA state between two iterations (a checkpoint's part). */
  snapshot(): IslandState;
  /**
   * Modes with a coordinator hook (modes/coordinator-hook.ts): a number whose change the
   * island reports at once, and the fields its samples and its report carry to the hook.
   */
  modeSignal?(): number;
  modeFields?(): GaModeSampleFields;
}

/** Where an island sits in its run, for modes whose islands differ (the takeover mode's best island). */
export interface IslandPlace {
  island: number;
  seed: number;
}
