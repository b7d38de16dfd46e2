/**
 * Studies cut into shards (src/experiment/shard.ts, docs/hpc.md): the slices, `--shard auto`
 * from a scheduler's variables, shards run at once into one folder equal to the one-process
 * study, a shard killed with SIGKILL and run again, and what `report` and `--status` say.
 * The shards run as the built bundle, in processes of its own, as a job array runs them; the
 * one-process study they are compared with, `report`, `--status` and the refusals run in this
 * process (`runCli`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../src/config/errors.ts';
import { assignShards, dealingOf, parseShard, shardFromEnv, shardOfFile, shardSlice } from '../src/experiment/shard.ts';
import { CLI, cli, cliAsync, cliInProcess, isOneLineError, ROOT } from './cli-helpers.ts';

let dir: string;
before(() => (dir = mkdtempSync(path.join(tmpdir(), 'nqi-shards-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A study of 4 cells x 3 seeds whose runs repeat (sync and lagged migration), with cells of two costs. */
function studyFile(name: string, sizes = '[12, 24]', maxIterations = 300): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `base: { overrides: { islands: 2, ga: { populationSize: 40 }, migration: { interval: 5, migrants: 1 }, limits: { maxIterations: ${maxIterations} } } }`,
      'sweep:',
      `  n: ${sizes}`,
      '  migration.mode: [sync, lagged]',
      'repeats: 3',
      'seed: 7',
      '',
    ].join('\n'),
  );
  return file;
}

type RecordLine = { cell: string; seed: number } & Record<string, unknown>;

function records(file: string): RecordLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RecordLine);
}

/** Every shard's records of a folder, sorted by cell and seed, without timings and placement. */
function shardRecords(out: string): unknown[] {
  const all = readdirSync(out)
    .filter((name) => shardOfFile(name) !== null)
    .flatMap((name) => records(path.join(out, name)));
  return sorted(all);
}

function sorted(lines: RecordLine[]): unknown[] {
  const key = (r: RecordLine) => `${r.cell}\u0000${String(r.seed).padStart(6, '0')}`;
  return [...lines].sort((a, b) => (key(a) < key(b) ? -1 : 1)).map(comparable);
}

/** Keys that measure time or say where a run ran: the rest of a record must repeat (sync and lagged runs are exact). */
const TIMING_AND_PLACE = new Set(['seconds', 'startupSeconds', 'stopLatencyMs', 'foundAtSeconds', 'finishedAt', 'host']);

/** A record without its timings and placement; of its provenance, the config's hash (the machine part is placement). */
function comparable(record: RecordLine): unknown {
  const strip = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(strip)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .filter(([key]) => !TIMING_AND_PLACE.has(key))
              .map(([key, v]) => [key, strip(v)]),
          )
        : value;
  const { provenance, ...rest } = strip(record) as { provenance: { configHash: string } } & Record<string, unknown>;
  return { ...rest, configHash: provenance.configHash };
}

describe('shard slices', () => {
  it('I/N is read, and bad values are one line naming the flag', () => {
    assert.deepEqual(parseShard('2/3'), { index: 2, count: 3 });
    assert.deepEqual(parseShard(' 1 / 1 '), { index: 1, count: 1 });
    for (const [text, message] of [
      ['0/3', /--shard 0\/3: expected a shard index from 1 to 3, got 0/],
      ['4/3', /expected a shard index from 1 to 3, got 4/],
      ['1/0', /expected a shard count from 1 to 10000, got 0/],
      ['2', /--shard: expected I\/N \(shard I of N, I from 1\) or auto, got "2"/],
      ['a/b', /expected I\/N/],
    ] as const)
      assert.throws(
        () => parseShard(text),
        (e: unknown) => e instanceof ConfigError && message.test(e.message),
        text,
      );
  });

  it('every run is in exactly one shard, deterministically, and the totals are within one run of each other', () => {
    const costs = [5, 1, 1, 9, 3, 3, 3, 2, 8, 1, 1, 4];
    for (const count of [1, 2, 3, 5, 12, 20]) {
      const shardOf = assignShards(costs, count);
      assert.deepEqual(assignShards(costs, count), shardOf);
      assert.ok(shardOf.every((s) => s >= 1 && s <= count));
      const totals = new Array<number>(count).fill(0);
      costs.forEach((c, i) => (totals[shardOf[i] - 1] += c));
      assert.equal(
        totals.reduce((a, b) => a + b),
        costs.reduce((a, b) => a + b),
      );
      if (count <= costs.length)
        assert.ok(Math.max(...totals) - Math.min(...totals) <= Math.max(...costs), `${count}: ${totals.join(' ')}`);
    }
    // Equal costs: round robin in study order.
    assert.deepEqual(assignShards([1, 1, 1, 1, 1, 1, 1], 3), [1, 2, 3, 1, 2, 3, 1]);
  });

  /** A study's plan, seed-major as planRuns makes it: `cells` cells of equal cost on `seeds` seeds. */
  const plan = (cells: number, seeds: number) =>
    Array.from({ length: seeds }, (_, s) =>
      Array.from({ length: cells }, (_, c) => ({
        cell: {
          id: `c${c}`,
          config: { n: 8, islands: 2, ga: { populationSize: 10 }, limits: { maxIterations: 10, maxEvaluations: null } },
        },
        seed: s + 1,
      })),
    ).flat();
  const where = (runs: ReturnType<typeof plan>, count: number, dealing: 'seeds' | 'runs') => {
    const at = new Map<string, number>();
    for (let index = 1; index <= count; index++)
      for (const run of shardSlice(runs, { index, count }, dealing)) at.set(`${run.cell.id}@${run.seed}`, index);
    return at;
  };

  it("deals whole seeds: a pair's runs share a shard and every cell goes round the shards", () => {
    // 4 cells, 6 seeds, 2 shards. Run by run (before 0.9) c0 and c2 ran on shard 1 only, c1 and c3 on shard 2.
    const runs = plan(4, 6);
    const old = where(runs, 2, 'runs');
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((s) => old.get(`c0@${s}`)),
      [1, 1, 1, 1, 1, 1],
    );
    const dealt = where(runs, 2, 'seeds');
    assert.equal(dealt.size, 24);
    for (let s = 1; s <= 6; s++) assert.equal(new Set([0, 1, 2, 3].map((c) => dealt.get(`c${c}@${s}`))).size, 1, `seed ${s} on one shard`);
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((s) => dealt.get(`c0@${s}`)),
      [1, 2, 1, 2, 1, 2],
    );
    // Fewer seeds than shards: run by run, each cell's seeds on as many shards as it has seeds.
    const few = where(plan(3, 2), 4, 'seeds');
    for (let c = 0; c < 3; c++) assert.equal(new Set([1, 2].map((s) => few.get(`c${c}@${s}`))).size, 2, `c${c}`);
  });

  it('a study whose manifest names no dealing (before 0.9) keeps its slices, so its shards resume', () => {
    assert.equal(dealingOf({}), 'runs');
    assert.equal(dealingOf({ shardDealing: 'seeds' }), 'seeds');
    const runs = plan(3, 5);
    const shardOf = assignShards(
      runs.map(() => 1),
      4,
    );
    for (let index = 1; index <= 4; index++)
      assert.deepEqual(
        shardSlice(runs, { index, count: 4 }, dealingOf({})),
        runs.filter((_, i) => shardOf[i] === index),
      );
  });
});

describe('--shard auto', () => {
  const slurm = { SLURM_ARRAY_TASK_ID: '5', SLURM_ARRAY_TASK_MIN: '4', SLURM_ARRAY_TASK_MAX: '6', SLURM_ARRAY_TASK_COUNT: '3' };

  it("reads a Slurm job array's task among MIN..MAX, and a Kubernetes Indexed Job's index with NQI_SHARD_COUNT", () => {
    assert.deepEqual(shardFromEnv(slurm), { index: 2, count: 3 });
    assert.deepEqual(shardFromEnv({ ...slurm, SLURM_ARRAY_TASK_ID: '4' }), { index: 1, count: 3 });
    assert.deepEqual(shardFromEnv({ JOB_COMPLETION_INDEX: '0', NQI_SHARD_COUNT: '4' }), { index: 1, count: 4 });
    assert.deepEqual(shardFromEnv({ JOB_COMPLETION_INDEX: '3', NQI_SHARD_COUNT: '4' }), { index: 4, count: 4 });
  });

  it('refuses, in one line naming the variable, what it cannot read', () => {
    for (const [env, message] of [
      [{}, /neither SLURM_ARRAY_TASK_ID .* nor JOB_COMPLETION_INDEX .* is set; give --shard I\/N/],
      [{ ...slurm, SLURM_ARRAY_TASK_COUNT: '2' }, /the Slurm array 4-6 has 2 tasks, not 3; expected a contiguous array/],
      [{ ...slurm, SLURM_ARRAY_TASK_MIN: undefined }, /SLURM_ARRAY_TASK_MIN is not set/],
      [{ JOB_COMPLETION_INDEX: '0' }, /NQI_SHARD_COUNT is not set/],
      [
        { JOB_COMPLETION_INDEX: '4', NQI_SHARD_COUNT: '4' },
        /JOB_COMPLETION_INDEX=4 of NQI_SHARD_COUNT=4\): expected a shard index from 1 to 4, got 5/,
      ],
      [{ JOB_COMPLETION_INDEX: 'x', NQI_SHARD_COUNT: '4' }, /JOB_COMPLETION_INDEX is "x"; expected a whole number/],
    ] as const)
      assert.throws(
        () => shardFromEnv(env),
        (e: unknown) => e instanceof ConfigError && message.test(e.message),
      );
  });
});

describe('shards of a study, through the built CLI', () => {
  /** The environment of a job, without the scheduler variables of whoever runs the tests. */
  const baseEnv = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(SLURM_|JOB_COMPLETION_INDEX|NQI_SHARD_COUNT)/.test(key)),
  );

  it('3 shards at once give the records of the one-process study, but for timings and placement', async () => {
    const file = studyFile('three');
    const whole = path.join(dir, 'three-whole');
    const sharded = path.join(dir, 'three-sharded');
    const one = await cliInProcess(['experiment', file, '--out', whole, '-q']);
    assert.equal(one.code, 0, one.stderr);
    const shards = await Promise.all([1, 2, 3].map((i) => cliAsync(['experiment', file, '--out', sharded, '--shard', `${i}/3`, '-q'])));
    for (const r of shards) assert.equal(r.code, 0, r.stderr);
    const expected = sorted(records(path.join(whole, 'runs.jsonl')));
    assert.equal(expected.length, 12);
    assert.deepEqual(shardRecords(sharded), expected);
    // Each shard wrote its own file, with no lock left behind.
    assert.deepEqual(readdirSync(sharded).sort(), [
      'manifest.json',
      'runs.shard-1-of-3.jsonl',
      'runs.shard-2-of-3.jsonl',
      'runs.shard-3-of-3.jsonl',
    ]);
    const manifest = JSON.parse(readFileSync(path.join(sharded, 'manifest.json'), 'utf8'));
    assert.equal(manifest.shards, 3);
    assert.equal(manifest.shardDealing, 'seeds');
    const status = await cliInProcess(['experiment', sharded, '--status']);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /\(3 shards\): 12 of 12 runs recorded\n/);
    for (const i of [1, 2, 3]) assert.match(status.stdout, new RegExp(`shard ${i}/3: 4 of 4 runs, complete`));
    const report = await cliInProcess(['report', sharded]);
    assert.equal(report.code, 0, report.stderr);
    assert.doesNotMatch(report.stderr, /missing|incomplete/);
  });

  it('--shard auto under Slurm and under a Kubernetes Indexed Job runs the same slices', async () => {
    const file = studyFile('auto');
    const slurm = path.join(dir, 'auto-slurm');
    const k8s = path.join(dir, 'auto-k8s');
    const runs = await Promise.all([
      ...[10, 11].map((id) =>
        cliAsync(['experiment', file, '--out', slurm, '--shard', 'auto', '-q'], {
          env: {
            ...baseEnv,
            SLURM_ARRAY_TASK_ID: `${id}`,
            SLURM_ARRAY_TASK_MIN: '10',
            SLURM_ARRAY_TASK_MAX: '11',
            SLURM_ARRAY_TASK_COUNT: '2',
          },
        }),
      ),
      ...[0, 1].map((index) =>
        cliAsync(['experiment', file, '--out', k8s, '--shard', 'auto', '-q'], {
          env: { ...baseEnv, JOB_COMPLETION_INDEX: `${index}`, NQI_SHARD_COUNT: '2' },
        }),
      ),
    ]);
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    for (const out of [slurm, k8s]) {
      assert.deepEqual(
        readdirSync(out)
          .filter((f) => shardOfFile(f) !== null)
          .sort(),
        ['runs.shard-1-of-2.jsonl', 'runs.shard-2-of-2.jsonl'],
      );
      assert.equal(shardRecords(out).length, 12);
    }
    for (const shard of [1, 2]) {
      const name = `runs.shard-${shard}-of-2.jsonl`;
      assert.deepEqual(sorted(records(path.join(slurm, name))), sorted(records(path.join(k8s, name))));
    }
    const outside = cli(['experiment', file, '--out', path.join(dir, 'auto-none'), '--shard', 'auto'], { env: baseEnv });
    assert.ok(isOneLineError(outside), outside.stderr);
    assert.match(outside.stderr, /--shard auto: neither SLURM_ARRAY_TASK_ID/);
  });

  it('a shard killed with SIGKILL mid-run and run again repeats no run; report names the missing shard', async () => {
    // Runs long enough (larger boards) that the kill lands while the shard has runs left.
    // 3 seeds dealt whole to 2 shards: shard 1 runs the first and third (8 runs), shard 2 the second (4).
    const file = studyFile('killed', '[150, 200]', 4000);
    const out = path.join(dir, 'killed');
    const own = path.join(out, 'runs.shard-1-of-2.jsonl');
    const child = spawn(process.execPath, [CLI, 'experiment', file, '--out', out, '--shard', '1/2', '-q'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = () => (existsSync(own) ? readFileSync(own, 'utf8').split('\n').filter(Boolean).length : 0);
    // Killed once its first run is on disk (the folder is watched: no sleeps), while the others run.
    await new Promise<void>((resolve, reject) => {
      let watcher: ReturnType<typeof watch> | undefined;
      // The kill is done once the child has exited (and is reaped): its lock then names a process gone.
      const check = () => {
        if (lines() >= 1) child.kill('SIGKILL');
      };
      const poll = watch(dir, { recursive: false }, () => {
        if (existsSync(out) && watcher === undefined) watcher = watch(out, check);
        check();
      });
      child.on('exit', (code, signal) => {
        watcher?.close();
        poll.close();
        if (signal === 'SIGKILL') resolve();
        else reject(new Error(`the shard ended (${code}) before it was killed: ${stderr}`));
      });
    });
    const before = lines();
    assert.ok(before >= 1 && before < 8, `${before} runs before the kill`);

    const status = await cliInProcess(['experiment', out, '--status']);
    assert.match(status.stdout, new RegExp(`shard 1/2: ${before} of 8 runs, stopped \\(process \\d+ on .*: its process is not running\\)`));
    assert.match(status.stdout, /shard 2\/2: 0 of 4 runs, missing \(no runs\.shard-2-of-2\.jsonl: never started\)/);
    const partial = await cliInProcess(['report', out]);
    assert.equal(partial.code, 0, partial.stderr);
    assert.match(
      partial.stderr,
      new RegExp(`shard 1/2 incomplete: ${before} of 8 runs; shard 2/2 missing \\(no runs\\.shard-2-of-2\\.jsonl\\)`),
    );

    const again = cli(['experiment', file, '--out', out, '--shard', '1/2', '-q']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, new RegExp(`shard 1/2: 8 runs \\(${8 - before} new\\)`));
    const keys = records(own).map((r) => `${r.cell}@${r.seed}`);
    assert.equal(keys.length, 8);
    assert.equal(new Set(keys).size, 8);
    const still = await cliInProcess(['report', out]);
    assert.match(still.stderr, /shard 2\/2 missing/);
    assert.doesNotMatch(still.stderr, /shard 1\/2/);
  });

  it('refuses a shard of another count, a one-process resume of a sharded folder, and a shard in a one-process folder', async () => {
    const file = studyFile('mixed');
    const out = path.join(dir, 'mixed');
    assert.equal((await cliInProcess(['experiment', file, '--out', out, '--shard', '2/2', '-q'])).code, 0);
    const other = await cliInProcess(['experiment', file, '--out', out, '--shard', '1/3', '-q']);
    assert.ok(isOneLineError(other), other.stderr);
    assert.match(other.stderr, /--shard 1\/3: the study in .* is cut into 2 shards, not 3; run its shards with --shard I\/2/);
    const resume = await cliInProcess(['experiment', file, '--out', out, '--resume', '-q']);
    assert.ok(isOneLineError(resume), resume.stderr);
    assert.match(resume.stderr, /runs in 2 shards; continue each with --shard I\/2/);
    const whole = path.join(dir, 'mixed-whole');
    assert.equal((await cliInProcess(['experiment', file, '--out', whole, '-q'])).code, 0);
    const into = await cliInProcess(['experiment', file, '--out', whole, '--shard', '1/2', '-q']);
    assert.ok(isOneLineError(into), into.stderr);
    assert.match(into.stderr, /is run by one process, not in shards; --shard 1\/2 needs a folder of its own/);
  });
});
