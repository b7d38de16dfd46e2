/**
 * One island's side of the evaluation ledger (budget-ledger.ts): it publishes its
 * evaluations after each iteration and its migration, and starts iteration t + 1 only once
 * the run's E(t) is known to be within the budget. It keeps its counters and best chromosome
 * at the last iteration so confirmed (`verified`): the point a censored record counts. A
 * solution at iteration k lifts the gate from k on (the run then stops as the unlimited run
 * does); every island still confirms each t < k, so that the coordinator can censor the run
 * at k - 1 if its solution cost more than the budget.
 */
import type { Evolver } from '../ga/evolver.ts';
import type { Genes } from '../problem/genes.ts';
import type { BudgetLedger } from './budget-ledger.ts';
import { HALTED, type IslandCoordination } from './coordination.ts';
import { MEASURE_NAMES, type IslandCounters, type Measures } from './island-counters.ts';
import { WAITING, type Steps } from './island-thread.ts';

/** Iteration, evaluations and the best, then each measure in MEASURE_NAMES order. */
export const BUDGET_FIELDS = 3 + MEASURE_NAMES.length;

/** What the gate says before an iteration. */
export type GateAnswer = 'go' | 'over' | 'halted';

/** What a report or a snapshot carries of the island's state at its last confirmed iteration. */
export interface BudgetPoint {
  counters: Float64Array;
  best: Genes | null;
}

export class BudgetGate {
  /** The state at the last iteration t with E(t) <= budget confirmed (iteration -1: none yet). */
  private readonly verified = new Float64Array(BUDGET_FIELDS).fill(-1);
  private best: Genes | null = null;

  constructor(
    private readonly island: number,
    private readonly ledger: BudgetLedger,
    private readonly budget: number,
    private readonly shared: IslandCoordination,
  ) {}

  /**
   * Before the start gate: publishes the island's count now (and, resumed, at the confirmed
   * iteration before it), so that every island can confirm the first iteration it waits for.
   */
  start(evolver: Evolver, saved: BudgetPoint | undefined): void {
    if (saved) {
      this.verified.set(saved.counters);
      this.best = saved.best;
      if (this.verified[0] >= 0 && this.verified[0] < evolver.iterations)
        this.ledger.publish(this.island, this.verified[0], this.verified[1]);
    }
    this.published(evolver);
  }

  /** Iteration `evolver.iterations` and its migration are done. */
  published(evolver: Evolver): void {
    this.ledger.publish(this.island, evolver.iterations, evolver.evaluations);
  }

  /** This island holds a solution at its iteration now. */
  found(evolver: Evolver): void {
    this.ledger.reportFound(evolver.iterations);
  }

  /** Before the next iteration: 'go' once E(t) <= budget is known (t: the iteration done), 'over' if it is past it. */
  *gate(evolver: Evolver, measures: Readonly<Measures>): Steps<GateAnswer> {
    const t = evolver.iterations;
    if (t <= this.verified[0]) return 'go';
    for (;;) {
      if (this.shared.stopState() === HALTED) return 'halted';
      const e = this.ledger.evaluationsAt(t);
      // A solution at t or before governs from here (read after the ledger: a solver that left
      // published nothing past its solution); the islands stop as without a budget.
      if (t >= this.ledger.found()) return 'go';
      if (e !== null) {
        if (e > this.budget) return 'over';
        this.confirm(evolver, measures);
        return 'go';
      }
      yield WAITING;
    }
  }

  /** The state now is the last confirmed one (its best chromosome copied only when its fitness changed). */
  private confirm(evolver: Evolver, measures: Readonly<Measures>): void {
    const v = this.verified;
    const best = evolver.bestFitness();
    if (this.best === null || best !== v[2]) {
      const genes = evolver.best();
      if (this.best === null || this.best.length !== genes.length) this.best = genes.slice();
      else this.best.set(genes);
    }
    v[0] = evolver.iterations;
    v[1] = evolver.evaluations;
    v[2] = best;
    for (let k = 0; k < MEASURE_NAMES.length; k++) v[3 + k] = measures[MEASURE_NAMES[k]];
  }

  /** The counters at the last confirmed iteration (null: none yet). */
  counted(): IslandCounters | null {
    return countersOf(this.verified);
  }

  bestAtCount(): Genes | null {
    return this.best;
  }

  /** For a report (the coordinator censors a solved run past the budget at this point) or a snapshot. */
  point(): BudgetPoint {
    return { counters: this.verified.slice(), best: this.best ? this.best.slice() : null };
  }
}

/** The counters a BudgetPoint holds (null: no iteration confirmed). */
export function countersOf(v: Float64Array): IslandCounters | null {
  if (v.length !== BUDGET_FIELDS || v[0] < 0) return null;
  const counters = { iterations: v[0], evaluations: v[1], bestFitness: v[2] } as IslandCounters;
  MEASURE_NAMES.forEach((name, k) => (counters[name] = v[3 + k]));
  return counters;
}
