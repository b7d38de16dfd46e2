/**
 * The recipes of docs/hpc.md as shipped in config/hpc/: the sbatch script's command lines run
 * with the variables Slurm sets for each array task, the Indexed Job's container command run
 * with each completion index, as Kubernetes would, into one result folder each; then the study
 * is whole, its report names no missing shard. The Dockerfile is checked for what the recipes
 * rely on (no Docker daemon is needed to run the tests).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { CLI, cliAsync, cliInProcess, inBatches, ROOT } from './cli-helpers.ts';

const HPC = path.join(ROOT, 'config', 'hpc');
let dir: string;
let study: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'nqi-hpc-'));
  study = path.join(dir, 'study.yaml');
  writeFileSync(
    study,
    'base: { overrides: { islands: 2, ga: { populationSize: 40 }, limits: { maxIterations: 200 } } }\nsweep:\n  n: [10, 14, 18]\nrepeats: 3\nseed: 1\n',
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `bash script args` with `env` on top of this process's, as a scheduler starts a task. */
function bash(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [script, ...args], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** The study in `out` is complete: status says every shard is done, report names no gap. */
async function assertComplete(out: string, shards: number): Promise<void> {
  const status = await cliInProcess(['experiment', out, '--status']);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, new RegExp(`\\(${shards} shards\\): 9 of 9 runs recorded`));
  assert.equal(status.stdout.match(/, complete$/gm)?.length, shards, status.stdout);
  const report = await cliInProcess(['report', out]);
  assert.equal(report.code, 0, report.stderr);
  assert.doesNotMatch(report.stderr, /missing|incomplete/);
  assert.match(report.stdout, /n=10/);
}

describe('config/hpc recipes', () => {
  it('study.sbatch: each task of `sbatch --array=4-6` runs its shard, with the variables Slurm sets', async () => {
    const out = path.join(dir, 'slurm');
    const tasks = [4, 5, 6].map((id) =>
      bash(path.join(HPC, 'study.sbatch'), [study, out], {
        NQI: `${process.execPath} ${CLI}`,
        SLURM_ARRAY_JOB_ID: '1234',
        SLURM_ARRAY_TASK_ID: String(id),
        SLURM_ARRAY_TASK_MIN: '4',
        SLURM_ARRAY_TASK_MAX: '6',
        SLURM_ARRAY_TASK_COUNT: '3',
      }),
    );
    for (const task of await Promise.all(tasks)) assert.equal(task.code, 0, task.stderr);
    await assertComplete(out, 3);
    // A task requeued after the study is done runs nothing twice.
    const again = await bash(path.join(HPC, 'study.sbatch'), [study, out], {
      NQI: `${process.execPath} ${CLI}`,
      SLURM_ARRAY_TASK_ID: '5',
      SLURM_ARRAY_TASK_MIN: '4',
      SLURM_ARRAY_TASK_MAX: '6',
      SLURM_ARRAY_TASK_COUNT: '3',
    });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /shard 2\/3: 3 runs \(0 new\)/);
  });

  it("indexed-job.yaml: the container's command with each JOB_COMPLETION_INDEX, NQI_SHARD_COUNT from the manifest", async () => {
    const job = YAML.parse(readFileSync(path.join(HPC, 'indexed-job.yaml'), 'utf8'));
    assert.equal(job.kind, 'Job');
    assert.equal(job.spec.completionMode, 'Indexed');
    const container = job.spec.template.spec.containers[0];
    const env = Object.fromEntries(container.env.map((e: { name: string; value: string }) => [e.name, e.value]));
    assert.equal(Number(env.NQI_SHARD_COUNT), job.spec.completions, 'NQI_SHARD_COUNT must equal completions');
    const out = path.join(dir, 'kubernetes');
    // The pod's paths, mounted here: the study's config map and the results volume.
    const mounts: Record<string, string> = { '/study/study.yaml': study, '/results/islands': out };
    const args = (container.args as string[]).map((a) => mounts[a] ?? a);
    assert.deepEqual(args.slice(-2), ['--shard', 'auto']);
    const indexes = Array.from({ length: job.spec.completions }, (_, i) => i);
    const pods = await inBatches(indexes, 4, (index) => cliAsync(args, { env: { ...env, JOB_COMPLETION_INDEX: String(index) } }));
    for (const pod of pods) assert.equal(pod.code, 0, pod.stderr);
    await assertComplete(out, job.spec.completions);
  });

  it('Dockerfile: the official Node 20 slim image, the CLI as its entry point', () => {
    const text = readFileSync(path.join(HPC, 'Dockerfile'), 'utf8');
    const from = [...text.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    assert.ok(from.length >= 1 && from.every((image) => image === 'node:20-slim'), from.join(', '));
    const bin = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).bin as Record<string, string>;
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(text);
    assert.ok(entry !== null);
    assert.deepEqual(JSON.parse(entry[1]), [Object.keys(bin)[0]]);
    // The Job's image runs the CLI with the container's args: the command the previous test ran.
    assert.match(readFileSync(path.join(HPC, 'indexed-job.yaml'), 'utf8'), /image: nqueens-islands:latest/);
  });
});
