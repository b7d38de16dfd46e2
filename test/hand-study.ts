/** A study folder of two cells, `islands` 1 and 2, written by hand as `experiment` would, for the report's tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { MANIFEST_FORMAT, type Manifest, type RunRecord } from '../src/experiment/records.ts';

const env = { availableParallelism: 4, totalMemory: 8e9 };

export interface Hand {
  seed: number;
  solved: boolean;
  evaluations: number;
  iterations: number;
  trajectory?: [number, number][];
}

/** Writes a study folder of two cells, `islands` 1 and 2, with the runs given, as `experiment` would. */
export function handMadeStudy(dir: string, name: string, maxIterations: number | null, runs: Record<1 | 2, Hand[]>): string {
  const out = path.join(dir, name);
  mkdirSync(out, { recursive: true });
  const seeds = [...new Set([...runs[1], ...runs[2]].map((r) => r.seed))].sort((a, b) => a - b);
  const cells = ([1, 2] as const).map((islands) => ({
    id: `islands=${islands}`,
    values: { islands },
    baseline: 'islands=1',
    config: resolveRunConfig({ n: 12, islands, limits: { maxIterations } }, 'hand-made', {}, env),
  }));
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    name,
    description: null,
    experiment: { file: '/x/hand.yaml', sha256: '0'.repeat(64), text: 'sweep:\n  islands: [1, 2]\n' },
    keys: ['islands'],
    seeds,
    baseline: { islands: 1 },
    cells,
    events: false,
    tool: { name: 'nqueens-islands', version: '0.0.0' },
    environment: { node: 'v20', platform: 'linux', arch: 'x64', cpuModel: 'test cpu', cores: 4, totalMemoryBytes: 8e9 },
    startedAt: '2025-01-01T00:00:00.000Z',
    resumedAt: [],
  };
  writeFileSync(path.join(out, 'manifest.json'), JSON.stringify(manifest));
  const lines = ([1, 2] as const).flatMap((islands) =>
    runs[islands].map((r): RunRecord => ({
      cell: `islands=${islands}`,
      values: { islands },
      seed: r.seed,
      solved: r.solved,
      fitness: r.solved ? 0 : 1,
      seconds: r.iterations / 1000,
      iterations: r.iterations,
      evaluations: r.evaluations,
      evaluationsAfterSolution: null,
      foundBy: r.solved ? 0 : null,
      stopLatencyMs: null,
      migrantsSent: 0,
      migrantsAccepted: 0,
      islands: [],
      // A 12-queens solution (evens then odds), so that the report's check of solved records passes.
      solution: r.solved ? [2, 4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 11] : null,
      error: null,
      finishedAt: '2025-01-01T00:00:00.000Z',
      ...(r.trajectory ? { trajectory: r.trajectory } : {}),
    })),
  );
  writeFileSync(path.join(out, 'runs.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return out;
}
