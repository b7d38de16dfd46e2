/**
 * Regenerates the tables of docs/defaults.md ("Choosing the default on evidence") from the
 * study folders of config/experiments/default-migration-2/, so the page's numbers are never
 * typed by hand:
 *   node --import tsx bench/defaults-tables.ts results/dm2-n50 results/dm2-n100 ... [--write docs/defaults.md]
 * Without --write it prints the tables; with it, it replaces what lies between the page's
 * `<!-- dm2-tables:begin -->` and `<!-- dm2-tables:end -->` markers. Every number comes from
 * studyReport, the same summary `nqueens-islands report` prints.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeDocBlock } from './doc-block.ts';
import { formatValue } from '../src/experiment/sweep.ts';
import { studyReport, type CellSummary, type Comparison } from '../src/index.ts';
import { formatNumber, formatP, ratioText } from '../src/report/page/table.ts';
import { studyProvenance } from '../src/report/page/study-provenance.ts';

function verdictText(c: Comparison | undefined): string {
  if (c === undefined) return 'baseline';
  if (c.notRun !== null) return `not tested: ${c.notRun}`;
  return `${ratioText(c, '×')}, ${c.informative} of ${c.pairs} differ, p Bonf. ${formatP(c.pAdjusted)}, ${c.verdict}`;
}

function row(cell: CellSummary, name: string): string {
  const ert = `${formatNumber(cell.ert)} [${formatNumber(cell.ertInterval.lower)}, ${formatNumber(cell.ertInterval.upper)}]`;
  const cells = [
    name,
    `${cell.solved}/${cell.runs}`,
    ert,
    verdictText(cell.comparison?.evaluations),
    verdictText(cell.comparison?.seconds),
  ];
  return `| ${cells.join(' | ')} |`;
}

/** The markdown of one study folder: its headline, then a row per cell. */
export function studyTable(dir: string): string {
  const report = studyReport(dir);
  const { summary, study } = report;
  const names = new Map(
    study.manifest.cells.map((c) => [
      c.id,
      `N = ${c.config.n}, ${Object.entries(c.values)
        .map(([k, v]) => `${k}=${formatValue(v)}`)
        .join(', ')}`,
    ]),
  );
  const header = ['cell', 'solved', 'ERT evaluations [95% CI]', 'evaluations vs default', "wall time vs default (the study's machine)"];
  return [
    `### ${summary.name}: ${summary.finishedRuns} of ${summary.expectedRuns} runs`,
    '',
    `${studyProvenance(study)[0]} Wall times are that machine's, as loaded as it was then.`,
    '',
    ...report.headline.map((s) => `- ${s}`),
    '',
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...summary.cells.map((cell) => row(cell, names.get(cell.id)!.replace(/[{}"]/g, ''))),
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  writeDocBlock(process.argv.slice(2), 'dm2-tables', (dirs) => dirs.map(studyTable).join('\n\n'));
