/**
 * `report DIR --ioh OUT`: a study's runs in the IOHprofiler data format that IOHanalyzer
 * reads (https://iohanalyzer.liacs.nl, "Supported Data Format": meta-data `.info` files
 * and raw-data `.dat` files in the two-column variant), so a study can be opened there.
 * One folder per cell (IOHanalyzer's algorithm, `algId`), each with
 *   IOHprofiler_f1_i1.info                  suite = 'nqueens-islands', funcId = 1, DIM = N, algId = '...'
 *   data_f1/IOHprofiler_f1_DIM<N>_i1.dat    per run a block: "function evaluation" "best-so-far f(x)"
 * The function value is the run's best fitness (the paper's: the sum over diagonals of queens on it - 1, minimised, 0 = solved; not attacking pairs); the
 * evaluations are those of all islands, as in the study's records. A run's block holds its
 * trajectory (the points where its best fitness improved) and ends at its last evaluation.
 */
import { hasOwnFitness } from '../../ga/create-evolver.ts';
import type { RunRecord } from '../../experiment/records.ts';
import { cellFileName } from '../../experiment/sweep.ts';
import type { ExportFile } from './export-folder.ts';
import type { StudyData } from '../data/study-data.ts';

/** The raw-data header line: IOHanalyzer's run separator, in the two-column format. */
export const IOH_DAT_HEADER = '"function evaluation" "best-so-far f(x)"';

/** Text for a single-quoted .info value: IOHanalyzer splits the line at commas and strips quotes, so neither may occur in it. */
function infoValue(text: string): string {
  return text
    .replace(/[,'"\n\r]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A run's points: its trajectory (the one record of its course, which every reader of it
 * uses), closed at the run's last evaluation should the trajectory end before it; only its
 * end for records without one.
 */
export function runPoints(run: RunRecord): [number, number][] {
  const t = run.trajectory ?? [];
  if (t.length === 0) return [[run.evaluations, run.fitness]];
  const [x, f] = t[t.length - 1];
  return x < run.evaluations ? [...t, [run.evaluations, Math.min(f, run.fitness)]] : t;
}

/**
 * The files of the export, in memory (the runs with a failed island are left out, as from every
 * statistic; so are cells whose GA mode has its own fitness, takeover: f would not be the paper's).
 */
export function iohFiles(study: StudyData): ExportFile[] {
  const { manifest } = study;
  const version = manifest.provenance?.version ?? manifest.tool.version;
  return manifest.cells.flatMap((cell, i) => {
    const runs = study.runs.filter((r) => r.cell === cell.id);
    if (runs.length === 0 || hasOwnFitness(cell.config.ga.mode)) return [];
    const n = cell.config.n;
    const folder = cellFileName(cell.id);
    const dat = `data_f1/IOHprofiler_f1_DIM${n}_i1.dat`;
    // IOHanalyzer drops a run of 0 evaluations as a reset; N = 1 is answered without a search: count it as 1.
    const ends = runs.map((r) => runPoints(r).at(-1)!);
    const info = [
      `suite = 'nqueens-islands', funcId = 1, funcName = 'N-Queens', DIM = ${n}, maximization = 'F', algId = '${infoValue(`${manifest.name} c${i + 1} ${cell.id}`)}'`,
      `% ${infoValue(`${manifest.tool.name} ${version} study ${manifest.name}`)}: seeds ${runs.map((r) => r.seed).join(' ')}; f(x) = fitness, the sum over diagonals of (queens on it - 1) (minimised; 0 = solved); evaluations of all islands`,
      `${dat}, ${ends.map(([x, f]) => `1:${Math.max(1, x)}|${f}`).join(', ')}`,
    ];
    const blocks = runs.map((r) => [IOH_DAT_HEADER, ...runPoints(r).map(([x, f]) => `${Math.max(1, x)} ${f}`)].join('\n'));
    return [
      { path: `${folder}/IOHprofiler_f1_i1.info`, text: `${info.join('\n')}\n` },
      { path: `${folder}/${dat}`, text: `${blocks.join('\n')}\n` },
    ];
  });
}
