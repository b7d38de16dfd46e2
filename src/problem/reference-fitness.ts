/**
 * The paper's fitness pseudo-code, transcribed as printed (1-based, sort-based,
 * O(N log N)). Kept only as the reference that the fast fitness is tested against.
 */
export function referenceFitness(chromosome: ArrayLike<number>): number {
  const size = chromosome.length;
  const f1: number[] = [];
  const f2: number[] = [];
  for (let i = 1; i <= size; i++) {
    f1.push(chromosome[i - 1] - i);
    f2.push(1 + size - chromosome[i - 1] - i);
  }
  f1.sort((a, b) => a - b);
  f2.sort((a, b) => a - b);
  let t1 = 0;
  let t2 = 0;
  for (let i = 1; i < size; i++) {
    if (f1[i] === f1[i - 1]) t1++;
    if (f2[i] === f2[i - 1]) t2++;
  }
  return t1 + t2;
}
