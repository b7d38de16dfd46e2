/**
 * The study's progress bar on stderr: runs done, the current cell (or, for a distributed
 * study, every host with its run count and current run) and the time left. Only on a
 * terminal that takes cursor movement; a log file, a pipe or TERM=dumb gets nothing but the
 * notes passed to `log` (nohup runs stay clean). Cell ids come from a file: shown through safeText.
 */
import cliProgress from 'cli-progress';
import { drawsOn, safeText } from '../io/terminal.ts';
import type { StudyHooks } from './runner.ts';

export function progressBar(stream: NodeJS.WriteStream = process.stderr): { hooks: StudyHooks; log(line: string): void; stop(): void } {
  const plainLog = (line: string) => stream.write(`${safeText(line)}\n`);
  if (!drawsOn(stream)) return { hooks: {}, log: plainLog, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'runs {value}/{total} |{bar}| {percentage}% | ETA {eta_formatted} | {doing}',
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
      bar.start(total, done, { doing: '' });
      started = true;
    },
    onRunStart(run) {
      bar.update({ doing: safeText(`${run.cell.id} seed ${run.seed}`) });
    },
    onRunEnd() {
      bar.increment();
    },
    onHosts(hosts) {
      const each = hosts.map((h) => `${h.name}: ${h.runs} done${h.current ? `, on ${h.current}` : ''}`);
      bar.update({ doing: safeText(`${hosts.length} host${hosts.length === 1 ? '' : 's'} | ${each.join(' | ')}`) });
    },
  };
  return {
    hooks,
    // Over the bar's line: the bar redraws itself below at its next frame.
    log: (line) => (started ? stream.write(`\r\x1b[2K${safeText(line)}\n`) : plainLog(line)),
    stop: () => {
      if (started) bar.stop();
      started = false;
    },
  };
}
