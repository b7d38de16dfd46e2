/**
 * A finished run served both ways a page sees one: as a live view fed the run's events as
 * they came, and as the replay of its trace file. Shared by the live-view Chromium tests.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Subject } from 'rxjs';
import type { ArchipelagoEvent } from '../src/archipelago/events.ts';
import type { RunHandle } from '../src/index.ts';
import type { SolveRecord } from '../src/run/result-record.ts';
import { traceHeader } from '../src/run/trace.ts';
import { serveRun, serveRunFile, type RunServer } from '../src/serve/serve.ts';
import type { ViewServer } from '../src/serve/serve.ts';

/** Call right after `startRun` (before awaiting anything), so no event is missed; the trace goes to `dir`/`name`. */
export async function servedLiveAndReplay(
  handle: Pick<RunHandle, 'config' | 'events$' | 'result'>,
  dir: string,
  name: string,
): Promise<{ events: ArchipelagoEvent[]; result: SolveRecord; server: RunServer; replay: ViewServer }> {
  const events: ArchipelagoEvent[] = [];
  handle.events$.subscribe((e) => events.push(e));
  const result = await handle.result;
  const live = new Subject<ArchipelagoEvent>();
  const server = await serveRun(handle.config, { port: 0 });
  server.watch(live);
  for (const e of events) live.next(e);
  const file = path.join(dir, name);
  writeFileSync(file, [traceHeader(handle.config), ...events].map((e) => JSON.stringify(e)).join('\n'));
  const replay = await serveRunFile(file, { port: 0 });
  return { events, result, server, replay };
}
