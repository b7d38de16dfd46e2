/**
 * Two sections of the study page that read the event logs: one run's best fitness per island
 * over time, and the migrants accepted along each topology edge per cell.
 */
import {
  edgeFlows,
  fitnessSpec,
  MAX_DRAWN_PER_ISLAND,
  migrationSpec,
  progressPoints,
  renderSvg,
  type EdgeFlow,
} from '../figures/charts.ts';
import type { PageKit } from '../figures/observables-charts.ts';
import { shortNames } from '../statistics/run-length.ts';
import { readEvents, type StudyData } from '../data/study-data.ts';
import type { XAxis } from '../figures/x-axis.ts';

/** What one run's progress points are, for the fitness figures' captions. */
export const SAMPLES_NOTE = `One point per progress sample: every island samples at its start, at iterations 1, 2, 3, 4, 6, 8, 12, 16, ..., every 250 ms, and at its end (an island with more than ${MAX_DRAWN_PER_ISLAND} samples is drawn from the first, last, lowest and highest of each of ${MAX_DRAWN_PER_ISLAND / 4} equal stretches).`;

/** The run whose fitness curves are drawn: the one asked for, else the first with an event log. */
export function chooseRun(study: StudyData, wanted: { cell: string; seed: number } | null): { cell: string; seed: number } | null {
  if (wanted !== null) return wanted;
  for (const run of study.runs) if (readEvents(study, run.cell, run.seed) !== null) return { cell: run.cell, seed: run.seed };
  return null;
}

/** One run's best fitness per island over `x`: the run asked for, else the first with an event log. */
export async function fitnessSection(
  study: StudyData,
  run: { cell: string; seed: number } | null,
  x: XAxis,
  kit: PageKit,
): Promise<string[]> {
  const { figure, note } = kit;
  const parts: string[] = [];
  parts.push('<h2>Best fitness over time</h2>');
  const chosen = chooseRun(study, run);
  const events = chosen ? readEvents(study, chosen.cell, chosen.seed) : null;
  const points = events ? progressPoints(events, x) : [];
  if (chosen && points.length > 0) {
    parts.push(
      figure(
        await renderSvg(fitnessSpec(points, x, `best fitness per island: ${chosen.cell}, seed ${chosen.seed}`)),
        `${SAMPLES_NOTE} Choose another run with report --run CELL@SEED, another x axis with --x-axis.`,
      ),
    );
  } else if (chosen && events) {
    parts.push(
      note(`The event log of ${chosen.cell}, seed ${chosen.seed} has no progress samples (no island got as far as its first iteration).`),
    );
  } else {
    parts.push(
      note(
        chosen
          ? `No event log for ${chosen.cell}, seed ${chosen.seed}: it was run without --events.`
          : 'No event logs in this study: run the experiment with --events to record progress samples and migrations.',
      ),
    );
  }

  return parts;
}

/** Per cell, the mean over its logged runs of migrants accepted along each edge. */
export async function migrationSection(study: StudyData, cells: readonly string[], kit: PageKit): Promise<string[]> {
  const { figure, note } = kit;
  const parts: string[] = [];
  parts.push('<h2>Migration flow per edge</h2>');
  const flows: EdgeFlow[] = [];
  let logged = 0;
  const names = shortNames(cells);
  for (const cell of cells) {
    const sums = new Map<string, EdgeFlow>();
    let runs = 0;
    for (const r of study.runs.filter((x) => x.cell === cell)) {
      const ev = readEvents(study, r.cell, r.seed);
      if (ev === null) continue;
      runs++;
      for (const [key, f] of edgeFlows(ev)) {
        const sum = sums.get(key) ?? { cell: names.get(cell)!, from: f.from, to: f.to, sent: 0, accepted: 0 };
        sum.sent += f.sent;
        sum.accepted += f.accepted;
        sums.set(key, sum);
      }
    }
    logged += runs;
    for (const s of sums.values()) flows.push({ ...s, sent: s.sent / runs, accepted: s.accepted / runs });
  }
  if (flows.length > 0) {
    const title = 'migrants accepted per run along each edge (mean over runs with event logs)';
    parts.push(
      figure(
        await renderSvg(migrationSpec(flows, title, [...names.values()])),
        'Rows send, columns receive; the colour scale starts at 0. Cells without migrations (topology none, one island) have no panel.',
      ),
    );
  } else
    parts.push(
      note(
        logged === 0
          ? 'No event logs in this study: run the experiment with --events to record the migration log.'
          : 'No migrations happened in the logged runs.',
      ),
    );

  return parts;
}
