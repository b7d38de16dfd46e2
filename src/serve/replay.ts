/**
 * A finished run's view from its trace or event log, read as a stream: line by line into a
 * RunState, which is bounded however long the run was (series of at most 512 points, the
 * latest matrix, per-edge totals), so a log of millions of lines opens in bounded memory. The
 * lines are checked as `report --run` checks them (src/report/data/run-data.ts).
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { ArchipelagoEvent } from '../archipelago/events.ts';
import { ConfigError } from '../config/errors.ts';
import { boardAnsweredWithoutSearch, parseEventLine, readRunEvents } from '../report/data/run-data.ts';
import { TRACE_FORMAT } from '../run/trace.ts';
import { RunState, runHeader, type RunSource } from './run-state.ts';

/** Events held back until the run's island count is known (a log without a header or a `started` first). */
const HELD_EVENTS = 4096;

/**
 * The state of the run in `file`. `header`: where the run came from when the file has no
 * header (a study's event log: its cell's config); a trace's own first line wins.
 * @throws ConfigError for a file that cannot be read or is not an event log (in report's words).
 */
export async function replayFile(file: string, header: RunSource | null = null): Promise<RunState> {
  const name = `--run ${file}`;
  const handle = await regularFile(file);
  const lines = createInterface({ input: handle.createReadStream(), crlfDelay: Infinity });
  let state: RunState | null = null;
  let held: ArchipelagoEvent[] = [];
  let pending: string | null = null;
  let at = 0;
  let events = 0;
  let config: unknown = header?.config;
  const take = (line: string, last: boolean) => {
    const event = parseEventLine(line, at, last, name);
    if (event === null) return;
    if (event.type === 'trace') {
      if (state !== null || events > 0) throw new ConfigError(`${name}: line ${at}: a trace header after the first line`);
      const format = String(event.format);
      if (format !== TRACE_FORMAT) throw new ConfigError(`${name}: trace format ${format}, this nqueens-islands reads ${TRACE_FORMAT}`);
      state = new RunState(runHeader(event));
      config = event.config;
      return;
    }
    events++;
    if (state === null) {
      held.push(event);
      if (event.type !== 'started' && held.length < HELD_EVENTS) return;
      state = fromHeld(header, held);
      held = [];
      return;
    }
    state.add(event);
  };
  for await (const line of lines) {
    if (pending !== null) take(pending, false);
    at++;
    pending = line;
  }
  if (pending !== null) take(pending, true);
  state ??= held.length > 0 ? fromHeld(header, held) : null;
  if (state === null || events === 0) {
    // Boards 1 to 3 are answered without a search: a whole trace, with nothing to replay.
    const board = boardAnsweredWithoutSearch(config);
    const why = board !== null ? `N = ${board} is answered without a search, so there is nothing to replay` : 'no events in the file';
    throw new ConfigError(`${name}: ${why}`);
  }
  return state;
}

/** A state for the held events: the given header, else as many islands as `started` says or the events show. */
function fromHeld(header: RunSource | null, held: readonly ArchipelagoEvent[]): RunState {
  let islands = 0;
  for (const e of held) {
    if (e.type === 'started') islands = Math.max(islands, e.islands);
    if (e.type === 'progress' && e.island >= islands) islands = e.island + 1;
  }
  const state = new RunState(runHeader(header ?? { config: { islands }, provenance: null, tool: null }));
  for (const e of held) state.add(e);
  return state;
}

/** The file opened for reading, if it is a regular file; anything else fails in the whole-file reader's words. */
async function regularFile(file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    readRunEvents(file);
    throw new ConfigError(`--run ${file}: cannot be opened`);
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    readRunEvents(file);
    throw new ConfigError(`--run ${file}: expected a file written by solve --trace`);
  }
  return handle;
}
