/**
 * Boards the GA is not needed for: N = 1 has the one-queen solution, and N = 2 and
 * N = 3 have no solution at all (every placement has two queens on a diagonal).
 */
export type SmallBoardAnswer = { kind: 'solution'; tuple: number[] } | { kind: 'impossible'; reason: string } | null;

export function smallBoardAnswer(n: number): SmallBoardAnswer {
  if (n === 1) return { kind: 'solution', tuple: [1] };
  if (n === 2 || n === 3)
    return { kind: 'impossible', reason: `N = ${n} has no solution: no ${n} queens can be placed without two sharing a diagonal` };
  return null;
}
