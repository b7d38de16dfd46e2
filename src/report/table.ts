/**
 * The summary for people (an aligned text table) and for spreadsheets (CSV), both rendered
 * from `StudySummary`. CSV keeps full precision; Inf marks "unsolved" (R and pandas read it).
 */
import { formatValue } from '../experiment/sweep.ts';
import type { Quartiles } from './stats.ts';
import { METRICS, type CellSummary, type Metric, type StudySummary } from './summary.ts';

/** A number for people: 3 significant digits, k/M for large counts, ∞ for unsolved. */
export function formatNumber(value: number, metric?: Metric): string {
  if (Number.isNaN(value)) return '-';
  if (value === Infinity) return '∞';
  if (metric === 'seconds') return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${(value / 1e6).toPrecision(3)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toPrecision(3)}k`;
  if (Number.isInteger(value) || abs >= 100) return value.toFixed(0);
  return abs >= 10 ? value.toFixed(1) : value.toPrecision(3);
}

export function formatP(p: number): string {
  if (Number.isNaN(p)) return '-';
  return p < 0.001 ? '<0.001' : p.toFixed(3);
}

/** `median [Q1, Q3]`, each number as `formatNumber` writes it: the table, the page and Table 1 alike. */
export function formatQuartiles(q: Quartiles, metric: Metric): string {
  return `${formatNumber(q.median, metric)} [${formatNumber(q.q1, metric)}, ${formatNumber(q.q3, metric)}]`;
}

function quartileText(cell: CellSummary, metric: Metric): string {
  return formatQuartiles(cell.quartiles[metric], metric);
}

/** A cell's paired comparison on `metric`: ratio, r, p, Holm p (`times` writes the ratio's sign: x in a terminal, × on the page). */
export function comparisonText(cell: CellSummary, metric: Metric, times = 'x'): string[] {
  const c = cell.comparison?.[metric];
  if (!c) return cell.baseline === null && cell.comparison === null ? ['baseline', '', '', ''] : ['-', '-', '-', '-'];
  return [Number.isNaN(c.medianRatio) ? '-' : `${c.medianRatio.toPrecision(3)}${times}`, Number.isNaN(c.rankBiserial) ? '-' : c.rankBiserial.toFixed(2), formatP(c.pValue), formatP(c.pHolm)];
}

/** The share of a cell's runs that solved, as a percentage ('-' with no runs). */
export function successText(cell: CellSummary): string {
  return Number.isNaN(cell.successRate) ? '-' : `${Math.round(cell.successRate * 100)}%`;
}

function align(rows: string[][]): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => [...r[col]].length)));
  return rows.map((r) => r.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('  ').trimEnd()).join('\n');
}

/**
 * The summary's columns and rows, for the terminal table and the page alike (so neither can
 * drop a column): with a baseline, the paired comparisons of time and of evaluations.
 * `times` writes the ratios' sign.
 */
export function summaryRows(summary: StudySummary, times = 'x'): { header: string[]; rows: string[][] } {
  const compared = summary.baseline !== null;
  const header = ['cell', 'runs', 'solved', 'time s: median [Q1, Q3]', 'evaluations', 'iterations', 'start-up s'];
  if (compared) header.push('time ratio', 'r', 'p', 'p Holm', 'evals ratio', 'r', 'p', 'p Holm');
  const rows = summary.cells.map((cell) => {
    const row = [cell.id, String(cell.runs), successText(cell), quartileText(cell, 'seconds'), quartileText(cell, 'evaluations'), quartileText(cell, 'iterations'), formatNumber(cell.startupSeconds, 'seconds')];
    if (compared) row.push(...comparisonText(cell, 'seconds', times), ...comparisonText(cell, 'evaluations', times));
    return row;
  });
  return { header, rows };
}

/** What a study with async cells must say: a seed fixes their initial populations and nothing more. Null when every cell is repeatable. */
export function notRepeatableNote(summary: StudySummary): string | null {
  if (summary.notRepeatable.length === 0) return null;
  return `Not repeatable: ${summary.notRepeatable.join('; ')} (async migration): thread timing decides what arrives when, so a rerun gives other numbers and `
    + 'the comparisons of these cells pair initial populations only (the same seed starts the same populations).';
}

/** The terminal table, with a note on the comparisons when there is a baseline. */
export function renderTable(summary: StudySummary): string {
  const compared = summary.baseline !== null;
  const { header, rows } = summaryRows(summary);
  const lines = [`${summary.name}: ${summary.finishedRuns} of ${summary.expectedRuns} runs, ${summary.seeds.length} seeds per cell`];
  if (summary.failedRuns.length > 0) lines.push(`left out, an island failed: ${summary.failedRuns.join('; ')}`);
  lines.push('', align([header, ...rows]));
  if (compared) {
    const base = Object.entries(summary.baseline!).map(([k, v]) => `${k}=${formatValue(v)}`).join(', ');
    lines.push(
      '',
      `Compared on the same seeds with the baseline (${base}): ratio = median over seeds of cell / baseline (both solved);`,
      'r = matched-pairs rank-biserial correlation (-1: the cell is lower on every seed); p = two-sided Wilcoxon signed-rank;',
      'p Holm = adjusted for comparing several cells. Unsolved runs count as slower than every solved run (∞).',
    );
  }
  const unrepeatable = notRepeatableNote(summary);
  if (unrepeatable) lines.push('', unrepeatable);
  return lines.join('\n');
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isNaN(value) ? '' : value === Infinity ? 'Inf' : value === -Infinity ? '-Inf' : String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One row per cell with every number of the summary. */
export function renderCsv(summary: StudySummary): string {
  const header = ['cell', ...summary.keys, 'baseline', 'runs', 'solved', 'success_rate'];
  for (const m of METRICS) header.push(`${m}_q1`, `${m}_median`, `${m}_q3`);
  header.push('startup_seconds_median');
  for (const m of METRICS) header.push(`${m}_pairs`, `${m}_median_diff`, `${m}_median_ratio`, `${m}_rank_biserial`, `${m}_wilcoxon_v`, `${m}_p`, `${m}_p_method`, `${m}_p_holm`);
  const lines = [header.map(csvField).join(',')];
  for (const cell of summary.cells) {
    const row: unknown[] = [cell.id, ...summary.keys.map((k) => cell.values[k]), cell.baseline, cell.runs, cell.solved, cell.successRate];
    for (const m of METRICS) row.push(cell.quartiles[m].q1, cell.quartiles[m].median, cell.quartiles[m].q3);
    row.push(cell.startupSeconds);
    for (const m of METRICS) {
      const c = cell.comparison?.[m];
      row.push(c?.pairs, c?.medianDifference, c?.medianRatio, c?.rankBiserial, c?.statistic, c?.pValue, c?.method, c?.pHolm);
    }
    lines.push(row.map(csvField).join(','));
  }
  return `${lines.join('\n')}\n`;
}
