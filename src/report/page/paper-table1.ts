/**
 * Our runs of `config/experiments/paper-table1.yaml` beside the paper's Table 1. The paper
 * gives three runs per N (iterations only); we give quartiles over our seeds, for each
 * reading of "iteration" (generational and steady state), and where the paper's runs fall
 * within our distribution.
 */
import { formatValue } from '../../experiment/sweep.ts';
import { quartiles, type Quartiles } from '../statistics/stats.ts';
import type { StudyData } from '../data/study-data.ts';
import { formatQuartiles } from './table.ts';
import { toSolution } from '../statistics/summary.ts';

/** Sarkar & Nag, Table 1: iterations of the three runs per N, in the paper's row order. */
export const PAPER_TABLE1: Readonly<Record<number, readonly number[]>> = {
  10: [2383, 125, 251],
  11: [320, 339, 97],
  12: [2865, 82, 52],
  13: [2272, 224, 8],
  14: [49, 1077, 31],
  15: [378, 25, 2749],
  16: [98, 330, 255],
  17: [1244, 338, 114],
  18: [5730, 271, 1828],
  19: [3166, 1462, 382],
  20: [453, 279, 170],
  21: [404, 807, 592],
  22: [282, 2044, 1082],
  23: [1363, 113, 347],
  24: [4043, 392, 420],
  25: [1431, 382, 281],
};

export interface Table1Row {
  n: number;
  /** The cell's values other than n, e.g. `ga.pairsPerIteration=1`. */
  reading: string;
  runs: number;
  solved: number;
  iterations: Quartiles;
  evaluations: Quartiles;
  paper: readonly number[];
  /** Share of our runs with fewer iterations than each paper run (its percentile in our distribution). */
  paperPercentiles: number[];
}

/**
 * How each cell differs from the paper's set-up (one island, topology none, paper mode):
 * `cell id: islands 4, topology.kind ring`, one entry per differing cell. Table 1's numbers
 * are comparable only with cells that have none.
 */
export function paperSetupDifferences(study: StudyData): string[] {
  return study.manifest.cells.flatMap(({ id, config }) => {
    const diff: string[] = [];
    if (config.islands !== 1) diff.push(`islands ${config.islands}`);
    if (config.topology.kind !== 'none') diff.push(`topology.kind ${config.topology.kind}`);
    if (config.ga.mode !== 'paper') diff.push(`ga.mode ${config.ga.mode}`);
    return diff.length === 0 ? [] : [`${id}: ${diff.join(', ')}`];
  });
}

/** One row per (reading, N) cell of a study that sweeps `n`; empty when the study does not. */
export function table1Rows(study: StudyData): Table1Row[] {
  const rows: Table1Row[] = [];
  for (const cell of study.manifest.cells) {
    const n = cell.config.n;
    const paper = PAPER_TABLE1[n];
    if (paper === undefined) continue;
    const reading =
      Object.entries(cell.values)
        .filter(([key]) => key !== 'n')
        .map(([key, value]) => `${key}=${formatValue(value)}`)
        .join(', ') || 'base';
    const runs = study.runs.filter((r) => r.cell === cell.id);
    const iterations = runs.map((r) => toSolution(r, 'iterations'));
    rows.push({
      n,
      reading,
      runs: runs.length,
      solved: runs.filter((r) => r.solved).length,
      iterations: quartiles(iterations),
      evaluations: quartiles(runs.map((r) => toSolution(r, 'evaluations'))),
      paper,
      paperPercentiles: paper.map((p) =>
        iterations.length === 0 ? Number.NaN : iterations.filter((i) => i < p).length / iterations.length,
      ),
    });
  }
  // Readings in the file's order, N ascending within each.
  const readings = [...new Set(rows.map((r) => r.reading))];
  return rows.sort((a, b) => readings.indexOf(a.reading) - readings.indexOf(b.reading) || a.n - b.n);
}

/** A Markdown table per reading (it reads well in a terminal too). */
export function renderTable1(rows: readonly Table1Row[]): string {
  const out: string[] = [];
  for (const reading of [...new Set(rows.map((r) => r.reading))]) {
    out.push(`Reading: ${reading}`, '');
    out.push(
      "| N | runs | solved | our iterations: median [Q1, Q3] | our evaluations: median [Q1, Q3] | paper iterations (3 runs) | paper runs' percentile in ours |",
    );
    out.push('|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows.filter((x) => x.reading === reading)) {
      out.push(
        `| ${r.n} | ${r.runs} | ${r.solved} | ${formatQuartiles(r.iterations, 'iterations')} | ${formatQuartiles(r.evaluations, 'evaluations')} | ${r.paper.join(', ')} | ${r.paperPercentiles.map((p) => (Number.isNaN(p) ? '-' : `${Math.round(p * 100)}%`)).join(', ')} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}
