/**
 * `solve`'s worker pool, started by the entry point before yargs and the config code load:
 * booting worker threads is the longest part of a start, so they boot while the main thread
 * parses flags and resolves the config. Nothing runs on them until the input is accepted.
 * Only a plain reading of argv is possible this early; yargs remains the judge of it.
 */
import { availableParallelism } from 'node:os';
import { LocalHost } from '../archipelago/local-host.ts';
import { addressSpaceLimit } from '../io/address-space.ts';
import { defaultThreads, SMALL_RUN } from '../config/defaults.ts';

let early: LocalHost | null = null;

/** The value of `--name V` / `--name=V` (the last one given), as the user typed it. */
function flagValue(argv: readonly string[], names: readonly string[]): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, i) => {
    for (const name of names) {
      if (arg === name) value = argv[i + 1];
      else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
    }
  });
  return value;
}

/** A flag's value if it is a whole number from 1 to `most` (this is before any validation), else null. */
function countFlag(argv: readonly string[], name: string, most: number): number | null {
  const value = Number(flagValue(argv, [name]));
  return Number.isInteger(value) && value >= 1 && value <= most ? value : null;
}

/**
 * Worker threads to boot: one per island (`--islands` if given, up to 4 per core, else the
 * cores, the default) up to the cores, and never more than `--threads` (the run uses no
 * more), one for a small run without `--threads`; none for boards answered without a run, for help, or for islands on other machines
 * (--nats). None either with a `--config` file and no `--threads` flag: the file, not read this
 * early, may set `threads`, and a user who limits the threads must never see more started (the
 * pool then starts at launch, at the file's size). None either under an address-space limit
 * (`ulimit -v`): each worker reserves address space, and the memory check must refuse a run
 * that does not fit (in one line) before the workers take what is left (a V8 fatal error).
 */
export function workersHint(argv: readonly string[], cores = availableParallelism()): number {
  if (
    addressSpaceLimit() !== null ||
    argv.includes('--help') ||
    argv.includes('-h') ||
    Number(flagValue(argv, ['-n', '--n'])) <= 3 ||
    flagValue(argv, ['--nats']) !== undefined ||
    (flagValue(argv, ['--config', '-c']) !== undefined && flagValue(argv, ['--threads']) === undefined)
  )
    return 0;
  const islands = countFlag(argv, '--islands', 4 * cores) ?? cores;
  return Math.min(islands, cores, countFlag(argv, '--threads', 4 * cores) ?? smallRunThreads(argv, islands) ?? cores);
}

/**
 * 1 when the flags make a small run (config/defaults.ts, SMALL_RUN), whose islands share one
 * thread by default. A guess from argv, as above: a pool too large for the run leaves a worker
 * idle, one too small is replaced at launch; the run's threads are the resolved config's.
 */
function smallRunThreads(argv: readonly string[], islands: number): 1 | null {
  const population = flagValue(argv, ['--population']);
  return defaultThreads({
    n: Number(flagValue(argv, ['-n', '--n'])),
    islands,
    ga: {
      mode: flagValue(argv, ['--mode']) ?? 'paper',
      populationSize: population === undefined ? SMALL_RUN.populationSize : Number(population),
    },
    islandGroups: flagValue(argv, ['--island-groups']) === undefined ? null : {},
  });
}

/** Starts the pool for a `solve` command line (`argv` without the command); `cores` for a test of another machine. */
export function startEarlyHost(argv: readonly string[], cores?: number): void {
  const workers = workersHint(argv, cores);
  if (workers > 0) early = new LocalHost(workers, { threads: workers });
}

/** The pool started early, handed over once (null if none was started). */
export function takeEarlyHost(): LocalHost | null {
  const host = early;
  early = null;
  return host;
}
