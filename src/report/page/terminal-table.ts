/**
 * The terminal tables: the headline (headline.ts) above the summary and target tables of
 * table.ts, then their notes; and the takeover table. Its own module, so that the headline can
 * use table.ts's formatting without a cycle between the two.
 */
import { headline } from './headline.ts';
import { takeoverTable, type TakeoverRow } from '../statistics/observables-data.ts';
import type { StudySummary } from '../statistics/summary.ts';
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

/** The takeover table for the terminal, with what the prediction is. */
export function renderTakeoverTable(rows: readonly TakeoverRow[]): string {
  const { header, rows: text } = takeoverTable(rows);
  return [
    'takeover time (iterations at which every island held only copies of the best; docs/takeover.md)',
    '',
    align([header, ...text]),
    '',
    `predicted = eccentricity of the best island x interval + t*, t* = log2 M + log2(ln M) = ${rows[0].panmictic.toFixed(2)} for M of the first cell (Goldberg & Deb 1991).`,
  ].join('\n');
}
