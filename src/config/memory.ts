/**
 * What a run will take in memory, checked before any thread starts: each island's GA state
 * (its mode says what: chromosomes, counts, scratch), the migrants in flight, each worker
 * thread (islands share them: `threads`), and what the coordinating thread holds (each island's best, the result and
 * its text). Calibrated against peak resident memory (`/usr/bin/time -v`, docs/hybrid.md):
 * hybrid mode, config/large-n.yaml, 2 islands, the measured peak is 79-89% of the estimate
 * at N = 10^6 and 77-96% at 10^7 (test/large-n.test.ts holds a 10^6 run to at most the
 * estimate and at least 60% of it).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { threadsFor } from '../archipelago/threads.ts';
import { addressSpaceLimit } from '../io/address-space.ts';
import { HUGE_BEST_BYTES } from '../archipelago/island-progress.ts';
import { bytesPerGene, TYPED_ROWS_N } from '../problem/genes.ts';
import { defaultThreads } from './defaults.ts';
import { gaMemory } from './ga-section.ts';
import { hybridInstead } from './run-time.ts';
import type { Registries } from './registries.ts';
import type { GaConfig } from './run-config.ts';

/** Share of physical memory a run may plan to use. */
export const MEMORY_SHARE = 0.75;

/**
 * One worker thread besides its islands' chromosomes: Node's worker, its code and its V8 heap
 * (about 20 MB measured), and the garbage arrays V8 lets an isolate keep before it collects
 * (it starts a collection 64 MB of external memory past the last).
 */
export const THREAD_BYTES = 64e6;
/**
 * One island besides its chromosomes, whatever its N: its objects and generators, its
 * channels' ports at both ends, the coordinator's events and reports of it.
 */
export const ISLAND_BYTES = 1e6;
/** The process itself (Node, the CLI's script, the pool), measured at about 70 MB. */
export const PROCESS_BYTES = 80e6;
/**
 * Chromosome-sized arrays per migrant an island holds at its peak: its emigrant array, and
 * what each generation's messages leave behind (the migrant and the best it encodes, the
 * bytes it receives and their decoded copy). The last are garbage at once, but a busy island
 * never returns to its event loop, where V8 finishes its incremental marking, so they are
 * freed only every few generations: up to 7 measured at N = 10^7.
 */
const MIGRANT_COPIES = 8;
/**
 * What the coordinator holds besides the islands: each island's last best (N genes; none
 * above HUGE_BEST_BYTES, where only a failing island sends one) and the solution: its
 * report's bytes as they arrive, their decoded genes, and the result's rows. Below
 * TYPED_ROWS_N the rows are an array of numbers (8 bytes each; the bytes were left out of
 * the calibration below); from it on, the rows are made in place of the decoded genes
 * (src/problem/genes.ts, `toRowsInPlace`), and a hybrid island has given back more than
 * the solution's bytes before it reports (`released`), so the solution fits in what the
 * search held. Its text, JSON or rows, is written in chunks and never held whole
 * (src/problem/solution-file.ts), and the bests are dropped once a solution is claimed.
 */
function coordinatorBytes(n: number, islands: number, released: number): number {
  const gene = bytesPerGene(n);
  const bests = n * gene > HUGE_BEST_BYTES ? 0 : islands * n * gene;
  const solution = n < TYPED_ROWS_N ? n * gene + 8 * n : Math.max(0, 2 * n * gene - released);
  return bests + solution;
}

/**
 * Address space a process and each island's thread reserve beyond what they use (Node's own
 * reservations, then each thread's V8 heap and stacks), with the TypeScript kernel: the
 * WebAssembly kernel's memory reserves about 10 GB more, and falls back to the TypeScript
 * kernel when that does not fit (src/ga/kernel.ts). Measured as VmPeak of `solve -n 30
 * --islands K` under `ulimit -v 9000000`: 1.61, 2.21, 3.46 and 5.83 GB for K = 1, 2, 4, 8,
 * so about 1.0 GB and 0.6 GB per island; with a margin.
 */
export const PROCESS_ADDRESS_BYTES = 1.1e9;
export const THREAD_ADDRESS_BYTES = 0.65e9;

/** What limits a run's memory: the machine, the cgroup (memory.max) and the address-space limit (RLIMIT_AS, `ulimit -v`). */
export interface MemoryLimits {
  /** Bytes of physical memory. */
  totalMemory: number;
  /** The cgroup's memory.max, when one is set. */
  cgroupMax?: number | null;
  /** The soft RLIMIT_AS, when one is set. */
  addressSpace?: number | null;
}

/** Where the limits are read: files of Linux (absent elsewhere, and then no limit). */
export interface LimitFiles {
  limits: string;
  cgroup: string;
  cgroupRoot: string;
}

const LINUX: LimitFiles = { limits: '/proc/self/limits', cgroup: '/proc/self/cgroup', cgroupRoot: '/sys/fs/cgroup' };

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** A limit's bytes, or null for none ("unlimited", "max", or v1's "no limit" near 2^63). */
function limitBytes(text: string | null | undefined): number | null {
  const value = Number(text?.trim());
  return Number.isFinite(value) && value > 0 && value < 2 ** 60 ? value : null;
}

/** The cgroup's memory limit: cgroup v2 (`0::/path`, memory.max) or v1 (the memory controller, memory.limit_in_bytes). */
function cgroupLimit(files: LimitFiles): number | null {
  for (const line of (readText(files.cgroup) ?? '').split('\n')) {
    const [, controllers, at] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (at === undefined) continue;
    const v2 = controllers === '';
    if (!v2 && !controllers.split(',').includes('memory')) continue;
    const [dir, name] = v2 ? [files.cgroupRoot, 'memory.max'] : [`${files.cgroupRoot}/memory`, 'memory.limit_in_bytes'];
    // In a container the path may not be visible: its own cgroup is then the root.
    const text = readText(`${dir}${at}/${name}`) ?? readText(`${dir}/${name}`);
    if (text !== null) return limitBytes(text);
  }
  return null;
}

/** This process's memory limits. */
export function readMemoryLimits(files: LimitFiles = LINUX): MemoryLimits {
  return { totalMemory: os.totalmem(), cgroupMax: cgroupLimit(files), addressSpace: addressSpaceLimit(files.limits) };
}

const GB = 1e9;
export const gb = (bytes: number): string => `${(bytes / GB).toFixed(1)} GB`;

/** Islands that run a GA of their own (a resolved config's islandGroups). */
export interface GroupGa {
  islands: readonly number[];
  ga: GaConfig;
}

export interface MemoryEstimate {
  bytes: number;
  /** One island's GA parts, as a message lists them. */
  parts: string;
}

/**
 * Bytes a run needs at its peak on `threads` worker threads (default: one per island), and
 * one island's GA parts as a message lists them.
 */
export function estimateMemory(
  n: number,
  islands: number,
  ga: GaConfig,
  migrants: number,
  registries?: Registries,
  threads = islands,
  groups: readonly GroupGa[] = [],
): MemoryEstimate {
  const island = gaMemory(ga, n, registries?.gaModes);
  // A group's islands hold its GA's state instead of the run's (islandGroups: each island its own, summed).
  const grouped = groups.reduce((sum, g) => sum + g.islands.length * (gaMemory(g.ga, n, registries?.gaModes).bytes - island.bytes), 0);
  const gene = bytesPerGene(n);
  const messages = MIGRANT_COPIES * migrants * n * gene;
  const coordinator = coordinatorBytes(n, islands, island.released ?? 0);
  const mb = THREAD_BYTES / 1e6;
  const thread = threads === islands ? `${mb} MB for its thread` : `${threads} thread${threads === 1 ? '' : 's'} of ${mb} MB for all`;
  return {
    bytes: PROCESS_BYTES + islands * (island.bytes + messages + ISLAND_BYTES) + grouped + threads * THREAD_BYTES + coordinator,
    parts: `per island${groups.length > 0 ? ' outside the groups' : ''}: ${island.parts}; ${migrants} migrant${migrants === 1 ? '' : 's'} in flight; ${thread}`,
  };
}

/** Address space a run needs: what it uses and what Node and its `threads` worker threads reserve besides. */
export function addressSpaceNeeded(bytes: number, threads: number): number {
  return bytes + PROCESS_ADDRESS_BYTES + threads * THREAD_ADDRESS_BYTES;
}

/** The binding limit: MEMORY_SHARE of the machine or of the cgroup, whichever is less, and what it is called. */
function residentLimit(limits: MemoryLimits): { bytes: number; text: string } {
  const cgroup = limits.cgroupMax != null && limits.cgroupMax < limits.totalMemory;
  const of = cgroup ? `of the cgroup's memory.max, ${gb(limits.cgroupMax!)}` : `of ${gb(limits.totalMemory)}`;
  const bytes = MEMORY_SHARE * (cgroup ? limits.cgroupMax! : limits.totalMemory);
  return { bytes, text: `the ${gb(bytes)} this machine allows (${MEMORY_SHARE * 100}% ${of})` };
}

/**
 * The one-line refusal of a run that would not fit: in MEMORY_SHARE of the machine's memory
 * or of its cgroup's memory.max, or in the address-space limit (RLIMIT_AS). It gives the
 * estimate and what lowers it: the largest island count that fits, with its estimate, or
 * else n or the population. `limits` as a number is the machine's memory alone. Islands run
 * on at most `maxThreads` worker threads (default: one each).
 */
export function memoryAdvice(
  n: number,
  islands: number,
  ga: GaConfig,
  migrants: number,
  limits: number | MemoryLimits,
  registries?: Registries,
  maxThreads = Infinity,
  groups: readonly GroupGa[] = [],
): string | null {
  const { totalMemory, cgroupMax = null, addressSpace = null } = typeof limits === 'number' ? { totalMemory: limits } : limits;
  const resident = residentLimit({ totalMemory, cgroupMax });
  const threads = (k: number) => Math.min(k, maxThreads);
  // Fewer islands are suggested only without groups (a group names its islands).
  const estimate = (k: number) => estimateMemory(n, k, ga, migrants, registries, threads(k), k === islands ? groups : []);
  const bytes = (k: number) => estimate(k).bytes;
  const address = (k: number) => addressSpaceNeeded(bytes(k), threads(k));
  const fits = (k: number) => bytes(k) <= resident.bytes && (addressSpace === null || address(k) <= addressSpace);
  if (fits(islands)) return null;
  let fewer = '';
  for (let k = groups.length > 0 ? 0 : islands - 1; k >= 1 && !fewer; k--)
    if (fits(k)) fewer = `it fits with islands = ${k} (about ${gb(bytes(k))})`;
  const plural = `${islands} island${islands === 1 ? '' : 's'}`;
  const need = estimate(islands);
  const byResident = need.bytes > resident.bytes;
  const what = byResident
    ? `${n} needs about ${gb(need.bytes)} for ${plural} (${need.parts}), more than ${resident.text}`
    : `${n} needs about ${gb(address(islands))} of address space for ${plural} (${gb(need.bytes)} used, ${gb(PROCESS_ADDRESS_BYTES)} for the process and ${gb(THREAD_ADDRESS_BYTES)} per thread that Node reserves), more than the address-space limit of ${gb(addressSpace!)} (ulimit -v)`;
  const oneBytes = byResident ? bytes(1) : address(1);
  const one = islands > 1 ? `even one island needs about ${gb(oneBytes)}${byResident ? '' : ' of address space'}; ` : '';
  // Fewer islands would not rescue a paper-mode run this large: it would take days.
  const instead = hybridInstead({ n, ga });
  return `${what}; ${fewer || `${one}lower n or the population (ga.populationSize, --population)`}${instead === null ? '' : `, ${instead}`}`;
}

/** Emigrants a run's island has in flight: none on one island (no topology gives it an edge) or without migration. */
export function runMigrants(run: { islands: number; migration: { interval: number; migrants: number } }): number {
  return run.islands > 1 && run.migration.interval > 0 ? run.migration.migrants : 0;
}

/**
 * `memoryAdvice` for a resolved run (a resolved config here, or one that arrived from a
 * checkpoint or the bus): its islands on the threads the launcher would start for it
 * (`threadsFor`: `threads`, or one per island up to the cores, `limits.availableParallelism`
 * where the caller knows them, else this machine's).
 */
export function runMemoryAdvice(
  run: {
    n: number;
    islands: number;
    ga: GaConfig;
    migration: { interval: number; migrants: number };
    threads?: number | null;
    islandGroups?: readonly GroupGa[];
  },
  limits: number | (MemoryLimits & { availableParallelism?: number }),
  registries?: Registries,
): string | null {
  const migrants = runMigrants(run);
  const cores = typeof limits === 'number' ? undefined : limits.availableParallelism;
  const threads = threadsFor(run.islands, run.threads ?? defaultThreads(run), cores);
  return memoryAdvice(run.n, run.islands, run.ga, migrants, limits, registries, threads, run.islandGroups);
}

/**
 * What a hybrid run left to its defaults plans at most (issue 50): 20 bytes a queen, or 2 GB
 * where that is more (every N up to 10^8). Hybrid islands at large N each build and search
 * the whole board alone, and a migrant is N genes: more islands or members buy little there
 * and cost memory per queen, so the defaults give way first (docs/large-n.md). (40 bytes a
 * queen until 0.12.0, when the estimate still counted the result twice over.)
 */
export const PLANNED_BYTES_PER_QUEEN = 20;
export const PLANNED_FLOOR_BYTES = 2e9;

/** The bytes a default hybrid run may plan for board size n. */
export function plannedBytes(n: number): number {
  return Math.max(PLANNED_FLOOR_BYTES, PLANNED_BYTES_PER_QUEEN * n);
}

/** An island count and a population per island. */
export interface RunSize {
  islands: number;
  populationSize: number;
}

/**
 * The largest run size at or below `wanted` that `fits`, changing only what `free` names
 * (the island count first kept as large as it can be, then the population, down to 2), or
 * null when `wanted` fits as it is or nothing does.
 */
export function fitRunSize(
  wanted: RunSize,
  free: { islands: boolean; population: boolean },
  fits: (size: RunSize) => boolean,
): RunSize | null {
  if (fits(wanted)) return null;
  const lowestPopulation = free.population ? Math.min(2, wanted.populationSize) : wanted.populationSize;
  for (let islands = wanted.islands; islands >= (free.islands ? 1 : wanted.islands); islands--) {
    for (let populationSize = wanted.populationSize; populationSize >= lowestPopulation; populationSize--) {
      if (fits({ islands, populationSize })) return { islands, populationSize };
    }
  }
  return null;
}

/** The one line that says what the defaults gave way to, and why. */
export function fittedNote(n: number, wanted: RunSize & { bytes: number }, got: RunSize & { bytes: number }, limit: string): string {
  const size = (s: RunSize) => `${s.islands} island${s.islands === 1 ? '' : 's'} of population ${s.populationSize}`;
  return `N = ${n} runs on ${size(got)} (about ${gb(got.bytes)}): the defaults, ${size(wanted)}, would need about ${gb(wanted.bytes)}, more than ${limit}; --islands and --population choose`;
}

const notes = new WeakMap<object, string>();

/** Remembers the note of a config whose size `fitRunSize` chose. */
export function noteFitted(config: object, note: string): void {
  notes.set(config, note);
}

/** The note of a config whose size was chosen to fit (`fittedNote`), or null. */
export function fittedNoteOf(config: object): string | null {
  return notes.get(config) ?? null;
}
