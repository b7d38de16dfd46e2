/**
 * The study's progress bar on stderr: runs done, the current cell and the time left. Only
 * on a terminal; a log file or a pipe gets nothing (nohup runs stay clean).
 */
import cliProgress from 'cli-progress';
import type { StudyHooks } from './runner.ts';

export function progressBar(stream: NodeJS.WriteStream = process.stderr): { hooks: StudyHooks; stop(): void } {
  if (!stream.isTTY) return { hooks: {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'runs {value}/{total} |{bar}| {percentage}% | ETA {eta_formatted} | {cell} seed {seed}',
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 20,
      // Runs are long: recompute the time left on every redraw, not only when a run ends.
      etaAsynchronousUpdate: true,
      fps: 2,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const hooks: StudyHooks = {
    onPlan(total, done) {
      bar.start(total, done, { cell: '', seed: '' });
      started = true;
    },
    onRunStart(run) {
      bar.update({ cell: run.cell.id, seed: run.seed });
    },
    onRunEnd() {
      bar.increment();
    },
  };
  return {
    hooks,
    stop: () => {
      if (started) bar.stop();
      started = false;
    },
  };
}
