/**
 * Writes a synthetic study folder of many runs, as `experiment` would, for timing `report` on
 * a huge study (docs/performance.md, "`report` on huge studies"):
 * `node dist/bench/big-study.js DIR [SEEDS]` writes 4 cells (islands 1, 2, 4, 8; baseline 1)
 * of SEEDS seeds each (default 30,000: 120,000 runs). Seeded: the same arguments write the same bytes.
 * About 80% of runs solve (a valid 12-queens solution), with trajectories of a few points.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { MANIFEST_FORMAT, type Manifest, type RunRecord } from '../src/experiment/records.ts';
import { Rng } from '../src/ga/rng.ts';

const ISLANDS = [1, 2, 4, 8] as const;
const SOLUTION = [2, 4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 11];
const env = { availableParallelism: 4, totalMemory: 8e9 };

/** One run's record: evaluations and its trajectory drawn from `rng`, the more islands the fewer evaluations. */
function record(islands: number, seed: number, rng: Rng): RunRecord {
  const solved = rng.float() < 0.8;
  const evaluations = Math.round((20_000 + rng.float() * 200_000) / Math.sqrt(islands));
  const points = 2 + Math.floor(rng.float() * 8);
  const trajectory: [number, number][] = Array.from({ length: points }, (_, i) => [
    Math.round((evaluations * (i + 1)) / points),
    solved && i === points - 1 ? 0 : points - i,
  ]);
  return {
    cell: `islands=${islands}`,
    values: { islands },
    seed,
    solved,
    fitness: trajectory[points - 1][1],
    seconds: evaluations / 1e6,
    iterations: Math.round(evaluations / 1000),
    evaluations,
    evaluationsAfterSolution: solved ? 0 : null,
    ended: solved ? 'solved' : 'max-evaluations',
    foundBy: solved ? 0 : null,
    stopLatencyMs: solved ? rng.float() : null,
    migrantsSent: 0,
    migrantsAccepted: 0,
    islands: [],
    solution: solved ? SOLUTION : null,
    error: null,
    repeatable: true,
    finishedAt: '2026-01-01T00:00:00.000Z',
    trajectory,
  };
}

/** Writes the study folder `out` of `seeds` seeds per cell; returns the number of runs. */
export function writeBigStudy(out: string, seeds: number): number {
  mkdirSync(out, { recursive: true });
  const seedList = Array.from({ length: seeds }, (_, i) => i + 1);
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    name: 'big',
    description: 'synthetic (bench/big-study.ts)',
    experiment: { file: '/x/big.yaml', sha256: '0'.repeat(64), text: 'sweep:\n  islands: [1, 2, 4, 8]\n' },
    keys: ['islands'],
    seeds: seedList,
    baseline: { islands: 1 },
    cells: ISLANDS.map((islands) => ({
      id: `islands=${islands}`,
      values: { islands },
      baseline: 'islands=1',
      repeatable: true,
      config: resolveRunConfig({ n: 12, islands, limits: { maxEvaluations: 250_000 } }, 'big', {}, env),
    })),
    repeatable: true,
    events: false,
    tool: { name: 'nqueens-islands', version: '0.0.0' },
    environment: { node: 'v20', platform: 'linux', arch: 'x64', cpuModel: 'test cpu', cores: 4, totalMemoryBytes: 8e9 },
    startedAt: '2026-01-01T00:00:00.000Z',
    resumedAt: [],
  };
  writeFileSync(path.join(out, 'manifest.json'), JSON.stringify(manifest));
  const rng = Rng.forStream(7, 0);
  const lines: string[] = [];
  for (const seed of seedList) for (const islands of ISLANDS) lines.push(`${JSON.stringify(record(islands, seed, rng))}\n`);
  writeFileSync(path.join(out, 'runs.jsonl'), lines.join(''));
  return lines.length;
}

if (process.argv[1]?.endsWith('big-study.js') || process.argv[1]?.endsWith('big-study.ts')) {
  const [out, seeds = '30000'] = process.argv.slice(2);
  if (!out) throw new Error('usage: node dist/bench/big-study.js DIR [SEEDS]');
  console.log(`${writeBigStudy(out, Number(seeds))} runs in ${out}`);
}
