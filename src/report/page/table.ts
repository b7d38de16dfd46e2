/**
 * The summary for people (an aligned text table) and for spreadsheets (CSV), both rendered
 * from `StudySummary`. CSV keeps full precision; Inf marks "unsolved" (R and pandas read it).
 */
import { formatValue } from '../../experiment/sweep.ts';
import { safeText } from '../../io/terminal.ts';
import type { Quartiles } from '../statistics/stats.ts';
import {
  ALPHA,
  METRICS,
  type CellSummary,
  type Comparison,
  type FamilySize,
  type Metric,
  type StudySummary,
} from '../statistics/summary.ts';

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

/** Median [Q1, Q3] over the cell's solved runs, with how many they are when some failed: a median of what it is a median of. */
function solvedQuartileText(cell: CellSummary, metric: Metric): string {
  if (cell.solved === 0) return cell.runs === 0 ? '-' : 'none solved';
  const text = formatQuartiles(cell.solvedQuartiles[metric], metric);
  return cell.solved < cell.runs ? `${text} (${cell.solved}/${cell.runs})` : text;
}

/** How a comparison treated unsolved runs, in a few characters (the notes under the table say the rest). */
export function testText(c: Comparison): string {
  if (c.notRun !== null) return 'not tested';
  return c.test === 'all-solved' ? 'all solved' : `budget ${formatNumber(c.budget!)}`;
}

/** A level as a percentage: 95%, 98.3%. */
export function levelText(level: number): string {
  return `${Number((level * 100).toPrecision(3))}%`;
}

/**
 * The paired ratio with its interval at the family's level: `0.52x [0.40, 0.71]`; a bound
 * the interval leaves out at 1 is written open, `(1.00, 1.31]`. Never a number for what was
 * not estimated: `not tested`, or the estimate with `no 98.3% interval from 4 pairs` where
 * the pairs cannot reach the level.
 */
export function ratioText(c: Comparison, times = 'x'): string {
  if (c.notRun !== null) return 'not tested';
  const r = c.ratio;
  if (r === null || Number.isNaN(r.value)) return '-';
  const f = (v: number) => v.toPrecision(3);
  const estimate = `${f(r.value)}${times}`;
  if (Number.isNaN(r.level)) return `${estimate} (descriptive)`;
  if (r.lower === 0 || r.upper === Infinity) return `${estimate} (no ${levelText(r.level)} interval from ${c.pairs} pairs)`;
  const interval = `${r.lowerOpen ? '(' : '['}${f(r.lower)}, ${f(r.upper)}${r.upperOpen ? ')' : ']'}`;
  return `${estimate} ${interval}${r.withoutOne ? ' without 1' : ''}`;
}

/** The ERT ratio within the comparison's budget, or why there is none. */
export function ertRatioText(c: Comparison, times = 'x'): string {
  if (c.notRun !== null) return 'not tested';
  return Number.isNaN(c.ertRatio) ? 'none (a cell solved nothing within B)' : `${c.ertRatio.toPrecision(3)}${times}`;
}

/** A cell's paired comparison on `metric`: test, ratio [interval], informative pairs, r, p, Bonferroni p (`times` writes the ratio's sign: x in a terminal, × on the page). */
export function comparisonText(cell: CellSummary, metric: Metric, times = 'x'): string[] {
  const c = cell.comparison?.[metric];
  if (!c) return cell.baseline === null && cell.comparison === null ? ['baseline', '', '', '', '', ''] : ['-', '-', '-', '-', '-', '-'];
  return [
    testText(c),
    ratioText(c, times),
    c.notRun === null ? `${c.informative} of ${c.pairs}` : '-',
    Number.isNaN(c.rankBiserial) ? '-' : c.rankBiserial.toFixed(2),
    formatP(c.pValue),
    formatP(c.pAdjusted),
  ];
}

/** The success test's Bonferroni p, or `not tested` (the notes say why). */
export function successPText(cell: CellSummary): string {
  if (!cell.success) return cell.baseline === null ? '' : '-';
  return cell.success.notRun === null ? formatP(cell.success.pAdjusted) : 'not tested';
}

function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}

/** Successes / runs with Wilson's 95% interval ('-' with no runs). */
export function successText(cell: CellSummary): string {
  if (cell.runs === 0) return '-';
  return `${cell.solved}/${cell.runs} [${percent(cell.successInterval.lower)}, ${percent(cell.successInterval.upper)}]`;
}

/** ERT in evaluations with its bootstrap interval. */
export function ertText(cell: CellSummary): string {
  if (cell.runs === 0) return '-';
  return `${formatNumber(cell.ert)} [${formatNumber(cell.ertInterval.lower)}, ${formatNumber(cell.ertInterval.upper)}]`;
}

/** The ERT to each intermediate target (target-ert.ts), one row per cell: for the terminal, the page and markdown alike. */
export function targetErtRows(summary: StudySummary): { header: string[]; rows: string[][] } {
  const targets = summary.cells[0]?.ertAtTargets.map((t) => t.target) ?? [];
  const upTo = summary.anytimeUpTo;
  const header = ['cell', ...targets.map((t) => `f ≤ ${t}`), upTo === null ? 'mean f' : `mean f to ${formatNumber(upTo)} evals`];
  const rows = summary.cells.map((cell) => [
    cell.id,
    ...cell.ertAtTargets.map((t) =>
      summary.ownFitness.includes(cell.id)
        ? 'n/a'
        : cell.runs === 0
          ? '-'
          : `${formatNumber(t.ert)} [${formatNumber(t.interval.lower)}, ${formatNumber(t.interval.upper)}]`,
    ),
    summary.ownFitness.includes(cell.id) ? 'n/a' : Number.isNaN(cell.anytime) ? '-' : cell.anytime.toPrecision(3),
  ]);
  return { header, rows };
}

/** What the target table is, in one line. */
export const TARGET_ERT_NOTE =
  'ERT to f ≤ target: evaluations of all runs up to the first point of their trajectory at or below the target (a run that never reached it: all its evaluations) / runs that reached it, with the 95% bootstrap interval of ERT; f = fitness as the paper defines it, the sum over diagonals of (queens on it − 1) (docs/ALGORITHM.md; not attacking pairs), 0 = solved. Mean f to X evals: the area over the convergence curve, the best fitness of each run averaged over 0..X evaluations (X the fewest an unsolved run of the study reached, else the most any run needed), averaged over the runs of the cell: lower is better sooner; descriptive, not tested.';

/** Aligned columns; cells are measured as printed (safeText: an escape is shown as its code). */
export function align(given: string[][]): string {
  const rows = given.map((r) => r.map(safeText));
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => [...r[col]].length)));
  return rows
    .map((r) =>
      r
        .map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * The summary's columns and rows, for the terminal table and the page alike (so neither can
 * drop a column): with a baseline, the paired comparisons of time and of evaluations.
 * `times` writes the ratios' sign.
 */
/** summaryRows' columns up to the comparisons: the cell and its own measures. */
export const MEASURE_COLUMNS = 8;

export function summaryRows(summary: StudySummary, times = 'x'): { header: string[]; rows: string[][] } {
  const compared = summary.baseline !== null;
  const header = [
    'cell',
    'runs',
    'solved [95% CI]',
    'ERT evals [95% CI]',
    'evaluations (solved runs)',
    'iterations (solved runs)',
    'time s (solved runs)',
    'start-up s',
  ];
  const { evaluations, seconds } = summary.families;
  if (compared)
    header.push(
      'evals test',
      `evals ratio [${levelText(evaluations.level)}]`,
      'pairs ≠',
      'r',
      'p',
      'p Bonf.',
      'evals ERT ratio',
      'time test',
      `time ratio [${levelText(seconds.level)}]`,
      'pairs ≠',
      'r',
      'p',
      'p Bonf.',
      'success p Bonf.',
    );
  const rows = summary.cells.map((cell) => {
    const row = [
      cell.id,
      String(cell.runs),
      successText(cell),
      ertText(cell),
      solvedQuartileText(cell, 'evaluations'),
      solvedQuartileText(cell, 'iterations'),
      solvedQuartileText(cell, 'seconds'),
      formatNumber(cell.startupSeconds, 'seconds'),
    ];
    if (compared)
      row.push(
        ...comparisonText(cell, 'evaluations', times),
        cell.comparison ? ertRatioText(cell.comparison.evaluations, times) : '',
        ...comparisonText(cell, 'seconds', times),
        successPText(cell),
      );
    return row;
  });
  return { header, rows };
}

/** Each comparison not tested and why, each compared at a common budget and why, each wall-time caution: one line each. */
export function censoringNotes(summary: StudySummary): string[] {
  return summary.cells.flatMap((cell) => [
    ...(['evaluations', 'seconds', 'iterations'] as const).flatMap((m) => {
      const c = cell.comparison?.[m];
      if (!c) return [];
      if (c.notRun) return [`${cell.id}, ${m}: not tested: ${c.notRun}`];
      const budget = c.why ? [`${cell.id}, ${m}: ${c.why}; compared at the common budget ${formatNumber(c.budget!, m)}`] : [];
      return c.caution ? [...budget, `${cell.id}, ${m}: ${c.caution}`] : budget;
    }),
    ...(cell.success?.notRun ? [`${cell.id}, success: not tested: ${cell.success.notRun}`] : []),
  ]);
}

/** The families, stated once: what each holds and the level of its intervals. */
export function familyNote(summary: StudySummary): string {
  const f = summary.families;
  const one = (what: string, size: FamilySize, intervals: boolean) =>
    `${what}: ${size.tests} test${size.tests === 1 ? '' : 's'}${intervals && size.tests > 0 ? `, intervals at ${levelText(size.level)}` : ''}`;
  return (
    `Families (each Bonferroni at α = ${ALPHA}: p Bonf. = min(1, m·p), verdict when p Bonf. < ${ALPHA}, exactly when the interval leaves 1 out): ` +
    `${one('evaluations, the primary', f.evaluations, true)}; ${one('wall time', f.seconds, true)}; ${one('success rates', f.success, false)}; iterations are descriptive.`
  );
}

/** What the columns of the table mean, for the terminal and the page alike. */
export function tableNotes(summary: StudySummary): string[] {
  const { resamples, seed } = summary.bootstrap;
  const notes = [
    'solved: successes / runs, 95% Wilson score interval. ERT: evaluations of all runs / successes, 95% percentile bootstrap interval (' +
      `${resamples} resamples of the runs, seed ${seed}). Medians and quartiles are over the solved runs (their count in brackets when some failed).`,
  ];
  if (summary.baseline !== null) {
    const base = Object.entries(summary.baseline)
      .map(([k, v]) => `${k}=${formatValue(v)}`)
      .join(', ');
    notes.push(
      `Compared on the same seeds with the baseline (${base}), every run counted as min(value, B) at the pair of cells' common budget B (test: "budget B" when some run counts B).`,
      "ratio: the paired ratio exp(Hodges-Lehmann estimate of log(cell / baseline) over seeds) with the signed-rank interval inverted at the family's level; a bound written ( or ) leaves 1 out.",
      'ERT ratio: ERT(cell) / ERT(baseline) within B, the cost with restarts (a different estimand, untested). pairs ≠: the pairs that differ, which the test and r rest on, of all pairs.',
      'r = matched-pairs rank-biserial correlation (-1: the cell is lower on every seed); p = two-sided Wilcoxon signed-rank test of the log ratios (exact up to 50 pairs without ties or zeros, else normal with tie and continuity corrections; docs/experiments.md names the scipy and R calls).',
      'A time verdict holds for the machine that ran the study. success: two-sided Fisher exact test of the success rates (each cell under its own limits).',
    );
    if (summary.placement) notes.push(`Wall time: ${summary.placement}.`);
  }
  notes.push(TARGET_ERT_NOTE);
  if (summary.ownFitness.length > 0)
    notes.push(
      `n/a: ${summary.ownFitness.join('; ')} score members by the takeover mode's own fitness (1 = a copy of the best, 2 = any other; docs/takeover.md), not the paper's, and never solve: their measure is the takeover time.`,
    );
  return notes;
}

/** What a study with async cells must say: a seed fixes their initial populations and nothing more. Null when every cell is repeatable. */
export function notRepeatableNote(summary: StudySummary): string | null {
  if (summary.notRepeatable.length === 0) return null;
  return (
    `Not repeatable: ${summary.notRepeatable.join('; ')} (async migration): thread timing decides what arrives when, so a rerun gives other numbers and ` +
    'the comparisons of these cells pair initial populations only (the same seed starts the same populations).'
  );
}

/**
 * One CSV field. Text (sweep values and cell ids come from a file) that starts with
 * `= + - @`, a tab or a carriage return would be a formula to a spreadsheet: it gets a
 * leading `'`, as OWASP advises, and control characters are shown as escapes (safeText).
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number')
    return Number.isNaN(value) ? '' : value === Infinity ? 'Inf' : value === -Infinity ? '-Inf' : String(value);
  const raw = typeof value === 'string' ? value : JSON.stringify(value);
  const text = safeText(/^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV's columns of a comparison, each `<measure>_<suffix>`. */
const COMPARISON_COLUMNS: readonly (readonly [string, (c: Comparison) => unknown])[] = [
  ['test', (c) => c.test],
  ['budget', (c) => c.budget],
  ['pairs', (c) => c.pairs],
  ['informative_pairs', (c) => c.informative],
  ['lower', (c) => c.lower],
  ['higher', (c) => c.higher],
  ['ratio', (c) => c.ratio?.value],
  ['ratio_lower', (c) => c.ratio?.lower],
  ['ratio_upper', (c) => c.ratio?.upper],
  ['ratio_level', (c) => c.ratio?.level],
  ['ert_ratio', (c) => c.ertRatio],
  ['rank_biserial', (c) => c.rankBiserial],
  ['a12', (c) => c.a12],
  ['wilcoxon_v', (c) => c.statistic],
  ['p', (c) => c.pValue],
  ['p_method', (c) => (c.notRun === null ? c.method : 'not-tested')],
  ['family', (c) => c.family ?? (c.notRun === null ? 'descriptive' : 'not-tested')],
  ['p_bonferroni', (c) => c.pAdjusted],
  ['verdict', (c) => c.verdict],
  ['not_tested', (c) => c.notRun],
];

/** One row per cell with every number of the summary. */
export function renderCsv(summary: StudySummary): string {
  const header = [
    'cell',
    ...summary.keys,
    'baseline',
    'runs',
    'solved',
    'success_rate',
    'success_wilson_lower',
    'success_wilson_upper',
    'ert_evaluations',
    'ert_bootstrap_lower',
    'ert_bootstrap_upper',
  ];
  for (const m of METRICS) header.push(`${m}_solved_q1`, `${m}_solved_median`, `${m}_solved_q3`, `${m}_q1`, `${m}_median`, `${m}_q3`);
  header.push('startup_seconds_median', 'success_fisher_p', 'success_fisher_p_bonferroni');
  for (const m of METRICS) header.push(...COMPARISON_COLUMNS.map(([suffix]) => `${m}_${suffix}`));
  for (const t of summary.cells[0]?.ertAtTargets ?? []) header.push(...['', '_lower', '_upper'].map((s) => `ert_target_${t.target}${s}`));
  header.push('anytime_mean_fitness', 'anytime_up_to_evaluations');
  const lines = [header.map(csvField).join(',')];
  for (const cell of summary.cells) {
    const row: unknown[] = [
      cell.id,
      ...summary.keys.map((k) => cell.values[k]),
      cell.baseline,
      cell.runs,
      cell.solved,
      cell.successRate,
      cell.successInterval.lower,
      cell.successInterval.upper,
      cell.ert,
      cell.ertInterval.lower,
      cell.ertInterval.upper,
    ];
    for (const m of METRICS) {
      const s = cell.solvedQuartiles[m];
      const q = cell.quartiles[m];
      row.push(s.q1, s.median, s.q3, q.q1, q.median, q.q3);
    }
    row.push(cell.startupSeconds, cell.success?.pValue, cell.success?.pAdjusted);
    for (const m of METRICS) {
      const c = cell.comparison?.[m];
      row.push(...COMPARISON_COLUMNS.map(([, value]) => (c ? value(c) : undefined)));
    }
    for (const t of cell.ertAtTargets) row.push(t.ert, t.interval.lower, t.interval.upper);
    row.push(cell.anytime, summary.anytimeUpTo);
    lines.push(row.map(csvField).join(','));
  }
  return `${lines.join('\n')}\n`;
}
