/**
 * Shards: a study cut into N slices of its (cell, seed) list, each run by its own process
 * (a Slurm array task, a Kubernetes Indexed Job's pod) into the same folder on a shared file
 * system, with no broker and no lock shared between processes (docs/hpc.md). The slices
 * depend only on the study (its cells' configs and seeds) and N, so every shard, and the
 * report, work them out alike. Each shard writes its own records file; the report reads them all.
 */
import { ConfigError } from '../config/errors.ts';

/** Shard `index` (1-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** Shards a study may be cut into: more would leave most of them empty in any study one folder holds. */
export const MAX_SHARDS = 10_000;

/** The records file of a shard, beside the study's manifest.json. */
export function shardRunsFile(shard: Shard): string {
  return `runs.shard-${shard.index}-of-${shard.count}.jsonl`;
}

/** `runs.shard-I-of-N.jsonl` as a shard, or null for any other name. */
export function shardOfFile(name: string): Shard | null {
  const match = /^runs\.shard-([1-9]\d{0,4})-of-([1-9]\d{0,4})\.jsonl$/.exec(name);
  if (match === null) return null;
  const shard = { index: Number(match[1]), count: Number(match[2]) };
  return shard.index <= shard.count ? shard : null;
}

function checkShard(index: number, count: number, what: string): Shard {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_SHARDS)
    throw new ConfigError(`${what}: expected a shard count from 1 to ${MAX_SHARDS}, got ${count}`);
  if (!Number.isSafeInteger(index) || index < 1 || index > count)
    throw new ConfigError(`${what}: expected a shard index from 1 to ${count}, got ${index}`);
  return { index, count };
}

/** Reads `I/N` (I from 1 to N). @throws ConfigError naming the flag. */
export function parseShard(text: string, flag = '--shard'): Shard {
  const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,9})\s*$/.exec(text);
  if (match === null) throw new ConfigError(`${flag}: expected I/N (shard I of N, I from 1) or auto, got ${JSON.stringify(text)}`);
  return checkShard(Number(match[1]), Number(match[2]), `${flag} ${text}`);
}

/** The environment variables `--shard auto` reads (docs/hpc.md). */
export const SHARD_ENV = {
  slurmId: 'SLURM_ARRAY_TASK_ID',
  slurmMin: 'SLURM_ARRAY_TASK_MIN',
  slurmMax: 'SLURM_ARRAY_TASK_MAX',
  slurmCount: 'SLURM_ARRAY_TASK_COUNT',
  kubernetesIndex: 'JOB_COMPLETION_INDEX',
  /** The Indexed Job's completions: Kubernetes does not pass it to the pod, so the manifest sets it (config/hpc/). */
  kubernetesCount: 'NQI_SHARD_COUNT',
} as const;

/** A variable as a whole number, or a one-line error naming it. */
function whole(env: Readonly<Record<string, string | undefined>>, name: string): number {
  const text = env[name];
  if (text === undefined || !/^\s*\d{1,9}\s*$/.test(text))
    throw new ConfigError(`--shard auto: ${name} is ${text === undefined ? 'not set' : JSON.stringify(text)}; expected a whole number`);
  return Number(text);
}

/**
 * `--shard auto`: the shard from a Slurm job array or a Kubernetes Indexed Job.
 * Slurm: task SLURM_ARRAY_TASK_ID of MIN..MAX is shard ID - MIN + 1 of MAX - MIN + 1, which
 * must equal SLURM_ARRAY_TASK_COUNT (an array with a step, `--array=0-9:2`, has gaps and is
 * refused). Kubernetes: JOB_COMPLETION_INDEX (0-based) is shard index + 1 of NQI_SHARD_COUNT.
 * @throws ConfigError naming the variable that is missing or wrong.
 */
export function shardFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): Shard {
  if (env[SHARD_ENV.slurmId] !== undefined) {
    const id = whole(env, SHARD_ENV.slurmId);
    const min = whole(env, SHARD_ENV.slurmMin);
    const max = whole(env, SHARD_ENV.slurmMax);
    const count = whole(env, SHARD_ENV.slurmCount);
    if (max - min + 1 !== count)
      throw new ConfigError(
        `--shard auto: the Slurm array ${min}-${max} has ${count} tasks, not ${max - min + 1}; expected a contiguous array (--array=${min}-${max}, no step or list)`,
      );
    return checkShard(id - min + 1, count, `--shard auto (${SHARD_ENV.slurmId}=${id} of ${min}-${max})`);
  }
  if (env[SHARD_ENV.kubernetesIndex] !== undefined) {
    const index = whole(env, SHARD_ENV.kubernetesIndex);
    const count = whole(env, SHARD_ENV.kubernetesCount);
    return checkShard(index + 1, count, `--shard auto (${SHARD_ENV.kubernetesIndex}=${index} of ${SHARD_ENV.kubernetesCount}=${count})`);
  }
  throw new ConfigError(
    `--shard auto: neither ${SHARD_ENV.slurmId} (a Slurm job array) nor ${SHARD_ENV.kubernetesIndex} (a Kubernetes Indexed Job) is set; give --shard I/N`,
  );
}

/** What a run's cost is estimated from: its resolved config, as run or as a manifest holds it. */
export interface CostedConfig {
  n: number;
  islands: number;
  ga: { populationSize?: number };
  limits: { maxIterations: number | null; maxEvaluations: number | null };
}

/**
 * A run's expected cost, in arbitrary units (only their ratios matter): n for each
 * evaluation (the fitness and the operators are O(n)) times its evaluation budget, the
 * smaller of maxEvaluations and maxIterations x islands x population. A run with neither
 * limit is taken to need n x islands x population evaluations.
 */
export function expectedCost(config: CostedConfig): number {
  const perIteration = config.islands * (config.ga.populationSize ?? 1);
  const { maxEvaluations, maxIterations } = config.limits;
  const budget = Math.min(maxEvaluations ?? Infinity, maxIterations === null ? Infinity : maxIterations * perIteration);
  return config.n * (Number.isFinite(budget) ? budget : config.n * perIteration);
}

/**
 * Which shard (1-based) runs each of `costs` (runs in study order): longest first, each to
 * the shard with the least cost so far (the lowest-numbered on a tie), so the shards' totals
 * are within one run's cost of each other. Deterministic: the same list gives the same slices.
 */
export function assignShards(costs: readonly number[], count: number): number[] {
  const order = costs.map((_, i) => i).sort((a, b) => costs[b] - costs[a] || a - b);
  // A binary min-heap of shards (0-based) by (load, number): the next run goes to its top.
  const load = new Array<number>(count).fill(0);
  const heap = load.map((_, s) => s);
  const less = (a: number, b: number) => load[a] < load[b] || (load[a] === load[b] && a < b);
  const shardOf = new Array<number>(costs.length);
  for (const run of order) {
    const top = heap[0];
    load[top] += costs[run];
    shardOf[run] = top + 1;
    for (let at = 0; ;) {
      const [l, r] = [2 * at + 1, 2 * at + 2];
      let next = at;
      if (l < count && less(heap[l], heap[next])) next = l;
      if (r < count && less(heap[r], heap[next])) next = r;
      if (next === at) break;
      [heap[at], heap[next]] = [heap[next], heap[at]];
      at = next;
    }
  }
  return shardOf;
}

/**
 * How a study's runs are dealt to its shards. `seeds` (studies since 0.9): whole seeds, every
 * cell of a seed on one shard, so the two runs of every pair share a machine and each cell's
 * seeds are spread over all shards; with fewer seeds than shards, run by run with each cell's
 * runs in a row, so a cell's seeds still go round the shards. `runs` (a manifest that names no
 * dealing, made before 0.9): run by run in study order, as those studies were cut, so they
 * resume with the slices they started with.
 */
export type ShardDealing = 'seeds' | 'runs';

/** The dealing a study's manifest records (absent: `runs`, the older way). */
export function dealingOf(manifest: { shardDealing?: 'seeds' }): ShardDealing {
  return manifest.shardDealing ?? 'runs';
}

interface DealtRun {
  cell: { id: string; config: CostedConfig };
  seed: number;
}

/** The shard (1-based) of each run of `plan` under the `seeds` dealing. */
function dealSeeds(plan: readonly DealtRun[], costs: readonly number[], count: number): number[] {
  const seeds = [...new Set(plan.map((run) => run.seed))];
  if (seeds.length >= count) {
    const cost = new Map(seeds.map((seed) => [seed, 0]));
    plan.forEach((run, i) => cost.set(run.seed, cost.get(run.seed)! + costs[i]));
    const shardOfSeed = assignShards(
      seeds.map((seed) => cost.get(seed)!),
      count,
    );
    const at = new Map(seeds.map((seed, k) => [seed, shardOfSeed[k]]));
    return plan.map((run) => at.get(run.seed)!);
  }
  const cellRank = new Map<string, number>();
  for (const run of plan) if (!cellRank.has(run.cell.id)) cellRank.set(run.cell.id, cellRank.size);
  const order = plan.map((_, i) => i).sort((a, b) => cellRank.get(plan[a].cell.id)! - cellRank.get(plan[b].cell.id)! || a - b);
  const dealt = assignShards(
    order.map((i) => costs[i]),
    count,
  );
  const shardOf = new Array<number>(plan.length);
  order.forEach((i, k) => (shardOf[i] = dealt[k]));
  return shardOf;
}

/** The runs of `shard`, in study order, dealt as `dealing` says. */
export function shardSlice<T extends DealtRun>(plan: readonly T[], shard: Shard, dealing: ShardDealing): T[] {
  const costs = plan.map((run) => expectedCost(run.cell.config));
  const shardOf = dealing === 'seeds' ? dealSeeds(plan, costs, shard.count) : assignShards(costs, shard.count);
  return plan.filter((_, i) => shardOf[i] === shard.index);
}
