// The replay's cut of a run view's state: the run as it was at an iteration.

/** The run as it was at iteration `t`: series cut there, each island's numbers from its last sample then, the latest matrix then. */
export function cutAt(s, t) {
  const upTo = (points) => points.filter((p) => p[0] <= t);
  const series = {};
  const last = {};
  for (const [i, points] of Object.entries(s.series)) series[i] = upTo(withLast(points, s.last[i]));
  const islands = s.islands.map((island) => {
    const p = series[island.id]?.at(-1);
    const takenOverAt = island.takenOverAt !== null && island.takenOverAt <= t ? island.takenOverAt : null;
    return p ? { ...island, iteration: p[0], best: p[2], mean: p[3], diversity: p[4], takenOverAt } : { ...island, takenOverAt };
  });
  const frame = (s.frames ?? []).filter((f) => f[0] <= t).at(-1);
  const between = frame
    ? { ...s.between, iteration: frame[0], distance: frame[1] }
    : s.between && s.between.iteration <= t
      ? s.between
      : null;
  const solution = s.solution && s.solution.iteration <= t ? s.solution : undefined;
  return {
    ...s,
    series,
    last,
    islands,
    between,
    betweenSeries: upTo(withLast(s.betweenSeries, s.betweenLast)),
    betweenLast: null,
    solution,
    done: undefined,
    replayAt: t,
  };
}

/** A series' points with its latest point appended when the decimation left it out: a chart ends where the run is. */
export function withLast(points, last) {
  if (!last || (points.length > 0 && points[points.length - 1][0] >= last[0])) return points;
  return points.concat([last]);
}
