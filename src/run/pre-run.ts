/**
 * The checks before a run, one module for the library's `startRun` and the CLI's `solve`
 * alike: every file the run will write can be written, each is its own, none is a file the
 * run reads, and the result file's extension names a format the record is written in; the
 * checkpoint interval is a time; the test-only fault hook is well formed. Each caller names
 * the files as its user gave them (`output.file`, `--out`), so a refusal is one line in the
 * user's words. Nothing is started until they pass: a record or checkpoint that could not be
 * written would be lost only after the run.
 */
import { ConfigError } from '../config/errors.ts';
import { MAX_TIME_LIMIT_SECONDS } from '../config/defaults.ts';
import { checkDistinctOutputs, checkNotInputs, checkOutFile } from '../io/output-checks.ts';
import { shown } from '../io/shown.ts';
import { checkCheckpointTarget } from './checkpoint-target.ts';
import { checkRecordFormat } from './result-record.ts';
import { checkTestFaultEnv } from './test-fault.ts';

/** A file of the run, by the name its user knows it (`--out`, `output.file`, `the run config x.yaml`). */
export interface NamedFile {
  name: string;
  file: string | null | undefined;
}

export interface RunFiles {
  /** The result file (`output.file`, `--out`). */
  result: NamedFile;
  checkpoint?: NamedFile;
  trace?: NamedFile;
  /** The checkpoint a run resumes from: its new checkpoints may go there, the result and the trace may not. */
  resume?: NamedFile;
  /** Files the run reads (its config file): no output may be one of them. */
  inputs?: readonly NamedFile[];
}

const NONE: NamedFile = { name: '', file: null };
const pair = ({ name, file }: NamedFile = NONE) => [name, file] as const;

/**
 * Refuses, before the run, a file it could not write or that names another twice.
 * @throws InputError (ConfigError for the fault hook), one line naming the file as given.
 */
export function checkBeforeRun(islands: number, files: RunFiles): void {
  const { result, checkpoint, trace, resume, inputs = [] } = files;
  if (result.file !== null && result.file !== undefined) {
    // The path first: a planted link is named as such, whatever its extension.
    checkOutFile(result.name, result.file);
    checkRecordFormat(result.name, result.file);
  }
  for (const output of [checkpoint, trace]) if (output?.file) checkOutFile(output.name, output.file);
  checkDistinctOutputs([pair(result), pair(checkpoint), pair(trace)]);
  checkDistinctOutputs([pair(resume), pair(result), pair(trace)]);
  checkNotInputs([pair(result), pair(checkpoint), pair(trace)], inputs.map(pair));
  // After the pairs: a checkpoint path that is another output is named as such first.
  if (checkpoint?.file) checkCheckpointTarget(checkpoint.name, checkpoint.file);
  checkTestFaultEnv(islands);
}

/**
 * The checkpoint interval, in seconds: > 0 and at most Node's longest timer (a longer one
 * fires at once, so checkpoints would be written back to back). `given` is the value as the
 * user wrote it, for the message (a flag's text; default the value shown).
 * @throws ConfigError naming `name`.
 */
export function checkpointSeconds(name: string, seconds: unknown, given = shown(seconds)): number {
  if (typeof seconds !== 'number' || !(seconds > 0) || !(seconds <= MAX_TIME_LIMIT_SECONDS))
    throw new ConfigError(`${name}: expected a number of seconds > 0, at most ${MAX_TIME_LIMIT_SECONDS} (24.8 days), got ${given}`);
  return seconds;
}
