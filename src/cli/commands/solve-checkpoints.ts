/**
 * `solve --checkpoint FILE --checkpoint-every S`: the period, the pipeline's checkpoint
 * option and the note of each write (src/run/pipeline.ts writes them).
 */
import { checkpointSeconds } from '../../run/pre-run.ts';
import type { CheckpointEvent } from '../../archipelago/events.ts';
import type { PipelineOptions } from '../../run/pipeline.ts';
import { DEFAULT_CHECKPOINT_EVERY } from '../../config/defaults.ts';
import { numberLiteral } from '../../schema/flag-value.ts';
import { writeError } from '../../io/write-file.ts';
import { UsageError } from '../errors.ts';
import { printError } from '../output.ts';

/** `--checkpoint-every`: seconds > 0, and only with `--checkpoint`. */
export function checkpointEverySeconds(args: { checkpointEvery?: string | number; checkpoint?: string }): number {
  const raw = args.checkpointEvery;
  if (raw === undefined) return DEFAULT_CHECKPOINT_EVERY;
  const text = String(raw).trim();
  const seconds = checkpointSeconds('--checkpoint-every', numberLiteral(text), JSON.stringify(text));
  if (args.checkpoint === undefined) throw new UsageError('--checkpoint-every: needs --checkpoint FILE to say where checkpoints go');
  return seconds;
}

/** The pipeline's checkpoint option for `--checkpoint FILE` (none without it): every `everySeconds`, each write noted. */
export function checkpointsOf(file: string | null, everySeconds: number, notes: boolean): Pick<PipelineOptions, 'checkpoints'> {
  if (file === null) return {};
  return {
    checkpoints: {
      file,
      everyMs: everySeconds * 1000,
      onWrite: (e, error, repeated) => noteCheckpoint(file, e, { error, repeated }, notes),
    },
  };
}

/**
 * After each checkpoint: a failed write is one line and the run goes on (the previous checkpoint stays), said again only
 * when it fails another way or after a write that worked; a written one a note.
 */
function noteCheckpoint(path: string, event: CheckpointEvent, write: { error: unknown; repeated: boolean }, note: boolean): void {
  const { error, repeated } = write;
  if (error !== null) {
    if (!repeated) printError(`${writeError('--checkpoint', path, error)}; the run goes on (the previous checkpoint, if any, stays)`);
  } else if (note) {
    const at = event.epoch === null ? `iteration ${Math.max(...event.islands.map((i) => i.state.iterations))}` : `epoch ${event.epoch}`;
    printError(`checkpoint written to ${path} (${at})`);
  }
}
