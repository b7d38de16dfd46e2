import type { Launcher } from '../src/archipelago/launcher.ts';
import type { CheckpointEvent } from '../src/index.ts';
import { checkpointFile, writeCheckpoint } from '../src/run/checkpoint.ts';
import { startSeededRun, type RunResult, type SeededRunConfig } from '../src/run/start-run.ts';

/**
 * Runs `config` with a checkpoint asked for at iteration `k` (`checkpointAtIteration`, not on
 * a clock, so a test repeats): once it is taken, writes it to `file` (a real checkpoint file)
 * and stops the run. Whether it was taken (a run may end before), and the run's result.
 */
export async function checkpointAt(
  launcher: Launcher,
  config: SeededRunConfig,
  k: number,
  file: string,
): Promise<{ taken: boolean; result: RunResult }> {
  const run = startSeededRun(config, { launcher, checkpointAtIteration: k });
  let taken: CheckpointEvent | null = null;
  run.events$.subscribe((event) => {
    if (event.type !== 'checkpoint') return;
    taken = event;
    writeCheckpoint(file, checkpointFile(event, config));
    run.stop();
  });
  const result = await run.result;
  return { taken: taken !== null, result };
}
