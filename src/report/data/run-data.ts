/**
 * One run's event stream for `report --run FILE`: a `solve --trace` file, or an event log
 * from a study folder's events/. Read-only.
 */
import { smallBoardAnswer } from '../../problem/small-boards.ts';
import { constants as bufferLimits } from 'node:buffer';
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import { ConfigError } from '../../config/errors.ts';
import { eventProblem } from '../../experiment/record-schema.ts';
import { InputError } from '../../io/errors.ts';
import { parseJsonText } from '../../io/json-text.ts';
import { readRegularText } from '../../io/read-file.ts';
import { TRACE_FORMAT, type TraceHeader } from '../../run/trace.ts';

export interface RunData {
  file: string;
  /** The trace's first line (config, tool); null for a study's event log. */
  header: TraceHeader | null;
  events: ArchipelagoEvent[];
}

/** Events of a JSON-lines text, one object with a `type` per line. @throws ConfigError naming the line. */
export function parseEventLines(text: string, file: string): (ArchipelagoEvent | TraceHeader)[] {
  const events: (ArchipelagoEvent | TraceHeader)[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const event = parseEventLine(line, i + 1, i === lines.length - 1, file);
    if (event !== null) events.push(event);
  });
  return events;
}

/**
 * One line of an event log (line number `at`): its event, or null for a blank line or a torn
 * last line (a study still running). @throws ConfigError naming the line.
 */
export function parseEventLine(line: string, at: number, last: boolean, file: string): ArchipelagoEvent | TraceHeader | null {
  if (line.trim() === '') return null;
  let value: unknown;
  try {
    value = parseJsonText(line);
  } catch (error) {
    if (last) return null;
    throw new ConfigError(
      `${file}: line ${at} is not JSON (${(error as Error).message}); expected one event per line (solve --trace, or a study's events/*.jsonl)`,
    );
  }
  if (value === null || typeof value !== 'object' || typeof (value as { type?: unknown }).type !== 'string') {
    throw new ConfigError(`${file}: line ${at} is not an event (an object with a type)`);
  }
  // The fields the report reads must have their types, or the charts fail far from here.
  const problem = eventProblem(value);
  if (problem !== null) throw new ConfigError(`${file}: line ${at} is not an event (${problem})`);
  return value as ArchipelagoEvent | TraceHeader;
}

export function readRunEvents(file: string): RunData {
  let text: string;
  try {
    text = readRegularText(file, {
      name: `--run ${file}`,
      expected: 'a file written by solve --trace',
      maxBytes: bufferLimits.MAX_STRING_LENGTH,
    });
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    if (/: is a directory;/.test(error.message)) {
      throw new ConfigError(
        `--run ${file}: is a folder; give a study folder as report's first argument and --run CELL@SEED, or --run a file written by solve --trace`,
      );
    }
    throw new ConfigError(error.message);
  }
  const all = parseEventLines(text, `--run ${file}`);
  const first = all[0];
  const header = first?.type === 'trace' ? first : null;
  // A file from another version may hold any format string: compare it as read.
  const format: string = header ? String(header.format) : TRACE_FORMAT;
  if (format !== TRACE_FORMAT) throw new ConfigError(`--run ${file}: trace format ${format}, this nqueens-islands reads ${TRACE_FORMAT}`);
  const events = (header ? all.slice(1) : all) as ArchipelagoEvent[];
  // Boards 1 to 3 are answered without a search: their trace is its header alone, and is whole.
  if (events.length === 0 && boardAnsweredWithoutSearch(header?.config) === null)
    throw new ConfigError(`--run ${file}: no events in the file`);
  return { file, header, events };
}

/** The board of a trace's config when `solve` answers it without a search (smallBoardAnswer: its trace has no events), else null. */
export function boardAnsweredWithoutSearch(config: unknown): number | null {
  const n = (config as { n?: unknown } | undefined)?.n;
  return typeof n === 'number' && smallBoardAnswer(n) !== null ? n : null;
}

/** A few lines for the terminal: the run, then one line per island (its samples, fitness and diversity from first to last, migrants). */
export function runSummaryLines(run: RunData): string[] {
  const lines: string[] = [];
  const config = run.header?.config;
  const done = run.events.find((e) => e.type === 'done');
  const solution = run.events.find((e) => e.type === 'solution');
  const what = config
    ? `N=${config.n}, ${config.islands} island${config.islands === 1 ? '' : 's'}, topology ${config.topology?.kind}, seed ${config.seed}`
    : 'an event log';
  const outcome =
    solution?.type === 'solution'
      ? `solved by island ${solution.island} at iteration ${solution.iteration} (${solution.seconds.toFixed(3)} s)`
      : done?.type === 'done'
        ? `not solved, best fitness ${done.result.fitness}`
        : 'no result in the log';
  if (run.events.length === 0)
    return [`${run.file}: ${what}; answered without a search (boards 1 to 3 need none), so the trace holds no events`];
  lines.push(`${run.file}: ${what}; ${outcome}`);
  const islands = [...new Set(run.events.flatMap((e) => (e.type === 'progress' ? [e.island] : [])))].sort((a, b) => a - b);
  for (const island of islands) {
    const samples = run.events.filter((e) => e.type === 'progress' && e.island === island);
    const first = samples[0];
    const last = samples[samples.length - 1];
    if (first?.type !== 'progress' || last?.type !== 'progress') continue;
    lines.push(
      `island ${island}: ${samples.length} samples, iterations ${first.iteration}..${last.iteration}, best fitness ${first.bestFitness} -> ${last.bestFitness}, ` +
        `diversity ${first.diversity.toFixed(2)} -> ${last.diversity.toFixed(2)}, migrants accepted ${last.migrantsAccepted} (sent ${last.migrantsSent})`,
    );
  }
  if (islands.length === 0) lines.push('no progress samples in the log');
  return lines;
}
