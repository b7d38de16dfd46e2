/**
 * `report`'s worker thread (workers/report-worker.ts), which makes the report's outputs while
 * the CLI's thread stays idle and hears a signal at once. The entry point starts it before
 * yargs and the commands load (as `solve`'s pool, early-host.ts): loading the report's code
 * in a new thread is most of what the thread costs, and it then overlaps the CLI's own start.
 * It waits, holding nothing up (unref'd), until the command hands it the request.
 */
import { Worker } from 'node:worker_threads';
import { workerFile } from '../archipelago/worker-path.ts';
import { rebuiltError, type ReportWorkerMessage } from '../report/report-messages.ts';
import type { ReportOutputs, ReportRequest } from '../report/report-outputs.ts';
import { signalNote } from './signals.ts';

/** The thread started early, and why it ended if it did before the command took it (a thread that cannot start: EMFILE). */
let early: { worker: Worker; ended: Error | undefined } | null = null;

/** Whether this process may start worker threads (Node's permission model may refuse them). */
export function workerThreadsAllowed(): boolean {
  const permission = process.permission as NodeJS.ProcessPermission | undefined;
  return permission === undefined || permission.has('worker');
}

function startWorker(): Worker {
  const { filename, execArgv } = workerFile('report-worker');
  return new Worker(filename, { execArgv });
}

/** Starts the thread for a `report` command line (`argv` without the command), unless it asks for help or serves a page. */
export function startReportThread(argv: readonly string[]): void {
  if (argv.some((arg) => ['--help', '-h', '--serve'].includes(arg) || arg.startsWith('--serve=')) || !workerThreadsAllowed()) return;
  const worker = startWorker();
  const started: { worker: Worker; ended: Error | undefined } = { worker, ended: undefined };
  worker.once('error', (error: Error) => (started.ended ??= error));
  worker.once('exit', (code) => (started.ended ??= new Error(`report's worker thread ended before its work (exit code ${code})`)));
  worker.unref();
  early = started;
}

/** The report's outputs, made in the thread started early (or a new one); its error comes back as the same class and message. */
export function reportInThread(request: ReportRequest): Promise<ReportOutputs> {
  const taken = early;
  early = null;
  if (taken !== null && taken.ended !== undefined) return Promise.reject(taken.ended);
  const worker = taken?.worker ?? startWorker();
  worker.ref();
  return new Promise((resolve, reject) => {
    worker.on('message', (message: ReportWorkerMessage) => {
      if ('started' in message) return signalNote('report work started');
      if ('outputs' in message) resolve(message.outputs);
      else reject(rebuiltError(message.error));
      void worker.terminate();
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`report's worker thread ended without the report (exit code ${code})`)));
    worker.postMessage(request);
  });
}
