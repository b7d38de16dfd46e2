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
import { ConfigError } from '../../config/errors.ts';
import type { Manifest, RunRecord } from '../../experiment/records.ts';
import { conflictingRepeats, recordMisfit, studyShape } from '../../experiment/record-consistency.ts';

/** Refuses the first record that does not fit the study, naming it by `where` (`FILE:LINE`, one per record). @throws ConfigError */
export function checkRecords(manifest: Manifest, runs: readonly RunRecord[], where: readonly string[]): void {
  const study = studyShape(manifest);
  runs.forEach((run, i) => {
    const wrong = recordMisfit(run, study);
    if (wrong !== null)
      throw new ConfigError(
        `${where[i]}: record (${String(run.cell)}@${String(run.seed)}) ${wrong}; this folder holds runs of another study or damaged ones, refusing to report it (experiment --resume sets such a record aside)`,
      );
  });
  const [repeat] = conflictingRepeats(runs);
  if (repeat !== undefined) {
    const [later, first] = repeat;
    const run = runs[later];
    throw new ConfigError(
      `${where[later]}: a second record of ${String(run.cell)}@${String(run.seed)} that differs from the first (${where[first]}); a run has one record, so one of them is not this study's: refusing to report it (experiment --resume sets both aside and runs it again)`,
    );
  }
}
