/**
 * A run's best fitness by evaluations, kept in its record so that the report can draw
 * fixed-budget curves (best fitness reached within a budget) without event logs. Built from
 * the progress samples the islands send anyway: at each sample, the evaluations of all
 * islands (each at its latest sample) and the best fitness of all islands; a point is kept
 * only where that best improved, so a run holds a few dozen points at most.
 */
import type { ArchipelagoEvent } from '../archipelago/events.ts';

/** [evaluations of all islands, best fitness of the run], evaluations rising, fitness falling. */
export type Trajectory = [evaluations: number, bestFitness: number][];

export class TrajectoryRecorder {
  private readonly evaluations = new Map<number, number>();
  private readonly best = new Map<number, number>();
  private total = 0;
  private readonly points: Trajectory = [];

  /** Takes in one event of the run (only progress samples count). */
  observe(event: ArchipelagoEvent): void {
    if (event.type !== 'progress') return;
    this.total += event.evaluations - (this.evaluations.get(event.island) ?? 0);
    this.evaluations.set(event.island, event.evaluations);
    this.best.set(event.island, Math.min(event.bestFitness, this.best.get(event.island) ?? Infinity));
    const best = Math.min(...this.best.values());
    const last = this.points[this.points.length - 1];
    if (last === undefined || best < last[1]) this.points.push([this.total, best]);
  }

  /**
   * The trajectory, its last point the run's recorded end: its evaluations (to the solution
   * when solved) and fitness. Samples counted past that end (islands that ran on to a
   * barrier) are dropped; a solution is reached at the end, never earlier.
   */
  finish(end: { evaluations: number; fitness: number }): Trajectory {
    const kept = this.points.filter(([x, f]) => x < end.evaluations && f >= end.fitness && f > 0);
    kept.push([end.evaluations, end.fitness]);
    return kept;
  }
}
