/**
 * Thin glue for `report`'s worker thread: makes the report's outputs from the request it is
 * started with (src/report/report-outputs.ts) and posts them, or the error that refused them,
 * to the main thread, which writes them. Says first that the work started.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { makeReportOutputs, type ReportRequest } from '../src/report/report-outputs.ts';
import { describeError, type ReportWorkerMessage } from '../src/report/report-messages.ts';

const port = parentPort!;
const post = (message: ReportWorkerMessage) => port.postMessage(message);
post({ started: true });
makeReportOutputs(workerData as ReportRequest).then(
  (outputs) => post({ outputs }),
  (error: unknown) => post({ error: describeError(error) }),
);
