/**
 * The checks of a checkpoint's parts beyond the GA state (format 4): the runner's counts and
 * logs, the migrants in flight, the lagged history and the between-island points. A worker
 * trusts them, so each is refused here, naming what is wrong, if it is not what an island
 * writes (checkpoint.ts calls these).
 */
import type { IslandSnapshot, RunnerState } from '../archipelago/island-snapshot.ts';
import type { MigrantsMessage } from '../archipelago/messages.ts';
import { HISTORY } from '../archipelago/modes/lag-history.ts';
import { COURSE_ENTRY } from '../archipelago/course-log.ts';
import { BUDGET_FIELDS } from '../archipelago/budget-gate.ts';
import type { ConfigError } from '../config/errors.ts';
import { UNKNOWN_ORIGIN } from '../ga/lineage.ts';

type Damaged = (what: string) => ConfigError;
interface Sizes {
  n: number;
  islands: number;
  populationSize: number;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
/** The lagged history's counters per iteration (lag-history.ts). */
const HISTORY_FIELDS = 7;

function isPermutation(genes: ArrayLike<number>, offset: number, n: number, seen: Int32Array, mark: number): boolean {
  for (let g = offset; g < offset + n; g++) {
    const gene = genes[g];
    if (!(gene >= 0 && gene < n) || seen[gene] === mark) return false;
    seen[gene] = mark;
  }
  return true;
}

/** One migrants message as an island sends it: from an island of the run, `count` permutations of 0..N-1. */
function checkMigrants(list: unknown, what: string, { n, islands }: Sizes, damaged: Damaged): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) throw damaged(`${what} is not a list of migrants`);
  const seen = new Int32Array(n).fill(-1);
  let mark = 0;
  list.forEach((m: Partial<MigrantsMessage>, i) => {
    const bad = (why: string) => damaged(`${what} ${i}: ${why}`);
    if (!isObject(m) || m.type !== 'migrants') throw bad('not a migrants message');
    if (!isCount(m.from) || m.from >= islands) throw bad(`from ${String(m.from)} is not an island of the run`);
    if (!isCount(m.epoch) || !isCount(m.iteration) || !isCount(m.count)) throw bad('epoch, iteration and count must be counts');
    const genes = m.genes;
    if (!(genes instanceof Uint16Array || genes instanceof Int32Array) || genes.length !== m.count * n)
      throw bad(`expected ${m.count} chromosomes of ${n} genes`);
    for (let c = 0; c < m.count; c++) if (!isPermutation(genes, c * n, n, seen, mark++)) throw bad(`migrant ${c} is not a permutation`);
    checkOrigins(m.origins, m.count, islands, bad);
  });
}

/** Lineage origins (ga/lineage.ts), if any: `length` of them, each an island of the run or UNKNOWN_ORIGIN. */
function checkOrigins(origins: unknown, length: number, islands: number, damaged: Damaged): void {
  if (origins === undefined) return;
  if (!(origins instanceof Uint16Array) || origins.length !== length) throw damaged(`expected ${length} origins`);
  for (const o of origins) if (o >= islands && o !== UNKNOWN_ORIGIN) throw damaged(`origin ${o} is not an island of the run`);
}

/** An observation's mix of origins (ga/lineage.ts, originMix), if any: (origin, count) pairs adding up to at most the population. */
function checkLineage(lineage: unknown, { islands, populationSize }: Sizes, damaged: Damaged): void {
  if (lineage === undefined) return;
  if (!(lineage instanceof Uint32Array) || lineage.length % 2 !== 0) throw damaged("an observation's lineage is not (origin, count) pairs");
  let sum = 0;
  for (let k = 0; k < lineage.length; k += 2) {
    if (lineage[k] >= islands && lineage[k] !== UNKNOWN_ORIGIN)
      throw damaged(`an observation's origin ${lineage[k]} is not an island of the run`);
    sum += lineage[k + 1];
  }
  if (sum > populationSize) throw damaged(`an observation's lineage counts ${sum} members, more than ${populationSize}`);
}

/** The immigrant tracker's batches (observables/survival.ts, `save`): each header, then its slots and stamps; one hash per slot. */
function checkBatches(r: RunnerState, populationSize: number, damaged: Damaged): void {
  if (!(r.batches instanceof Int32Array) || !(r.hashes instanceof Uint32Array)) throw damaged('immigrant batches are not typed arrays');
  let slots = 0;
  for (let at = 0; at < r.batches.length;) {
    const size = r.batches[at + 6];
    if (!(size >= 0) || at + 7 + 2 * size > r.batches.length) throw damaged('immigrant batches are cut short');
    for (let k = 0; k < size; k++)
      if (!(r.batches[at + 7 + k] >= 0 && r.batches[at + 7 + k] < populationSize))
        throw damaged('an immigrant slot is outside the population');
    at += 7 + 2 * size;
    slots += size;
  }
  if (slots !== r.hashes.length) throw damaged(`${slots} immigrant slots but ${r.hashes.length} hashes`);
}

function checkRunner(r: unknown, sizes: Sizes, damaged: Damaged): void {
  const { populationSize, n } = sizes;
  if (r === undefined) return;
  if (!isObject(r)) throw damaged('runner state is not an object');
  const runner = r as unknown as RunnerState;
  for (const key of ['migrantsReceived', 'immigrantsChecked', 'immigrantsSurvived', 'writes'] as const)
    if (!isCount(runner[key])) throw damaged(`${key} ${String(runner[key])} is not a count`);
  if (runner.immigrantsSurvived > runner.immigrantsChecked) throw damaged('more immigrants survived than were checked');
  checkBatches(runner, populationSize, damaged);
  if (
    !(runner.written instanceof Int32Array) ||
    runner.written.length !== populationSize ||
    runner.written.some((w) => !(w >= 0 && w <= runner.writes))
  )
    throw damaged(`write stamps: expected ${populationSize} stamps of at most ${runner.writes}`);
  if (!(runner.course instanceof Float64Array) || runner.course.length % COURSE_ENTRY !== 0)
    throw damaged('course log is not whole entries');
  if (!(runner.courseState instanceof Float64Array) || runner.courseState.length !== 5) throw damaged('course log state is not 5 numbers');
  if (!Number.isSafeInteger(runner.observed) || runner.observed < -1) throw damaged(`observed ${String(runner.observed)}`);
  if (!Array.isArray(runner.observations)) throw damaged('observations are not a list');
  for (const o of runner.observations as unknown[]) {
    const obs = isObject(o) ? o.observation : undefined;
    if (!isObject(o) || !isCount(o.iteration) || !isObject(obs) || !isCount(obs.positions)) throw damaged('an observation is malformed');
    if (!(obs.genes instanceof Uint16Array || obs.genes instanceof Int32Array) || !(obs.hashes instanceof Uint32Array))
      throw damaged('an observation is malformed');
    if (obs.positions === 0 || obs.genes.length % obs.positions !== 0) throw damaged('an observation is malformed');
    checkLineage(obs.lineage, sizes, damaged);
  }
  checkBudgetPoint(runner.budget, n, damaged);
}

/** The state at the last iteration within the budget (budget-gate.ts): counts (iteration -1: none yet), and its best a permutation. */
function checkBudgetPoint(point: unknown, n: number, damaged: Damaged): void {
  if (point === undefined) return;
  const p = point as Partial<RunnerState['budget']> & Record<string, unknown>;
  const counters = isObject(point) ? p.counters : undefined;
  if (
    !(counters instanceof Float64Array) ||
    counters.length !== BUDGET_FIELDS ||
    !counters.every((c, i) => isCount(c) || (i < 3 && c === -1))
  )
    throw damaged(`budget point: expected ${BUDGET_FIELDS} counts`);
  const best = p.best;
  if (best === null) return;
  if (
    !(best instanceof Uint16Array || best instanceof Int32Array) ||
    best.length !== n ||
    !isPermutation(best, 0, n, new Int32Array(n).fill(-1), 0)
  )
    throw damaged(`budget point: its best is not a permutation of 0..${n - 1}`);
}

/** Everything of an island's snapshot past its GA state and counters (all absent in a snapshot made by hand). */
export function checkRunnerParts(snapshot: IslandSnapshot, sizes: Sizes, damaged: Damaged): void {
  checkRunner(snapshot.runner, sizes, damaged);
  checkOrigins(snapshot.state.origins, sizes.populationSize, sizes.islands, (what) => damaged(`lineage: ${what}`));
  checkMigrants(snapshot.inbox, 'inbox message', sizes, damaged);
  checkMigrants(snapshot.sent, 'sent message', sizes, damaged);
  const mode: unknown = snapshot.mode;
  if (mode === undefined) return;
  if (!isObject(mode)) throw damaged('mode state is not an object');
  const { history, newest } = mode;
  if (history === undefined) return;
  if (!(history instanceof Float64Array) || history.length % HISTORY_FIELDS !== 0 || history.length > HISTORY * HISTORY_FIELDS)
    throw damaged(`lagged history: expected at most ${HISTORY} entries of ${HISTORY_FIELDS} numbers`);
  if (!isCount(newest) || newest + 1 < history.length / HISTORY_FIELDS) throw damaged(`lagged history: newest ${String(newest)}`);
}

/** The between-island points: iterations rising, each a number of the observables. */
export function checkBetween(between: unknown, damaged: Damaged): void {
  if (!Array.isArray(between)) throw damaged('between-island points are not a list');
  let last = -1;
  for (const p of between as unknown[]) {
    if (!isObject(p) || !isCount(p.iteration) || p.iteration <= last) throw damaged('between-island points are not in iteration order');
    for (const key of ['meanDistance', 'distinct', 'sampled'] as const)
      if (typeof p[key] !== 'number' || !Number.isFinite(p[key]))
        throw damaged(`between-island point ${p.iteration}: ${key} is not a number`);
    const lineage = p.lineage;
    if (lineage !== undefined && !(Array.isArray(lineage) && lineage.every((mix) => Array.isArray(mix) && mix.every(Number.isSafeInteger))))
      throw damaged(`between-island point ${p.iteration}: lineage is not a list of mixes`);
    last = p.iteration;
  }
}
