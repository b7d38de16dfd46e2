import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface PaperSolution {
  n: number;
  iterations: number | null;
  solution: number[];
}

interface PaperData {
  table1: PaperSolution[];
  appendix: PaperSolution[];
  examples: {
    order1Crossover: { parent1: number[]; parent2: number[]; segment: { from: number; to: number }; child: number[] };
    swapMutation: { before: number[]; positions: [number, number]; after: number[] };
    fitness: { tuple: number[]; fitness: number }[];
  };
}

/** Every solution and worked example printed in the paper (a copy of shared/data/paper-solutions.json). */
export const paper: PaperData = JSON.parse(
  readFileSync(fileURLToPath(new URL('./fixtures/paper-solutions.json', import.meta.url)), 'utf8'),
);

export const paperSolutions: PaperSolution[] = [...paper.table1, ...paper.appendix];
