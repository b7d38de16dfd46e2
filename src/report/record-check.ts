/**
 * A study's records are checked against its manifest before any number is made from them:
 * a record of a cell the study does not have or of a seed it does not run means the folder
 * holds something other than this study's runs; so does a record that contradicts itself
 * (experiment/record-consistency.ts: "solved" without a valid solution, "unsolved" that
 * reached fitness 0, a trajectory that is no course of the run).
 * The report refuses such a folder (one line naming the record and what is wrong, exit 2)
 * rather than dropping the record: a count of "7 of 6 runs" or a success that is none would
 * be the study's claim.
 */
import { ConfigError } from '../config/errors.ts';
import type { Manifest, RunRecord } from '../experiment/records.ts';
import { recordContradiction } from '../experiment/record-consistency.ts';
import { canonicalJson } from '../provenance.ts';

/** What a record is checked against: the study's cells by id and its seeds (looked up, not searched, per record). */
interface StudyShape {
  cells: ReadonlyMap<string, Manifest['cells'][number]>;
  /** Each cell's sweep values as canonical JSON: a record carries its cell's. */
  values: ReadonlyMap<string, string>;
  seeds: ReadonlySet<number>;
  manifest: Manifest;
}

/** What is wrong with one record, or null when it fits the study. */
function misfit(run: RunRecord, study: StudyShape): string | null {
  const cell = study.cells.get(run.cell);
  if (cell === undefined) return `cell ${JSON.stringify(run.cell)} is not one of the study's ${study.manifest.cells.length} cells`;
  if (canonicalJson(run.values) !== study.values.get(run.cell))
    return `values ${JSON.stringify(run.values)} are not its cell's (${JSON.stringify(cell.values)})`;
  if (!study.seeds.has(run.seed)) return `seed ${run.seed} is not one of the study's seeds (${study.manifest.seeds.length} per cell)`;
  if (run.error) return null;
  return recordContradiction(run, cell.config.n);
}

/** Refuses the first record that does not fit the study. @throws ConfigError */
export function checkRecords(manifest: Manifest, runs: readonly RunRecord[], file: string): void {
  // Reversed: of two cells of one id, the first is kept, as a search would find it.
  const cells = new Map(manifest.cells.map((c) => [c.id, c] as const).reverse());
  const values = new Map([...cells].map(([id, c]) => [id, canonicalJson(c.values)]));
  const study = { cells, values, seeds: new Set(manifest.seeds), manifest };
  runs.forEach((run, i) => {
    const wrong = misfit(run, study);
    if (wrong !== null)
      throw new ConfigError(
        `${file}: record ${i + 1} (${String(run.cell)}@${String(run.seed)}) ${wrong}; this folder holds runs of another study, refusing to report it`,
      );
  });
}
