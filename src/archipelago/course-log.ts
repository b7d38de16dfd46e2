/**
 * An island's course, exact and without a clock: its evaluations through each iteration and
 * its best fitness so far, kept compactly. An entry (iteration, evaluations, best so far) is
 * logged at its first iteration, at every improvement of its best, at the last iteration
 * before its evaluations per iteration change, and at its last iteration; between two
 * entries the evaluations grow by the same amount every iteration and the best stays. So
 * every iteration's counts can be read back exactly (trajectory.ts), from a log of a few
 * dozen entries for a run of the paper's GA.
 */
export const COURSE_ENTRY = 3; // iteration, evaluations through it, best fitness so far

export class CourseLog {
  private data = new Float64Array(COURSE_ENTRY * 32);
  private length = 0;
  /** The last iteration noted (-1: none yet), its evaluations, and the evaluations it added. */
  private lastIteration = -1;
  private lastEvaluations = 0;
  private lastDelta = NaN;
  private best = Infinity;
  /** The last iteration logged. */
  private logged = -1;

  /** Iteration `iteration` is done (its migration included): `evaluations` through it, `fitness` the island's best now. */
  note(iteration: number, evaluations: number, fitness: number): void {
    const delta = evaluations - this.lastEvaluations;
    // The evaluations per iteration change here: the previous iteration ends an even stretch.
    if (this.lastIteration >= 0 && delta !== this.lastDelta && this.logged !== this.lastIteration)
      this.log(this.lastIteration, this.lastEvaluations);
    this.lastDelta = this.lastIteration >= 0 ? delta : NaN;
    this.lastIteration = iteration;
    this.lastEvaluations = evaluations;
    if (fitness < this.best || this.logged < 0) {
      this.best = Math.min(this.best, fitness);
      this.log(iteration, evaluations);
    }
  }

  /** The log, its last iteration included: COURSE_ENTRY numbers an entry, iterations rising. */
  entries(): Float64Array {
    if (this.lastIteration >= 0 && this.logged !== this.lastIteration) this.log(this.lastIteration, this.lastEvaluations);
    return this.data.slice(0, this.length);
  }

  /** The last iteration noted (-1: none yet). */
  get noted(): number {
    return this.lastIteration;
  }

  /** Its entries and its running state, for a checkpoint. */
  save(): { entries: Float64Array; state: Float64Array } {
    const { lastIteration, lastEvaluations, lastDelta, best, logged } = this;
    return { entries: this.data.slice(0, this.length), state: Float64Array.of(lastIteration, lastEvaluations, lastDelta, best, logged) };
  }

  /** Continues a saved log (`save`). */
  restore(entries: Float64Array, state: Float64Array): void {
    this.data = new Float64Array(Math.max(COURSE_ENTRY * 32, entries.length * 2));
    this.data.set(entries);
    this.length = entries.length;
    [this.lastIteration, this.lastEvaluations, this.lastDelta, this.best, this.logged] = state;
  }

  private log(iteration: number, evaluations: number): void {
    if (this.length + COURSE_ENTRY > this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length] = iteration;
    this.data[this.length + 1] = evaluations;
    this.data[this.length + 2] = this.best;
    this.length += COURSE_ENTRY;
    this.logged = iteration;
  }
}
