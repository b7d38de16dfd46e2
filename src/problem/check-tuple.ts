import { fitness, DiagonalMarks } from './fitness.ts';
import { fromOneBased } from './genes.ts';
import { TupleSyntaxError } from './errors.ts';
import { validateSolution } from './validate.ts';

export interface TupleReport {
  n: number;
  permutation: boolean;
  fitness: number;
  solution: boolean;
}

/**
 * Checks one 1-based tuple: is it a permutation, what is its paper fitness, and does the
 * independent validator accept it as a solution. Rows outside 1..N are malformed input.
 */
export function checkTuple(tuple: ArrayLike<number>, where: string): TupleReport {
  const n = tuple.length;
  const seen = new Uint8Array(n + 1);
  let permutation = true;
  for (let i = 0; i < n; i++) {
    const row = tuple[i];
    if (!Number.isInteger(row) || row < 1 || row > n)
      throw new TupleSyntaxError(`${where}: row ${row} in column ${i + 1} is out of range 1..${n}`);
    if (seen[row]) permutation = false;
    seen[row] = 1;
  }
  const f = fitness(fromOneBased(tuple), 0, n, new DiagonalMarks(n));
  return { n, permutation, fitness: f, solution: validateSolution(tuple).valid };
}
