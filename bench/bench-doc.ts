/**
 * `npm run bench -- --write docs/benchmarks.md`: the run's "done when" figures go into the
 * page's table between `<!-- bench:begin -->` and `<!-- bench:end -->`, one row per figure. A
 * figure measured now replaces its row and the others stay as they were, so `--only start`
 * changes the start-up rows alone; each row names the run that measured it (commit, date, load)
 * and the command that measures it again.
 */
import { readFileSync } from 'node:fs';
import { readDocBlock, replaceDocBlock } from './doc-block.ts';

export const BENCH_BLOCK = 'bench';
export const BENCH_HEADER = ['figure', 'measured', 'target', 'met?', 'measured in', 'regenerate'] as const;

/** A figure of this run: the done-when row ([figure, measured, target, met?, command measured?]) and its section. */
export interface Measured {
  row: readonly (string | number)[];
  section: string;
}

const cell = (text: string | number) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;

/** The rows of the block's table, as cells (the header and the rule left out). */
export function tableRows(block: string): string[][] {
  return block
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2)
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

/** The doc's row of one figure of this run. */
export function docRow(m: Measured, run: string): string[] {
  const [figure, measured, target = '', met = '', command = ''] = m.row.map(cell);
  const what = command === '' ? figure : `${figure} (${command})`;
  return [what, measured, target, met, run, `\`npm run bench -- --only ${m.section} --write docs/benchmarks.md\``];
}

/** The block with this run's figures in place of their old rows, and any new figure added at the end. */
export function mergedBlock(block: string, measured: readonly Measured[], run: string): string {
  const fresh = measured.map((m) => docRow(m, run));
  const byFigure = new Map(fresh.map((r) => [r[0], r]));
  const old = tableRows(block);
  const kept = old.map((r) => byFigure.get(r[0]) ?? r);
  const added = fresh.filter((r) => !old.some((o) => o[0] === r[0]));
  return [line(BENCH_HEADER), line(BENCH_HEADER.map(() => '---')), ...[...kept, ...added].map(line)].join('\n');
}

/** Throws, before anything is measured, unless `file` can be read and has the bench block's markers. */
export function checkBenchDoc(file: string): void {
  readDocBlock(readFileSync(file, 'utf8'), BENCH_BLOCK, file);
}

/** Merges this run's figures into `file`'s block and writes it the careful way. */
export function writeBenchDoc(file: string, measured: readonly Measured[], run: string): void {
  const block = readDocBlock(readFileSync(file, 'utf8'), BENCH_BLOCK, file);
  replaceDocBlock(file, BENCH_BLOCK, mergedBlock(block, measured, run));
}
