/**
 * The terminal table: the headline (headline.ts) above the summary and target tables of
 * table.ts, then their notes. Its own module, so that the headline can use table.ts's
 * formatting without a cycle between the two.
 */
import { headline } from './headline.ts';
import type { StudySummary } from './summary.ts';
import { align, censoringNotes, notRepeatableNote, summaryRows, tableNotes, targetErtRows } from './table.ts';

/** The terminal table, with a note on the comparisons when there is a baseline. */
export function renderTable(summary: StudySummary): string {
  const { header, rows } = summaryRows(summary);
  const lines = [`${summary.name}: ${summary.finishedRuns} of ${summary.expectedRuns} runs, ${summary.seeds.length} seeds per cell`];
  if (summary.failedRuns.length > 0) lines.push(`left out, an island failed: ${summary.failedRuns.join('; ')}`);
  const sentences = headline(summary);
  if (sentences.length > 0) lines.push('', ...sentences);
  const targets = targetErtRows(summary);
  lines.push(
    '',
    align([header, ...rows]),
    '',
    'ERT to reach f ≤ target:',
    align([targets.header, ...targets.rows]),
    '',
    ...tableNotes(summary),
  );
  const censored = censoringNotes(summary);
  if (censored.length > 0)
    lines.push('', 'Comparisons not tested, compared at a common budget, or read with care:', ...censored.map((n) => `  ${n}`));
  const unrepeatable = notRepeatableNote(summary);
  if (unrepeatable) lines.push('', unrepeatable);
  return lines.join('\n');
}
