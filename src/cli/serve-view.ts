/**
 * The CLI's edge of the live view (src/serve): starts it for a command, prints its URL as the
 * first line on stderr, and turns a port that cannot be had into one line (exit 2).
 */
import type { Experiment } from '../experiment/load.ts';
import type { SeededRunConfig } from '../run/start-run.ts';
import { cannotListen, type ServeOptions } from '../serve/options.ts';
import type { RunServer, StudyServer, ViewServer } from '../serve/serve.ts';
import { UsageError } from './errors.ts';
import { printBare, printError } from './output.ts';
import { claimSignals } from './signals.ts';

export { withStudyView } from '../serve/study-hooks.ts';

async function started<T extends ViewServer>(at: ServeOptions, start: () => Promise<T>): Promise<T> {
  let server: T;
  try {
    server = await start();
  } catch (error) {
    const why = cannotListen(error, at);
    if (why === null) throw error;
    throw new UsageError(`--serve ${at.port}: ${why}`);
  }
  printBare(server.url);
  return server;
}

/** `solve --serve`: the run's view, up before the run starts. */
export async function startRunView(config: SeededRunConfig, at: ServeOptions): Promise<RunServer> {
  const { serveRun } = await import('../serve/serve.ts');
  return started(at, () => serveRun(config, at));
}

/** `experiment --serve`: the study's view. */
export async function startStudyView(experiment: Experiment, outDir: string, at: ServeOptions): Promise<StudyServer> {
  const { experimentPlan, serveStudy } = await import('../serve/serve.ts');
  return started(at, () => serveStudy(experimentPlan(experiment), outDir, at));
}

/** `report ... --serve`: serves what is on disk until a signal (Ctrl-C) stops it. */
export async function serveUntilStopped(at: ServeOptions, start: () => Promise<ViewServer>): Promise<void> {
  const server = await started(at, start);
  await untilSignal(new Promise<void>(() => {}));
  await server.close();
}

/**
 * After a run or study ended (its result printed): its view stays served until a page has had
 * the whole of it and was closed, or until a signal, so a run that ends in a moment can still
 * be looked at. Said on stderr, since the command has not exited yet.
 */
export async function lingerThenClose(server: ViewServer, what: 'run' | 'study'): Promise<void> {
  printError(`the ${what} is over; its view stays served at ${server.url} until its page is closed (or Ctrl-C)`);
  await untilSignal(server.pagesClosed());
  await server.close();
}

/** Resolves when `done` does or at the first SIGINT / SIGTERM / SIGHUP (which is then released). */
function untilSignal(done: Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const release = claimSignals(() => {
      release();
      resolve();
    });
    void done.then(() => {
      release();
      resolve();
    });
  });
}
