/**
 * Issue 45, "A budget is a prefix": under `limits.maxEvaluations` B a sync or lagged run's
 * record is the unlimited run's record when that run needs at most B evaluations, and
 * otherwise its prefix censored at B (docs/experiments.md). Studies through the built CLI
 * with real workers: the unlimited study first, then the same study under a B taken from
 * its records (its median evaluations: at or above about half the seeds, below the rest),
 * compared record by record. Then the crossing with checkpoints: a budgeted lagged run
 * resumed from a checkpoint at any iteration, the budget's last ones included, ends with the
 * uninterrupted budgeted run's record.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { LocalHost } from '../src/archipelago/local-host.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import type { RunConfigInput } from '../src/config/schema.ts';
import type { RunRecord } from '../src/experiment/records.ts';
import { readRuns } from '../src/experiment/store.ts';
import { readCheckpoint, resumeConfig } from '../src/run/checkpoint.ts';
import { resultRecord } from '../src/run/result-record.ts';
import { startSeededRun, type RunResult, type SeededRunConfig } from '../src/run/start-run.ts';
import { CLI } from './cli-helpers.ts';
import { checkpointAt } from './checkpoint-helpers.ts';
import { repeatablePart } from './helpers.ts';
import { ROOT } from './paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-budget-prefix-'));
const host = new LocalHost(2);
after(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Fields a budget changes by definition: its config (and so the provenance's hash of it). */
const BUDGET_KEYS = new Set(['config', 'provenance']);

/** A record without timings, place and the budget's own fields. */
function comparable(record: RunRecord): unknown {
  return repeatablePart(Object.fromEntries(Object.entries(record).filter(([key]) => !BUDGET_KEYS.has(key))));
}

/** A study of one cell through the CLI: N = 20, 5 seeds; returns its records by seed. */
function study(name: string, mode: string, islands: number, maxEvaluations: number | null): Map<number, RunRecord> {
  const file = path.join(dir, `${name}.yaml`);
  const limits = maxEvaluations === null ? '' : `, limits: { maxEvaluations: ${maxEvaluations} }`;
  const overrides = `{ n: 20, islands: ${islands}, topology: { kind: ring }, migration: { mode: ${mode}, interval: 3 }${limits} }`;
  writeFileSync(file, `name: ${name}\nbase: { overrides: ${overrides} }\nrepeats: 5\nseed: 11\n`);
  const out = path.join(dir, name);
  const r = spawnSync(process.execPath, [CLI, 'experiment', file, '--out', out, '-q'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { runs } = readRuns(path.join(out, 'runs.jsonl'));
  return new Map(runs.map((run) => [run.seed, run]));
}

/**
 * The budgeted trajectory is the unlimited one's points below its end, then its end at the
 * unlimited run's best there (every iteration up to the cut costs at most the end's evaluations, every later one more).
 */
function assertPrefix(budgeted: RunRecord, unlimited: RunRecord, where: string): void {
  const [t, u] = [budgeted.trajectory!, unlimited.trajectory!];
  const [end, best] = t.at(-1)!;
  assert.deepEqual([end, best], [budgeted.evaluations, budgeted.fitness], where);
  assert.deepEqual(
    t.slice(0, -1),
    u.filter(([x]) => x < end),
    `${where}: the points before the end`,
  );
  assert.equal(best, u.filter(([x]) => x <= end).at(-1)![1], `${where}: the best at the end`);
}

function comparePrefix(mode: string, islands: number): void {
  const name = `${mode}-${islands}`;
  const unlimited = study(`${name}-unlimited`, mode, islands, null);
  const needs = [...unlimited.values()].map((r) => r.evaluations).sort((a, b) => a - b);
  // The median: at least one seed needs at most B (that one exactly B), and one more.
  const budget = needs[Math.floor(needs.length / 2)];
  assert.ok(needs[0] < budget || needs.at(-1)! > budget, `${name}: the seeds differ (${needs.join(', ')})`);
  const budgeted = study(`${name}-budget`, mode, islands, budget);
  let [same, censored] = [0, 0];
  for (const [seed, u] of unlimited) {
    const b = budgeted.get(seed)!;
    const where = `${name} seed ${seed} (unlimited ${u.evaluations}, budget ${budget})`;
    assert.ok(u.solved, where);
    if (u.evaluations <= budget) {
      assert.deepEqual(comparable(b), comparable(u), where);
      same++;
    } else {
      assert.deepEqual([b.solved, b.ended, b.solution], [false, 'max-evaluations', null], where);
      assert.ok(b.evaluations <= budget && b.fitness > 0, `${where}: ${b.evaluations} at fitness ${b.fitness}`);
      assert.ok(
        b.islands.every((i) => i.iterations === b.islands[0].iterations),
        where,
      );
      assert.equal(
        b.islands.reduce((sum, i) => sum + i.evaluations, 0),
        b.evaluations,
        where,
      );
      assertPrefix(b, u, where);
      censored++;
    }
  }
  assert.ok(same > 0 && censored > 0, `${name}: ${same} within the budget, ${censored} past it`);
}

describe('a budgeted study is the unlimited study or its prefix, record by record (CLI, real workers)', { timeout: 240_000 }, () => {
  for (const mode of ['sync', 'lagged'])
    for (const islands of [2, 4]) it(`${mode}, ${islands} islands`, () => comparePrefix(mode, islands));
});

/** Everything of a run that its seed and config fix. */
const repeatable = (result: RunResult, config: SeededRunConfig) =>
  repeatablePart({ ...resultRecord(result, config), trajectory: result.trajectory, between: result.between });

/** The run resumed from its checkpoint asked for at iteration `k` (null: the run ended before it took one), with `limits` changed. */
async function resumedAt(config: SeededRunConfig, k: number, limits?: { maxEvaluations: number }): Promise<RunResult | null> {
  const file = path.join(dir, `budget-${k}.ckpt`);
  if (!(await checkpointAt(host, config, k, file)).taken) return null;
  const checkpoint = readCheckpoint(file);
  return startSeededRun(resumeConfig(checkpoint, file, limits ? { limits } : {}), {
    launcher: host,
    resume: checkpoint.islands,
    resumeBetween: checkpoint.between,
  }).result;
}

describe('a budgeted run resumed from a checkpoint', { timeout: 240_000 }, () => {
  it('lagged, three islands on a one-way ring: resumed at iterations up to the budget, the record is the uninterrupted one', async () => {
    const input: RunConfigInput = {
      n: 30,
      seed: 3,
      islands: 3,
      topology: { kind: 'ring' },
      migration: { mode: 'lagged', lag: 1, interval: 2, migrants: 4 },
    };
    const unlimited = await startSeededRun(resolveRunConfig(input, 'test') as SeededRunConfig, { launcher: host }).result;
    assert.ok(unlimited.solved);
    // Two budgets: one the run needs exactly (the record is the unlimited one), one short of it (censored).
    for (const budget of [unlimited.evaluations, Math.floor(unlimited.evaluations * 0.7)]) {
      const config = resolveRunConfig({ ...input, limits: { maxEvaluations: budget } }, 'test') as SeededRunConfig;
      const whole = await startSeededRun(config, { launcher: host }).result;
      assert.equal(whole.solved, budget === unlimited.evaluations, `budget ${budget}`);
      const last = whole.islands[0].iterations;
      const want = repeatable(whole, config);
      let resumes = 0;
      for (const k of [1, Math.floor(last / 2), last - 1, last, last + 1]) {
        const again = await resumedAt(config, k);
        if (again === null) continue;
        assert.deepEqual(repeatable(again, config), want, `budget ${budget}, resumed at iteration ${k}`);
        resumes++;
      }
      assert.ok(resumes >= 3, `budget ${budget}: ${resumes} resumes`);
    }
    // A checkpoint taken without a budget (its islands may be iterations apart) resumed under one: each island stops at its share.
    const unbudgeted = resolveRunConfig(input, 'test') as SeededRunConfig;
    const budget = Math.floor(unlimited.evaluations * 0.7);
    const split = await resumedAt(unbudgeted, 20, { maxEvaluations: budget });
    assert.ok(split !== null && !split.solved);
    assert.equal(split.evaluations, budget);
  });
});
