/**
 * `report DIR --ioh OUT`: a study's runs in the IOHprofiler data format that IOHanalyzer
 * reads (https://iohanalyzer.liacs.nl, "Supported Data Format": meta-data `.info` files
 * and raw-data `.dat` files in the two-column variant), so a study can be opened there.
 * One folder per cell (IOHanalyzer's algorithm, `algId`), each with
 *   IOHprofiler_f1_i1.info                  suite = 'nqueens-islands', funcId = 1, DIM = N, algId = '...'
 *   data_f1/IOHprofiler_f1_DIM<N>_i1.dat    per run a block: "function evaluation" "best-so-far f(x)"
 * The function value is the run's best fitness (attacking pairs, minimised, 0 = solved); the
 * evaluations are those of all islands, as in the study's records. A run's block holds its
 * trajectory (the points where its best fitness improved) and ends at its last evaluation.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, readdirSync, renameSync, rmSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/errors.ts';
import { emptyFolderFlag } from '../experiment/errors.ts';
import type { RunRecord } from '../experiment/records.ts';
import { cellFileName } from '../experiment/sweep.ts';
import { checkFolderLinks } from '../io/output-target.ts';
import { failureReason, writeFileAtomic } from '../io/write-file.ts';
import type { StudyData } from './study-data.ts';

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

export interface IohFile {
  /** Relative to the export folder, with / separators. */
  path: string;
  text: string;
}

/** The files of the export, in memory (the runs with a failed island are left out, as from every statistic). */
export function iohFiles(study: StudyData): IohFile[] {
  const { manifest } = study;
  const version = manifest.provenance?.version ?? manifest.tool.version;
  return manifest.cells.flatMap((cell, i) => {
    const runs = study.runs.filter((r) => r.cell === cell.id);
    if (runs.length === 0) return [];
    const n = cell.config.n;
    const folder = cellFileName(cell.id);
    const dat = `data_f1/IOHprofiler_f1_DIM${n}_i1.dat`;
    // IOHanalyzer drops a run of 0 evaluations as a reset; N = 1 is answered without a search: count it as 1.
    const ends = runs.map((r) => runPoints(r).at(-1)!);
    const info = [
      `suite = 'nqueens-islands', funcId = 1, funcName = 'N-Queens', DIM = ${n}, maximization = 'F', algId = '${infoValue(`${manifest.name} c${i + 1} ${cell.id}`)}'`,
      `% ${infoValue(`${manifest.tool.name} ${version} study ${manifest.name}`)}: seeds ${runs.map((r) => r.seed).join(' ')}; f(x) = attacking pairs (minimised; 0 = solved); evaluations of all islands`,
      `${dat}, ${ends.map(([x, f]) => `1:${Math.max(1, x)}|${f}`).join(', ')}`,
    ];
    const blocks = runs.map((r) => [IOH_DAT_HEADER, ...runPoints(r).map(([x, f]) => `${Math.max(1, x)} ${f}`)].join('\n'));
    return [
      { path: `${folder}/IOHprofiler_f1_i1.info`, text: `${info.join('\n')}\n` },
      { path: `${folder}/${dat}`, text: `${blocks.join('\n')}\n` },
    ];
  });
}

/**
 * Refuses an export folder that is a file or not empty (an older export's files would mix
 * in), one reached through a link another user planted in a shared sticky folder, or one
 * whose parent folder is missing or not writable: all before any work. @throws ConfigError
 */
export function checkIohFolder(dir: string, flag = '--ioh'): void {
  if (dir === '') throw emptyFolderFlag(flag);
  try {
    checkFolderLinks(dir);
  } catch (error) {
    throw new ConfigError(`${flag} ${dir}: ${(error as Error).message}`);
  }
  const parent = path.dirname(path.resolve(dir));
  if (!statOrNull(parent)?.isDirectory()) throw new ConfigError(`${flag} ${dir}: folder ${path.dirname(dir)} does not exist`);
  try {
    accessSync(parent, constants.W_OK);
  } catch (error) {
    throw new ConfigError(`${flag} ${dir}: ${path.dirname(dir)} cannot be written (${failureReason(error)})`);
  }
  const stats = statOrNull(dir);
  if (stats === null) return;
  if (!stats.isDirectory()) throw new ConfigError(`${flag} ${dir}: is a file; expected a missing or empty folder`);
  if (readdirSync(dir).length > 0) throw new ConfigError(`${flag} ${dir}: folder is not empty; expected a missing or empty folder`);
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

/**
 * Writes the export into `dir` (see checkIohFolder) whole or not at all: into a new folder
 * beside it, renamed into place at the end. A failure (a full disk) removes that folder, so
 * nothing is left to block a retry.
 */
export function writeIoh(dir: string, files: readonly IohFile[], flag = '--ioh'): void {
  checkIohFolder(dir, flag);
  const staging = path.join(path.dirname(dir), `.${path.basename(dir)}.${process.pid}.${randomBytes(8).toString('hex')}.tmp`);
  mkdirSync(staging, { mode: 0o777 });
  try {
    for (const file of files) {
      const target = path.join(staging, ...file.path.split('/'));
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileAtomic(target, file.text);
    }
    // rename() replaces a missing or empty folder.
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}
