/**
 * Thin glue for `report`'s worker thread (src/cli/report-thread.ts): started early, it waits
 * for the request, makes the report's outputs (src/report/report-outputs.ts) and posts them, or
 * the error that refused them, to the main thread, which writes them. Says first that the work started.
 */
import { parentPort } from 'node:worker_threads';
import { makeReportOutputs, type ReportRequest } from '../src/report/report-outputs.ts';
import { describeError, type ReportWorkerMessage } from '../src/report/report-messages.ts';

const port = parentPort!;
const post = (message: ReportWorkerMessage) => port.postMessage(message);
port.once('message', (request: ReportRequest) => {
  post({ started: true });
  makeReportOutputs(request).then(
    (outputs) => post({ outputs }),
    (error: unknown) => post({ error: describeError(error) }),
  );
});
