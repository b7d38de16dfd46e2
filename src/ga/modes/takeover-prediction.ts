/**
 * The takeover time the theory predicts (docs/takeover.md): the panmictic takeover time of
 * linear ranking with selection pressure 2 (Goldberg & Deb 1991), plus one migration
 * interval per step of the best island's eccentricity in the topology. Pure.
 */
/** A directed edge `from → to` (src/topology's Edge, which the GA layer below it cannot import). */
type Edge = readonly [from: number, to: number];

/**
 * Panmictic takeover time of linear ranking with pressure 2 from one copy in a population of
 * M (Goldberg & Deb 1991, eq. for linear ranking): t* = log2 M + log2(ln M) generations.
 * docs/takeover.md derives it for the takeover mode's rank selection with elitism of one.
 */
export function panmicticTakeover(populationSize: number): number {
  return Math.log2(populationSize) + Math.log2(Math.log(populationSize));
}

/** Shortest directed path lengths (in edges) from `from` to every island; Infinity where no path leads. */
export function distancesFrom(edges: readonly Edge[], islands: number, from: number): number[] {
  const distance = new Array<number>(islands).fill(Infinity);
  const out = Array.from({ length: islands }, () => [] as number[]);
  for (const [a, b] of edges) out[a].push(b);
  distance[from] = 0;
  const queue = [from];
  for (let at = 0; at < queue.length; at++) {
    const i = queue[at];
    for (const j of out[i]) {
      if (distance[j] !== Infinity) continue;
      distance[j] = distance[i] + 1;
      queue.push(j);
    }
  }
  return distance;
}

/** The largest distance from `from` to any island (Infinity if some island cannot be reached). */
export function eccentricity(edges: readonly Edge[], islands: number, from: number): number {
  return Math.max(...distancesFrom(edges, islands, from));
}

/** The largest eccentricity over all islands (the topology's diameter). */
export function diameter(edges: readonly Edge[], islands: number): number {
  let d = 0;
  for (let i = 0; i < islands; i++) d = Math.max(d, eccentricity(edges, islands, i));
  return d;
}

export interface TakeoverPrediction {
  eccentricity: number;
  diameter: number;
  panmictic: number;
  /** eccentricity × interval + panmictic (Infinity when an island cannot be reached). */
  predicted: number;
}

/**
 * The archipelago's predicted takeover time: the island farthest from the best island gets
 * its first copy of the best after `eccentricity` migrations, one every `interval`
 * iterations (sync: a copy sent at the end of iteration k·interval has arrived by the next
 * generation), and then needs the panmictic takeover time to fill.
 */
export function predictTakeover(o: {
  edges: readonly Edge[];
  islands: number;
  bestIsland: number;
  interval: number;
  populationSize: number;
}): TakeoverPrediction {
  const ecc = eccentricity(o.edges, o.islands, o.bestIsland);
  const panmictic = panmicticTakeover(o.populationSize);
  return { eccentricity: ecc, diameter: diameter(o.edges, o.islands), panmictic, predicted: ecc * o.interval + panmictic };
}
