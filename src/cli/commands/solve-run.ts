/** The work behind `solve`, loaded only when the command runs (it pulls in threads, zod and rxjs). */
import { statSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import type { ArgumentsCamelCase } from 'yargs';
import { loadConfigFromArgv } from '../../config/load.ts';
import { toFileShape, type RunConfig } from '../../config/schema.ts';
import { randomSeed } from '../../ga/rng.ts';
import { MAX_BOARD_N, renderBoard } from '../../problem/board.ts';
import { validateSolution } from '../../problem/validate.ts';
import { NoSolutionError, startRun, type RunResult } from '../../run/start-run.ts';
import { EXIT, UsageError } from '../errors.ts';
import { showLiveView } from '../live-view.ts';
import { printError, printLine, tupleForPeople } from '../output.ts';
import { writeFileAtomic } from '../write-file.ts';

export interface SolveArgs {
  config?: string;
  json: boolean;
  board: boolean;
  quiet: boolean;
  all: boolean;
  [flag: string]: unknown;
}

/** What `solve --json` prints and `--out` writes: data first, for other tools. */
export function resultRecord(result: RunResult, config: RunConfig & { seed: number }) {
  return {
    n: result.n,
    solved: result.solved,
    solution: result.solution,
    fitness: result.fitness,
    iterations: result.iterations,
    evaluations: result.evaluations,
    seconds: result.seconds,
    seed: result.seed,
    foundBy: result.foundBy,
    foundAtIteration: result.foundAtIteration,
    stopLatencyMs: result.stopLatencyMs,
    best: result.solved ? undefined : result.best,
    islands: result.islands.map((i) => ({
      id: i.id,
      iterations: i.iterations,
      evaluations: i.evaluations,
      bestFitness: i.bestFitness,
      migrantsSent: i.migrantsSent,
      migrantsAccepted: i.migrantsAccepted,
      stopReason: i.stopReason,
      ...(i.error ? { error: i.error } : {}),
    })),
    config: toFileShape(config),
  };
}

/** `--out` must name a file in an existing folder: checked before any thread starts. */
function checkOutPath(path: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    // a new file: its folder must exist
  }
  if (isDirectory) throw new UsageError(`--out ${path}: is a directory, expected a file name`);
  try {
    if (!statSync(dirname(path)).isDirectory()) throw new Error();
  } catch {
    throw new UsageError(`--out ${path}: folder ${dirname(path)} does not exist`);
  }
}

/** The solution as a file: one row per line for .txt, else the JSON record. */
function outText(path: string, record: ReturnType<typeof resultRecord>): string {
  if (extname(path).toLowerCase() === '.txt') return record.solution ? `${record.solution.join('\n')}\n` : '';
  return `${JSON.stringify(record)}\n`;
}

function printText(result: RunResult, args: SolveArgs): void {
  const found = result.foundBy === null ? '' : `found by island ${result.foundBy} at iteration ${result.foundAtIteration}; `;
  if (result.solved && result.solution) {
    printLine(`solved N=${result.n}: ${tupleForPeople(result.solution, args.all)}`);
    if (args.board) printLine(result.n <= MAX_BOARD_N ? renderBoard(result.solution) : `(no board drawn above N = ${MAX_BOARD_N})`);
  } else {
    printLine(`not solved N=${result.n}: best fitness ${result.fitness}${result.best ? ` ${tupleForPeople(result.best, args.all)}` : ''}`);
  }
  const latency = result.stopLatencyMs === null ? '' : `; stop latency ${result.stopLatencyMs.toFixed(2)} ms`;
  printLine(
    `${found}${result.iterations} iterations; ${result.evaluations} evaluations; ${result.seconds.toFixed(3)} s; ` +
      `${result.islands.length || 1} island${result.islands.length > 1 ? 's' : ''}${latency}; seed ${result.seed}`,
  );
  for (const island of result.islands) {
    if (island.error) printError(`island ${island.id} failed at iteration ${island.error.iteration}: ${island.error.message}`);
  }
}

/** `solve`: resolve the config, run the archipelago, print and save the validated result. */
export async function solve(args: ArgumentsCamelCase<SolveArgs>): Promise<void> {
  const resolved = loadConfigFromArgv(args);
  const config = { ...resolved, seed: resolved.seed ?? randomSeed() };
  const out = config.output.file;
  if (out !== null) checkOutPath(out);

  let run;
  try {
    run = startRun(config);
  } catch (error) {
    if (!(error instanceof NoSolutionError)) throw error;
    printError(error.message);
    process.exitCode = EXIT.notSolved;
    return;
  }

  const live = process.stdout.isTTY && !args.quiet && !args.json
    ? showLiveView(run.events$, {
        n: config.n, islands: config.islands, seed: config.seed,
        topology: config.topology.kind, migration: `${config.migration.mode} every ${config.migration.interval}`,
      })
    : null;
  const signals = interruptions(run.stop);
  let result: RunResult;
  try {
    result = await run.result;
  } finally {
    live?.close();
    signals.dispose();
  }

  // The tool never prints a solution its own independent validator has not accepted.
  if (result.solved && (!result.solution || !validateSolution(result.solution, config.n).valid)) {
    throw new Error('the archipelago reported a solution that fails validation');
  }
  const record = resultRecord(result, config);
  if (out !== null) writeFileAtomic(out, outText(out, record));
  if (args.json) printLine(JSON.stringify(record));
  else printText(result, args);
  process.exitCode = signals.received ? signals.exitCode : result.solved ? EXIT.ok : EXIT.notSolved;
}

/**
 * SIGINT / SIGTERM stop the run cleanly (the best so far is printed and saved); a second
 * one exits at once. Exit codes follow the shell's 128 + signal convention.
 */
function interruptions(stop: () => void) {
  const state = { received: false, exitCode: 0, dispose: () => {} };
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (state.received) process.exit(code);
    state.received = true;
    state.exitCode = code;
    printError(`${signal}: stopping all islands (again to quit at once)`);
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  state.dispose = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return state;
}
