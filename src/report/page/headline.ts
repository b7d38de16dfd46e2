/**
 * The report's opening: the families, stated once, then one sentence per comparison with the
 * baseline, in evaluations and in wall time, that says what won. Each names the cells (by
 * their swept values), the measure, the paired ratio with its interval at the family's level,
 * on how many seeds the cell was lower or higher, the test and its Bonferroni p; a design
 * whose pairs could not reach α says so beside "no difference detected". Iterations are in
 * the table only: one iteration of more islands is more work.
 */
import { cellNames } from './cell-names.ts';
import { ALPHA, type CellSummary, type Comparison, type FamilySize, type StudySummary } from '../statistics/summary.ts';
import { familyNote, formatP, ratioText, testText } from './table.ts';

const MEASURES = [
  ['evaluations', 'evaluations'],
  ['seconds', 'wall time'],
] as const;

/** What "no difference detected" must add when the design could not have detected one. */
function unreachable(size: FamilySize, pairs: number): string {
  return size.smallestAdjustedP >= ALPHA
    ? ` (this design could not reach α = ${ALPHA}: with ${pairs} seeds and ${size.tests} tests the smallest p Bonf. is ${formatP(size.smallestAdjustedP)})`
    : '';
}

function sentence(c: Comparison, who: string, what: string, summary: StudySummary, metric: 'evaluations' | 'seconds'): string {
  if (c.notRun !== null) return `${who}: ${what} not tested: ${c.notRun}.`;
  const verdict = c.verdict === 'none' ? `no difference detected${unreachable(summary.families[metric], c.pairs)}` : c.verdict;
  const seeds = `lower on ${c.lower} of ${c.pairs} seeds, higher on ${c.higher}`;
  const test = `Wilcoxon signed-rank of the log ratios, ${testText(c)}, ${c.informative} of ${c.pairs} pairs differ, p Bonf. ${formatP(c.pAdjusted)}`;
  const machine =
    metric === 'seconds'
      ? `; wall time depends on the machine, this is the one that ran the study${summary.placement ? `; ${summary.placement}` : ''}`
      : '';
  const caution = c.caution ? `; ${c.caution}` : '';
  return `${who}: ${what} ${verdict}: ${ratioText(c, '×')} (paired ratio), ${seeds}; ${test}${machine}${caution}.`;
}

/** The headline's sentences (none without a baseline), the last saying so when no comparison found a difference. */
export function headline(summary: StudySummary): string[] {
  const names = cellNames(summary.cells);
  const compared = summary.cells.filter((cell): cell is CellSummary & { comparison: NonNullable<CellSummary['comparison']> } =>
    Boolean(cell.comparison),
  );
  const lines = compared.flatMap((cell) =>
    MEASURES.map(([metric, what]) =>
      sentence(
        cell.comparison[metric],
        `${names.get(cell.id)} against ${names.get(cell.baseline!) ?? cell.baseline}`,
        what,
        summary,
        metric,
      ),
    ),
  );
  if (compared.length === 0) return lines;
  const differs = compared.some((cell) => MEASURES.some(([m]) => cell.comparison[m].verdict !== 'none'));
  const pairs = Math.min(...compared.map((cell) => cell.comparison.evaluations.pairs));
  if (!differs) lines.push(`No difference detected in evaluations or wall time${unreachable(summary.families.evaluations, pairs)}.`);
  return [familyNote(summary), ...lines];
}

/**
 * What the runs cover, for a report's opening: every seed in every cell, or, for a study
 * still running or partly run (a shard missing), how far it got, never the claim that every
 * cell has every seed.
 */
export function coverageText(summary: Pick<StudySummary, 'finishedRuns' | 'expectedRuns' | 'seeds'>): string {
  const runs = `${summary.finishedRuns} of ${summary.expectedRuns} runs`;
  if (summary.finishedRuns >= summary.expectedRuns) return `${runs}; seeds ${summary.seeds.join(', ')} in every cell (paired)`;
  return `${runs}; the study's seeds are ${summary.seeds.join(', ')}, not yet all run in every cell: each comparison pairs the seeds both of its cells ran`;
}
