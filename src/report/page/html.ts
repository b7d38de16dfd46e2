/**
 * The report page: one self-contained HTML file (inline CSS and SVG, no scripts, a CSP that
 * forbids any network fetch), so it opens offline and can be attached to a paper's data.
 */
import path from 'node:path';
import type { StudyData } from '../data/study-data.ts';
import { runSummaryLines, type RunData } from '../data/run-data.ts';
import { boxPlotSpec, diversitySpec, edgeFlows, fitnessSpec, migrationSpec, progressPoints, renderSvg } from '../figures/charts.ts';
import { observablesRunParts, observablesStudyParts, type PageKit } from '../figures/observables-charts.ts';
import type { XAxis } from '../figures/x-axis.ts';
import { readEvents } from '../data/study-data.ts';
import type { StudySummary } from '../statistics/summary.ts';
import { cellNames } from './cell-names.ts';
import { coverageText, headline } from './headline.ts';
import { fitnessSection, migrationSection, SAMPLES_NOTE } from './study-sections.ts';
import { studyProvenance } from './study-provenance.ts';
import { censoringNotes, MEASURE_COLUMNS, notRepeatableNote, summaryRows, tableNotes, targetErtRows } from './table.ts';
import { diversityBands, diversityBandSpec, ecdfSpec, fixedBudgetSpec } from '../figures/study-charts.ts';
import { ecdfPoints, fixedBudgetPoints, shortNames } from '../statistics/run-length.ts';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A cell's label that may wrap after each comma (cell ids have no spaces), with its short name (c1, c2, ...) first. */
function cellLabel(short: string, id: string): string {
  return `<span class="short">${escapeHtml(short)}</span> ${escapeHtml(id).replace(/,/g, ',<wbr>')}`;
}

/** An HTML table; the first column heads each row and is HTML already (a cell label). */
function htmlTable(header: readonly string[], rows: readonly (readonly string[])[], labels: readonly string[]): string {
  const body = rows.map(
    (cells, r) => `<tr><th scope="row">${labels[r]}</th>${cells.map((x) => `<td>${escapeHtml(x)}</td>`).join('')}</tr>`,
  );
  return `<table><thead><tr>${header.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/**
 * Every column of the terminal table (summaryRows), as two tables so that neither needs more
 * than the page's width: the measures of each cell, then its comparison with the baseline.
 */
function summaryTables(summary: StudySummary): string {
  const { header, rows } = summaryRows(summary, '×');
  const names = shortNames(summary.cells.map((c) => c.id));
  const labels = summary.cells.map((c) => cellLabel(names.get(c.id)!, c.id));
  const split = MEASURE_COLUMNS;
  const parts = [
    htmlTable(
      header.slice(0, split),
      rows.map((r) => r.slice(1, split)),
      labels,
    ),
  ];
  if (header.length > split)
    parts.push(
      '<h3>Against the baseline</h3>',
      htmlTable(
        [header[0], ...header.slice(split)],
        rows.map((r) => r.slice(split)),
        labels,
      ),
    );
  const targets = targetErtRows(summary);
  parts.push(
    '<h3>ERT to reach f ≤ target</h3>',
    htmlTable(
      targets.header,
      targets.rows.map((r) => r.slice(1)),
      labels,
    ),
  );
  return parts.join('\n');
}

/** A sweep value or settings object in a few words: `best`, `random (probability 0.2)`. */
function settingText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value !== 'object') return JSON.stringify(value).replace(/^"|"$/g, '');
  const { kind, ...options } = value as Record<string, unknown>;
  const rest = Object.entries(options).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  const name = kind === undefined ? '' : settingText(kind);
  return rest.length === 0 ? name : name === '' ? rest.join(', ') : `${name} (${rest.join(', ')})`;
}

/** The resolved settings of every cell that bear on migration (and the limits that cut runs off), keyed by short name. */
function settingsTable(study: StudyData): string {
  const names = shortNames(study.manifest.cells.map((c) => c.id));
  const header = [
    'cell',
    'N',
    'islands',
    'population / island',
    'topology',
    'migration',
    'interval',
    'migrants',
    'emigrants',
    'replacement',
    'reject duplicates',
    'limits',
  ];
  const rows = study.manifest.cells.map(({ config }) => {
    const c = config as unknown as {
      n: number;
      islands: number;
      ga: { populationSize?: number };
      topology: unknown;
      migration: Record<string, unknown>;
      limits: Record<string, unknown>;
    };
    const limits = Object.entries(c.limits)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${k} ${String(v)}`);
    const m = c.migration;
    // One island has no one to migrate to: its topology and migration settings do nothing.
    const moot = c.islands === 1 ? (_: unknown) => '- (1 island)' : settingText;
    return [
      String(c.n),
      String(c.islands),
      String(c.ga.populationSize ?? '-'),
      moot(c.topology),
      moot(m.mode),
      moot(m.interval),
      moot(m.migrants),
      moot(m.emigrantSelection),
      moot(m.replacement),
      moot(m.rejectDuplicates),
      limits.length > 0 ? limits.join(', ') : 'none',
    ];
  });
  return htmlTable(
    header,
    rows,
    study.manifest.cells.map((c) => cellLabel(names.get(c.id)!, c.id)),
  );
}

/** Which build, config files and machine made the study, and the runs. */
function provenanceBlock(study: StudyData): string {
  return `<ul class="provenance">${studyProvenance(study)
    .map((i) => `<li>${escapeHtml(i)}</li>`)
    .join('')}</ul>`;
}

/** How progress samples are taken (island-runner.ts), for the captions. */

function figure(svg: string, caption: string): string {
  return `<figure>${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

function note(text: string): string {
  return `<p class="note">${escapeHtml(text)}</p>`;
}

/** Fixed-target ECDF, fixed-budget curves and box plots: evaluations first, then time. */
async function runLengthSection(study: StudyData, cells: readonly string[]): Promise<string[]> {
  const names = cellNames(study.manifest.cells);
  const legend = cells.map((id) => names.get(id)!);
  const parts = ['<h2>Run lengths</h2>'];
  if (!study.runs.some((r) => r.solved)) return [...parts, note('No run has solved yet: nothing to plot.')];
  parts.push(
    figure(
      await renderSvg(ecdfSpec(ecdfPoints(study.runs, cells, names), legend)),
      "Fixed target (a solution): each line is one cell, the share of all its runs, unsolved ones included, solved within the evaluations on the x axis. A line stops at its cell's own cut-off (+), the fewest evaluations at which one of its unsolved runs was stopped: past it the cell's share is unknown.",
    ),
  );
  const budget = fixedBudgetPoints(study.runs, cells, names);
  if (budget.length > 0) {
    parts.push(
      figure(
        await renderSvg(fixedBudgetSpec(budget, legend)),
        "Fixed budget: each line is one cell, the median over its runs of the best fitness reached within the evaluations on the x axis (from the exact trajectory each record keeps: every iteration at which the run's best improved). A cell's line ends where its first unsolved run was stopped.",
      ),
    );
  } else {
    parts.push(note('No fixed-budget curves: the run records hold no best-fitness trajectory (a study of a version before 0.2).'));
  }
  for (const metric of ['evaluations', 'seconds'] as const) {
    parts.push(
      figure(
        await renderSvg(boxPlotSpec(study.runs, cells, metric)),
        `Box plots of the solved runs only (log scale), ${metric}; each label says how many runs that is. Read the ECDF above for the unsolved ones.`,
      ),
    );
  }
  return parts;
}

/** Within-island diversity per cell over iterations, from the event logs. */
async function diversitySection(study: StudyData, cells: readonly string[]): Promise<string[]> {
  const parts = ['<h2>Diversity within islands</h2>'];
  const logs = new Map(
    cells.map((id) => [
      id,
      study.runs
        .filter((r) => r.cell === id)
        .flatMap((r) => {
          const events = readEvents(study, r.cell, r.seed);
          return events === null ? [] : [events];
        }),
    ]),
  );
  const bands = diversityBands(logs, cells);
  if (bands.length === 0)
    return [...parts, note("No event logs in this study: run the experiment with --events to record the islands' diversity.")];
  parts.push(
    figure(
      await renderSvg(diversityBandSpec(bands, cells)),
      'Mean pairwise Hamming distance of 16 members at evenly spaced ranks, as a share of N, per island; line: median over every island of every logged run, band: quartiles. A panel ends where fewer than half of its islands still run.',
    ),
  );
  return parts;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const body = rows.map(
    (cells) =>
      `<tr>${cells.map((x, i) => (i === 0 ? `<th scope="row">${escapeHtml(x)}</th>` : `<td>${escapeHtml(x)}</td>`)).join('')}</tr>`,
  );
  return `<table><thead><tr>${header.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/** What the migration observables' sections (observables-charts.ts) use to put things on the page. */
const KIT: PageKit = { figure, note, table };

/** Builds the whole page. `run` picks the run for the fitness chart (`report --run`). */
export async function renderHtml(
  study: StudyData,
  summary: StudySummary,
  run: { cell: string; seed: number } | null,
  x: XAxis = 'iterations',
): Promise<string> {
  const { manifest } = study;
  const cells = manifest.cells.map((c) => c.id);
  const parts: string[] = [];
  parts.push(`<h1>${escapeHtml(manifest.name)}</h1>`);
  if (manifest.description) parts.push(`<p>${escapeHtml(manifest.description)}</p>`);
  const sentences = headline(summary);
  if (sentences.length > 0) parts.push(`<ul class="headline">${sentences.map((t) => `<li>${escapeHtml(t)}</li>`).join('')}</ul>`);
  parts.push(`<p>${escapeHtml(coverageText(summary))}.</p>`);
  parts.push(provenanceBlock(study));
  parts.push(
    '<h2>Cells and their settings</h2>',
    settingsTable(study),
    note('Resolved run configs (defaults and base file applied), one row per cell; c1, c2, ... name the cells in every plot.'),
  );
  parts.push('<h2>Summary</h2>', summaryTables(summary));
  const unrepeatable = notRepeatableNote(summary);
  if (unrepeatable) parts.push(note(unrepeatable));
  if (summary.failedRuns.length > 0)
    parts.push(note(`Left out of every number and plot because an island failed: ${summary.failedRuns.join('; ')}.`));
  for (const line of [...tableNotes(summary), ...censoringNotes(summary)]) parts.push(note(line));
  parts.push(...(await runLengthSection(study, cells)));
  parts.push(...(await diversitySection(study, cells)));

  parts.push(...(await fitnessSection(study, run, x, KIT)), ...(await migrationSection(study, cells, KIT)));
  parts.push(...(await observablesStudyParts(study, KIT)));

  parts.push(
    '<h2>Experiment file</h2>',
    `<p>sha256 <code>${manifest.experiment.sha256}</code></p>`,
    `<pre>${escapeHtml(manifest.experiment.text)}</pre>`,
  );

  return page(`${manifest.name}: migration study report`, parts);
}

/** The page of one run (`report --run FILE --html`): fitness and diversity per island over `x`, migrants along each edge. */
export async function renderRunHtml(run: RunData, x: XAxis = 'iterations'): Promise<string> {
  const parts: string[] = [];
  const [headline, ...islands] = runSummaryLines(run);
  parts.push(`<h1>One run: ${escapeHtml(path.basename(run.file))}</h1>`, `<p>${escapeHtml(headline)}</p>`);
  if (islands.length > 0) parts.push(`<ul>${islands.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`);
  const points = progressPoints(run.events, x);
  parts.push('<h2>Best fitness over time</h2>');
  if (points.length > 0)
    parts.push(
      figure(
        await renderSvg(fitnessSpec(points, x, 'best fitness per island')),
        `${SAMPLES_NOTE} Another x axis: --x-axis iterations|evaluations|seconds.`,
      ),
    );
  else parts.push(note('No progress samples in this log: no island got as far as its first iteration.'));
  parts.push('<h2>Diversity over time</h2>');
  if (points.some((p) => p.diversity !== null))
    parts.push(
      figure(
        await renderSvg(diversitySpec(points, x, 'diversity per island')),
        'Mean pairwise Hamming distance of 16 members at evenly spaced ranks, as a share of N.',
      ),
    );
  else parts.push(note('No progress samples in this log, so no diversity.'));
  parts.push('<h2>Migration flow per edge</h2>');
  const flows = [...edgeFlows(run.events).values()].map((f) => ({ cell: 'this run', ...f }));
  if (flows.length > 0)
    parts.push(
      figure(await renderSvg(migrationSpec(flows, 'migrants accepted along each edge in this run')), 'Rows send, columns receive.'),
    );
  else
    parts.push(
      note(
        run.header?.config.islands === 1 || run.header?.config.topology?.kind === 'none'
          ? 'No migrations: one island, or topology none.'
          : 'No migrations happened in this run (it ended before the first migration).',
      ),
    );
  parts.push(...(await observablesRunParts(run.events, KIT)));
  if (run.header) parts.push('<h2>Run config</h2>', `<pre>${escapeHtml(JSON.stringify(run.header.config, null, 2))}</pre>`);
  return page(`${path.basename(run.file)}: one run`, parts);
}

/** The page around its parts: inline CSS, no scripts, a CSP that forbids every fetch. */
function page(title: string, parts: readonly string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.5rem 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.5rem; text-align: right; vertical-align: top; }
th[scope=row], th[scope=col]:first-child { text-align: left; }
th[scope=row] { font-weight: normal; min-width: 8rem; max-width: 20rem; overflow-wrap: anywhere; }
.short { font-weight: bold; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; }
figcaption, .note, .provenance { color: #555; font-size: 0.85rem; overflow-wrap: anywhere; }
pre { background: #f6f6f6; padding: 0.75rem; white-space: pre-wrap; overflow-wrap: anywhere; }
</style>
</head>
<body>
${parts.join('\n')}
</body>
</html>
`;
}
