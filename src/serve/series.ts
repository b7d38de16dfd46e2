/**
 * A series of points kept within a fixed size however long the run goes: when it fills up,
 * every other point goes and from then on only every other new point is kept (the stride
 * doubles), so an hour-long run keeps the same number of points as a minute-long one, spread
 * over all of it. The latest point is always kept as `last`, so the view ends where the run is.
 */
export class DecimatedSeries<T> {
  readonly points: T[] = [];
  /** Bumped at each halving: a reader that had `points` before must take them all again. */
  epoch = 0;
  last: T | null = null;
  private stride = 1;
  private seen = 0;

  constructor(private readonly capacity: number) {}

  push(point: T): void {
    this.last = point;
    if (this.seen++ % this.stride !== 0) return;
    this.points.push(point);
    if (this.points.length < this.capacity) return;
    let kept = 0;
    for (let i = 0; i < this.points.length; i += 2) this.points[kept++] = this.points[i];
    this.points.length = kept;
    this.stride *= 2;
    this.epoch++;
  }

  /**
   * What a reader at `cursor` has not seen: the new points, or all of them after a halving,
   * and the latest point (which the stride may have left out), so a chart ends at the stop.
   */
  since(cursor: SeriesCursor): SeriesPart<T> | null {
    const reset = cursor.epoch !== this.epoch;
    const from = reset ? 0 : cursor.length;
    const lastChanged = cursor.last !== this.last;
    cursor.epoch = this.epoch;
    cursor.length = this.points.length;
    cursor.last = this.last;
    if (!reset && from === this.points.length && !lastChanged) return null;
    return { reset, points: this.points.slice(from), last: this.last };
  }
}

/** A reader's part of a series: new points (all of them when `reset`) and the latest point. */
export interface SeriesPart<T> {
  reset: boolean;
  points: T[];
  last: T | null;
}

/** How far one reader has read a series. */
export interface SeriesCursor {
  epoch: number;
  length: number;
  last: unknown;
}

export function newCursor(): SeriesCursor {
  return { epoch: -1, length: 0, last: null };
}
