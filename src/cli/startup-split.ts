/**
 * Where a `solve` start goes, for `npm run bench` (docs/performance.md): with
 * NQI_STARTUP_SPLIT=1 the process ends with one stderr line of milestones, each in ms since
 * the process started (`performance.now()`), so creep shows in the part that crept. Off, it
 * costs one environment read.
 */
import { performance } from 'node:perf_hooks';

export const STARTUP_SPLIT_ENV = 'NQI_STARTUP_SPLIT';

const marks = new Map<string, number>();
const on = process.env[STARTUP_SPLIT_ENV] === '1';

/**
 * Called first by the entry point: Node's own start (bootstrap done), the CLI's script loaded
 * (now), each worker thread online (as the main thread hears it); the line is printed at exit.
 */
export function startSplit(): void {
  if (!on) return;
  marks.set('node', performance.nodeTiming.bootstrapComplete);
  marks.set('cli', performance.now());
  process.on('worker', (worker) => worker.once('online', () => marks.set('workers', performance.now())));
  process.on('exit', () => {
    marks.set('exit', performance.now());
    const line = [...marks].map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(', ');
    process.stderr.write(`start-up split (ms since the process started): ${line}\n`);
  });
}

/** `launched`: the run handed to the islands; `result`: the result written, its search having started `startupSeconds` after launch. */
export function markSplit(name: 'launched' | 'result', startupSeconds?: number): void {
  if (!on) return;
  const now = performance.now();
  if (startupSeconds !== undefined && marks.has('launched')) marks.set('search', marks.get('launched')! + startupSeconds * 1000);
  marks.set(name, now);
}
