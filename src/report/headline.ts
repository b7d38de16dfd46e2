/**
 * The report's opening: one sentence per comparison with the baseline, in evaluations and in
 * wall time, that says what won. Each names the cells (by their swept values), the measure,
 * the ratio with its 95% interval, on how many seeds the cell was lower or higher, the test
 * and its Holm-adjusted p. Iterations are in the table only: one iteration of more islands
 * is more work, so they compare settings with equal island counts only.
 */
import { cellNames } from './cell-names.ts';
import type { CellSummary, Comparison, StudySummary } from './summary.ts';
import { formatNumber, formatP, ratioText, testText } from './table.ts';

const MEASURES = [
  ['evaluations', 'evaluations'],
  ['seconds', 'wall time'],
] as const;

function ratioKind(c: Comparison): string {
  return c.ratio.kind === 'median' ? 'median of paired ratios' : `ERT ratio within ${formatNumber(c.budget!)}`;
}

function sentence(c: Comparison, who: string, what: string, metric: string): string {
  if (c.notRun !== null) return `${who}: ${what} not tested (${c.notRun}).`;
  const verdict = c.verdict === 'none' ? 'no difference detected' : c.verdict;
  const seeds = `lower on ${c.lower} of ${c.pairs} seeds, higher on ${c.higher}`;
  const test = `Wilcoxon signed-rank, ${testText(c)}, ${c.informative} of ${c.pairs} pairs differ, p Holm ${formatP(c.pHolm)}`;
  const machine = metric === 'seconds' ? '; wall time depends on the machine, this is the one that ran the study' : '';
  return `${who}: ${what} ${verdict}: ${ratioText(c, '×')} (${ratioKind(c)}), ${seeds}; ${test}${machine}.`;
}

/** The headline's sentences (none without a baseline), the last saying so when no comparison found a difference. */
export function headline(summary: StudySummary): string[] {
  const names = cellNames(summary.cells);
  const compared = summary.cells.filter((cell): cell is CellSummary & { comparison: NonNullable<CellSummary['comparison']> } =>
    Boolean(cell.comparison),
  );
  const lines = compared.flatMap((cell) =>
    MEASURES.map(([metric, what]) =>
      sentence(cell.comparison[metric], `${names.get(cell.id)} against ${names.get(cell.baseline!) ?? cell.baseline}`, what, metric),
    ),
  );
  const differs = compared.some((cell) => MEASURES.some(([m]) => cell.comparison[m].verdict !== 'none'));
  if (compared.length > 0 && !differs)
    lines.push(`No difference detected in evaluations or wall time (Holm over all ${summary.holmFamily} tests of the report).`);
  return lines;
}
