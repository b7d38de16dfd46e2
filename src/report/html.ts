/**
 * The report page: one self-contained HTML file (inline CSS and SVG, no scripts, a CSP that
 * forbids any network fetch), so it opens offline and can be attached to a paper's data.
 */
import path from 'node:path';
import type { StudyData } from './study-data.ts';
import { runSummaryLines, type RunData } from './run-data.ts';
import { boxPlotSpec, diversitySpec, edgeFlows, fitnessSpec, migrationSpec, progressPoints, renderSvg, type EdgeFlow } from './charts.ts';
import type { XAxis } from './x-axis.ts';
import { readEvents } from './study-data.ts';
import type { StudySummary } from './summary.ts';
import { notRepeatableNote, summaryRows } from './table.ts';
import { formatValue } from '../experiment/sweep.ts';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The run whose fitness curves are drawn: the one asked for, else the first with an event log. */
export function chooseRun(study: StudyData, wanted: { cell: string; seed: number } | null): { cell: string; seed: number } | null {
  if (wanted !== null) return wanted;
  for (const run of study.runs) if (readEvents(study, run.cell, run.seed) !== null) return { cell: run.cell, seed: run.seed };
  return null;
}

/** Every column of the terminal table (summaryRows), as an HTML table. */
function summaryTable(summary: StudySummary): string {
  const { header, rows } = summaryRows(summary, '×');
  const body = rows.map((cells) => `<tr>${cells.map((x, i) => (i === 0 ? `<th scope="row">${escapeHtml(x)}</th>` : `<td>${escapeHtml(x)}</td>`)).join('')}</tr>`);
  return `<table><thead><tr>${header.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/** How progress samples are taken (island-runner.ts), for the captions. */
const SAMPLES_NOTE = 'One point per progress sample: every island samples at its start, at iterations 1, 2, 3, 4, 6, 8, 12, 16, ..., every 250 ms, and at its end.';

function figure(svg: string, caption: string): string {
  return `<figure>${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

function note(text: string): string {
  return `<p class="note">${escapeHtml(text)}</p>`;
}

/** Builds the whole page. `run` picks the run for the fitness chart (`report --run`). */
export async function renderHtml(study: StudyData, summary: StudySummary, run: { cell: string; seed: number } | null, x: XAxis = 'iterations'): Promise<string> {
  const { manifest } = study;
  const cells = manifest.cells.map((c) => c.id);
  const unsolved = summary.cells.filter((c) => c.solved < c.runs).map((c) => `${c.id}: ${c.runs - c.solved} of ${c.runs}`);
  const parts: string[] = [];
  parts.push(`<h1>${escapeHtml(manifest.name)}</h1>`);
  if (manifest.description) parts.push(`<p>${escapeHtml(manifest.description)}</p>`);
  parts.push(
    `<p>${summary.finishedRuns} of ${summary.expectedRuns} runs; seeds ${escapeHtml(summary.seeds.join(', '))} in every cell (paired). ` +
      `${escapeHtml(manifest.tool.name)} ${escapeHtml(manifest.tool.version)}, Node ${escapeHtml(manifest.environment.node)}, ` +
      `${escapeHtml(manifest.environment.cpuModel)} × ${manifest.environment.cores}, started ${escapeHtml(manifest.startedAt)}.</p>`,
  );
  parts.push('<h2>Summary</h2>', summaryTable(summary));
  const unrepeatable = notRepeatableNote(summary);
  if (unrepeatable) parts.push(note(unrepeatable));
  if (summary.failedRuns.length > 0) parts.push(note(`Left out of every number and plot because an island failed: ${summary.failedRuns.join('; ')}.`));
  if (summary.baseline !== null) {
    const base = Object.entries(summary.baseline).map(([k, v]) => `${k}=${formatValue(v)}`).join(', ');
    parts.push(
      note(
        `Each cell is compared with its baseline (${base}) on the seeds both ran. Time ratio: median over seeds of cell time / baseline time (pairs where both solved). ` +
          'r: matched-pairs rank-biserial correlation of the paired differences (−1: the cell was faster on every seed). ' +
          'p: two-sided Wilcoxon signed-rank test (@stdlib/stats-wilcoxon; zero differences dropped; exact without ties, else normal approximation); p Holm: adjusted for the number of cells. ' +
          'Medians and quartiles count an unsolved run as slower than any solved one (∞).',
      ),
    );
  }

  parts.push('<h2>Time and evaluations to solution</h2>');
  if (unsolved.length > 0) parts.push(note(`Box plots show solved runs only. Unsolved: ${unsolved.join('; ')}.`));
  for (const metric of ['seconds', 'evaluations'] as const) {
    if (study.runs.some((r) => r.solved)) parts.push(figure(await renderSvg(boxPlotSpec(study.runs, cells, metric)), `Box plot per cell (log scale), ${metric}.`));
    else parts.push(note('No run has solved yet: nothing to plot.'));
  }

  parts.push('<h2>Best fitness over time</h2>');
  const chosen = chooseRun(study, run);
  const events = chosen ? readEvents(study, chosen.cell, chosen.seed) : null;
  const points = events ? progressPoints(events, x) : [];
  if (chosen && points.length > 0) {
    parts.push(figure(await renderSvg(fitnessSpec(points, x, `best fitness per island: ${chosen.cell}, seed ${chosen.seed}`)), `${SAMPLES_NOTE} Choose another run with report --run CELL@SEED, another x axis with --x-axis.`));
  } else if (chosen && events) {
    parts.push(note(`The event log of ${chosen.cell}, seed ${chosen.seed} has no progress samples (no island got as far as its first iteration).`));
  } else {
    parts.push(note(chosen ? `No event log for ${chosen.cell}, seed ${chosen.seed}: it was run without --events.` : 'No event logs in this study: run the experiment with --events to record progress samples and migrations.'));
  }

  parts.push('<h2>Migration flow per edge</h2>');
  const flows: EdgeFlow[] = [];
  let logged = 0;
  for (const cell of cells) {
    const sums = new Map<string, EdgeFlow>();
    let runs = 0;
    for (const r of study.runs.filter((x) => x.cell === cell)) {
      const ev = readEvents(study, r.cell, r.seed);
      if (ev === null) continue;
      runs++;
      for (const [key, f] of edgeFlows(ev)) {
        const sum = sums.get(key) ?? { cell, from: f.from, to: f.to, sent: 0, accepted: 0 };
        sum.sent += f.sent;
        sum.accepted += f.accepted;
        sums.set(key, sum);
      }
    }
    logged += runs;
    for (const s of sums.values()) flows.push({ ...s, sent: s.sent / runs, accepted: s.accepted / runs });
  }
  if (flows.length > 0) parts.push(figure(await renderSvg(migrationSpec(flows)), 'Cells without migrations (topology none, one island) have no panel.'));
  else parts.push(note(logged === 0 ? 'No event logs in this study: run the experiment with --events to record the migration log.' : 'No migrations happened in the logged runs.'));

  parts.push('<h2>Experiment file</h2>', `<p>sha256 <code>${manifest.experiment.sha256}</code></p>`, `<pre>${escapeHtml(manifest.experiment.text)}</pre>`);

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
  if (points.length > 0) parts.push(figure(await renderSvg(fitnessSpec(points, x, 'best fitness per island')), `${SAMPLES_NOTE} Another x axis: --x-axis iterations|evaluations|seconds.`));
  else parts.push(note('No progress samples in this log: no island got as far as its first iteration.'));
  parts.push('<h2>Diversity over time</h2>');
  if (points.some((p) => p.diversity !== null)) parts.push(figure(await renderSvg(diversitySpec(points, x, 'diversity per island')), 'Mean pairwise Hamming distance of 16 members at evenly spaced ranks, as a share of N.'));
  else parts.push(note('No progress samples in this log, so no diversity.'));
  parts.push('<h2>Migration flow per edge</h2>');
  const flows = [...edgeFlows(run.events).values()].map((f) => ({ cell: 'this run', ...f }));
  if (flows.length > 0) parts.push(figure(await renderSvg(migrationSpec(flows, 'migrants accepted along each edge in this run')), 'Rows send, columns receive.'));
  else parts.push(note(run.header?.config.islands === 1 || run.header?.config.topology?.kind === 'none' ? 'No migrations: one island, or topology none.' : 'No migrations happened in this run (it ended before the first migration).'));
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
table { border-collapse: collapse; font-size: 0.85rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.5rem; text-align: right; }
th[scope=row], th[scope=col]:first-child { text-align: left; }
figure { margin: 1rem 0; overflow-x: auto; }
figcaption, .note { color: #555; font-size: 0.85rem; }
pre { background: #f6f6f6; padding: 0.75rem; overflow-x: auto; }
</style>
</head>
<body>
${parts.join('\n')}
</body>
</html>
`;
}
