/**
 * Regenerates the tables of docs/defaults.md ("Choosing the default on evidence") from the
 * study folders of config/experiments/default-migration-2/, so the page's numbers are never
 * typed by hand:
 *   node --import tsx bench/defaults-tables.ts results/dm2-n50 results/dm2-n100 ... [--write docs/defaults.md]
 * Without --write it prints the tables; with it, it replaces what lies between the page's
 * `<!-- dm2-tables:begin -->` and `<!-- dm2-tables:end -->` markers. Every number comes from
 * studyReport, the same summary `nqueens-islands report` prints.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatValue } from '../src/experiment/sweep.ts';
import { studyReport, type CellSummary, type Comparison } from '../src/index.ts';
import { writeFileAtomic } from '../src/io/write-file.ts';
import { formatNumber, formatP, ratioText } from '../src/report/table.ts';
import { studyProvenance } from '../src/report/study-provenance.ts';

const BEGIN = '<!-- dm2-tables:begin -->';
const END = '<!-- dm2-tables:end -->';

function verdictText(c: Comparison | undefined): string {
  if (c === undefined) return 'baseline';
  if (c.notRun !== null) return 'not tested (noise floor)';
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

function main(argv: readonly string[]): void {
  const at = argv.indexOf('--write');
  const target = at >= 0 ? argv[at + 1] : null;
  const dirs = at < 0 ? argv : argv.filter((_, i) => i !== at && i !== at + 1);
  const tables = dirs.map(studyTable).join('\n\n');
  if (target === null || target === undefined) {
    process.stdout.write(`${tables}\n`);
    return;
  }
  const page = readFileSync(target, 'utf8');
  const [from, to] = [page.indexOf(BEGIN), page.indexOf(END)];
  if (from < 0 || to < from) throw new Error(`${target}: no ${BEGIN} ... ${END} markers`);
  writeFileAtomic(target, `${page.slice(0, from + BEGIN.length)}\n${tables}\n${page.slice(to)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main(process.argv.slice(2));
