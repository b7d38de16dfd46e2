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

  /** What a reader at `cursor` has not seen: the new points, or all of them after a halving. */
  since(cursor: SeriesCursor): { reset: boolean; points: T[] } | null {
    const reset = cursor.epoch !== this.epoch;
    const from = reset ? 0 : cursor.length;
    cursor.epoch = this.epoch;
    cursor.length = this.points.length;
    if (!reset && from === this.points.length) return null;
    return { reset, points: this.points.slice(from) };
  }
}

/** How far one reader has read a series. */
export interface SeriesCursor {
  epoch: number;
  length: number;
}

export function newCursor(): SeriesCursor {
  return { epoch: -1, length: 0 };
}
