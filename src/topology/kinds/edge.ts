/** A directed topology edge: island `from` sends migrants to island `to`. */
export type Edge = readonly [from: number, to: number];

/** Adds `from → to` unless it is a self-loop or already present (keeps builders simple for tiny counts). */
export function addEdge(edges: Edge[], seen: Set<number>, islands: number, from: number, to: number): void {
  if (from === to) return;
  const key = from * islands + to;
  if (seen.has(key)) return;
  seen.add(key);
  edges.push([from, to]);
}
