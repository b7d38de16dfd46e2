/**
 * The study's progress on stderr: runs done, the current cell (or, for a distributed study,
 * every host with its run count and current run) and the time left. On a terminal that
 * takes cursor movement, a bar; on a log file, a pipe or TERM=dumb (a batch job's log), a
 * plain line every PROGRESS_LINE_MS (plainProgress). Cell ids come from a file: shown through safeText.
 */
import { createLogUpdate } from 'log-update';
import { drawsOn, safeText } from '../io/terminal.ts';
import type { StudyHooks } from './runner.ts';

export interface Progress {
  hooks: StudyHooks;
  log(line: string): void;
  stop(): void;
}

/** How often the plain progress line is printed. */
export const PROGRESS_LINE_MS = 10_000;
/**
 * Tests only: a shorter interval (0: at every run's end), so a test sees lines without
 * waiting. It can only shorten the interval, never lengthen or silence it.
 */
export const PROGRESS_TEST_ENV = 'NQI_TEST_PROGRESS_MS';

/** The interval, from PROGRESS_TEST_ENV when it is a shorter whole number of milliseconds. */
export function progressInterval(env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number(env[PROGRESS_TEST_ENV]);
  return /^\d+$/.test(env[PROGRESS_TEST_ENV] ?? '') && asked < PROGRESS_LINE_MS ? asked : PROGRESS_LINE_MS;
}

/** Seconds as `1h02m`, `4m10s` or `35s`. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** The time left at this invocation's pace (`newRuns` done in `elapsedMs`, `left` to go); null before its first run ends. */
function timeLeft(elapsedMs: number, newRuns: number, left: number): string | null {
  return newRuns === 0 ? null : duration(((elapsedMs / newRuns) * left) / 1000);
}

/**
 * The plain progress line, for a stream that is no terminal: at most one every `intervalMs`
 * (on a timer, and at a run's end when one is due), with the UTC time, runs done of total,
 * the current run, and the time left estimated from this invocation's runs so far.
 */
export function plainProgress(stream: NodeJS.WritableStream, intervalMs = progressInterval(), now = () => Date.now()): Progress {
  const write = (line: string) => stream.write(`${safeText(line)}\n`);
  let total = 0;
  let done = 0;
  let doneBefore = 0;
  let doing = '';
  let started = 0;
  let last = 0;
  const line = () => {
    last = now();
    const newRuns = done - doneBefore;
    const time = timeLeft(last - started, newRuns, total - done);
    const left = time === null ? 'time left unknown' : `about ${time} left`;
    const on = doing === '' || done === total ? '' : `, on ${doing}`;
    write(`nqueens-islands: ${new Date(last).toISOString()} runs ${done}/${total}${on}; ${done === total ? 'done' : left}`);
  };
  const due = () => now() - last >= intervalMs;
  let timer: NodeJS.Timeout | null = null;
  const stop = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
  };
  const hooks: StudyHooks = {
    onPlan(planned, already) {
      [total, done, doneBefore, started, last] = [planned, already, already, now(), now()];
      // The timer keeps no process alive; the run's workers do.
      if (intervalMs > 0) timer = setInterval(() => due() && line(), Math.min(intervalMs, 1000)).unref();
    },
    onRunStart(run) {
      doing = `${run.cell.id} seed ${run.seed}`;
    },
    onRunEnd() {
      done++;
      if (due()) line();
    },
    onHosts(hosts) {
      doing = hosts.map((h) => `${h.name}: ${h.current ?? 'idle'}`).join(', ');
    },
  };
  return { hooks, log: write, stop };
}

/** How often the bar redraws (its time left moves while a long run goes on). */
const BAR_REDRAW_MS = 500;
const BAR_WIDTH = 40;

/** The bar's one line: runs done of total, a 40-column bar, the percentage, the time left and the run going on. */
export function barLine(done: number, total: number, left: string, doing: string): string {
  const filled = total > 0 ? Math.round((done / total) * BAR_WIDTH) : BAR_WIDTH;
  const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
  return `runs ${done}/${total} |${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}| ${percent}% | ETA ${left} | ${doing}`;
}

/**
 * The study's progress on `stream`: the bar on a terminal (redrawn in place by log-update, the
 * terminal library the live view uses too), else the plain line, or (`quiet`) only the notes passed to `log`.
 */
export function progressBar(stream: NodeJS.WriteStream = process.stderr, quiet = false, now = () => Date.now()): Progress {
  const plainLog = (line: string) => stream.write(`${safeText(line)}\n`);
  if (quiet) return { hooks: {}, log: plainLog, stop: () => {} };
  if (!drawsOn(stream)) return plainProgress(stream);
  const draw = createLogUpdate(stream);
  const state = { total: 0, done: 0, doneBefore: 0, started: 0, doing: '' };
  let timer: NodeJS.Timeout | null = null;
  const frame = () => {
    const { total, done, doneBefore, started, doing } = state;
    // Before the first run of this invocation ends there is no rate: '…'.
    const left = timeLeft(now() - started, done - doneBefore, total - done) ?? '…';
    // One column short of the width: a line that wraps takes two rows, which the next redraw does not erase.
    draw(barLine(done, total, left, doing).slice(0, Math.max(1, (stream.columns || 80) - 1)));
  };
  const hooks: StudyHooks = {
    onPlan(total, done) {
      Object.assign(state, { total, done, doneBefore: done, started: now() });
      // The timer keeps no process alive; the run's workers do.
      timer = setInterval(frame, BAR_REDRAW_MS).unref();
      frame();
    },
    onRunStart(run) {
      state.doing = safeText(`${run.cell.id} seed ${run.seed}`);
      frame();
    },
    onRunEnd() {
      state.done++;
      frame();
    },
    onHosts(hosts) {
      const each = hosts.map((h) => `${h.name}: ${h.runs} done${h.current ? `, on ${h.current}` : ''}`);
      state.doing = safeText(`${hosts.length} host${hosts.length === 1 ? '' : 's'} | ${each.join(' | ')}`);
      frame();
    },
  };
  return {
    hooks,
    // Above the bar: the bar is cleared, the line written, the bar drawn again below it.
    log: (line) => {
      if (timer === null) return plainLog(line);
      draw.clear();
      plainLog(line);
      frame();
    },
    stop: () => {
      if (timer === null) return;
      clearInterval(timer);
      timer = null;
      frame();
      draw.done();
    },
  };
}
