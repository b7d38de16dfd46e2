/**
 * The study's report as GitHub-flavoured markdown (`report DIR --markdown FILE`, the library's
 * `studyReport(dir).markdown`): the headline first, then the summary, the ERT at each target,
 * the notes and where the numbers come from, every table and sentence rendered from the same
 * summary as the terminal table and the page.
 */
import { formatValue } from '../../experiment/sweep.ts';
import { safeText } from '../../io/terminal.ts';
import { machineProvenance } from '../../provenance.ts';
import { coverageText, headline } from './headline.ts';
import type { StudyData } from '../data/study-data.ts';
import { studyProvenance } from './study-provenance.ts';
import type { StudySummary } from '../statistics/summary.ts';
import { censoringNotes, notRepeatableNote, summaryRows, tableNotes, targetErtRows } from './table.ts';

/**
 * Text shown as it is: cell ids, sweep values and names come from files, so markdown's own
 * characters are escaped (a `|` would end a table cell, `[x](...)` make a link, `<` start
 * HTML), line breaks become spaces, and control characters show as escapes (safeText).
 */
export function markdownText(text: string): string {
  return safeText(text)
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[\\`*_[\]<>|~&#]/g, '\\$&');
}

/** A GitHub table: the header, the delimiter row (the first column left-aligned, the numbers right-aligned), the rows. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(markdownText).join(' | ')} |`;
  const align = header.map((_, i) => (i === 0 ? ':---' : '---:'));
  return [line(header), `| ${align.join(' | ')} |`, ...rows.map(line)].join('\n');
}

/** The whole report as markdown. */
export function renderMarkdown(study: StudyData, summary: StudySummary): string {
  const { manifest } = study;
  const parts = [`# ${markdownText(manifest.name)}`];
  if (manifest.description) parts.push(markdownText(manifest.description));
  const sentences = headline(summary);
  if (sentences.length > 0) parts.push(sentences.map((s) => `- ${markdownText(s)}`).join('\n'));
  const baseline =
    summary.baseline === null
      ? 'no baseline'
      : `baseline ${Object.entries(summary.baseline)
          .map(([k, v]) => `${k}=${formatValue(v)}`)
          .join(', ')}`;
  parts.push(markdownText(`${coverageText(summary)}; ${baseline}.`));
  if (summary.failedRuns.length > 0) parts.push(markdownText(`Left out, an island failed: ${summary.failedRuns.join('; ')}.`));
  const { header, rows } = summaryRows(summary, '×');
  parts.push('## Summary', markdownTable(header, rows));
  const targets = targetErtRows(summary);
  parts.push('## ERT to reach f ≤ target', markdownTable(targets.header, targets.rows));
  const unrepeatable = notRepeatableNote(summary);
  const notes = [...tableNotes(summary), ...censoringNotes(summary), ...(unrepeatable === null ? [] : [unrepeatable])];
  parts.push('## Notes', notes.map((n) => `- ${markdownText(n)}`).join('\n'));
  const maker = machineProvenance();
  const reporter = `This report: ${maker.tool} ${maker.version}, commit ${maker.commit}${maker.dirty ? ' (with uncommitted changes)' : ''}, Node ${maker.node}.`;
  parts.push('## Provenance', [...studyProvenance(study), reporter].map((p) => `- ${markdownText(p)}`).join('\n'));
  return `${parts.join('\n\n')}\n`;
}
