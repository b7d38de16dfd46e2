/**
 * The recipes of docs/hpc.md as shipped in config/hpc/, each run as its scheduler runs it,
 * from a clean folder holding only what the recipe ships: the sbatch script with the variables
 * Slurm sets for each array task (extra flags, a task killed and requeued on another node, one
 * shard rerun, a Node too old), and the Indexed Job's container command (the image's entry
 * point and the Job's args) with each completion index, its study the bundle the ConfigMap
 * holds, one container killed and restarted as PID 1 on the same host. Then the study is
 * whole, its report names no missing shard. The Dockerfile and the claim are checked for what
 * the recipes rely on (no Docker daemon or cluster is needed).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { shardLockFile } from '../src/experiment/shard-folder.ts';
import { CLI, cliAsync, cliInProcess, inBatches, ROOT } from './cli-helpers.ts';
import { IDLE_ISLANDS } from './helpers.ts';
import { boxed, canUnshare, until } from './boxes.ts';

const HPC = path.join(ROOT, 'config', 'hpc');
const LEASE = { NQI_TEST_LOCK_LEASE_MS: '1000' };
const isRoot = canUnshare;
let dir: string;
let studyText: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'nqi-hpc-'));
  // Nine runs; with idle islands (IDLE_ISLANDS) each lasts about 2 s at next to no CPU.
  studyText =
    'base: { overrides: { islands: 2, ga: { populationSize: 40 }, limits: { maxIterations: 30 } } }\nsweep:\n  n: [30, 31, 32]\nrepeats: 3\nseed: 1\n';
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A new folder holding only `files` (name to source path or text). */
function cleanFolder(name: string, files: Record<string, { from: string } | { text: string }>): string {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  for (const [file, source] of Object.entries(files)) {
    if ('from' in source) copyFileSync(source.from, path.join(folder, file));
    else writeFileSync(path.join(folder, file), source.text);
  }
  return folder;
}

interface Task {
  done: Promise<{ code: number | null; stderr: string }>;
  kill(): void;
}

/** `command` in `cwd` with `env` on top of this process's, perhaps in new pid (and UTS) namespaces, as a node or container starts it. */
function launch(command: string[], cwd: string, env: NodeJS.ProcessEnv, box?: { host?: string }): Task {
  const argv = boxed(command, box);
  const child = spawn(argv[0], argv.slice(1), {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return {
    done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr }))),
    // The whole task, as Slurm or the kubelet kills it.
    kill: () => process.kill(-child.pid!, 'SIGKILL'),
  };
}

/** The study in `out` is complete: status says every shard is, report names no gap. */
async function assertComplete(out: string, shards: number): Promise<void> {
  const status = await cliInProcess(['experiment', out, '--status']);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, new RegExp(`\\(${shards} shards\\): 9 of 9 runs recorded`));
  assert.equal(status.stdout.match(/, complete$/gm)?.length, shards, status.stdout);
  const report = await cliInProcess(['report', out]);
  assert.equal(report.code, 0, report.stderr);
  assert.doesNotMatch(report.stderr, /missing|incomplete/);
  assert.match(report.stdout, /n=30/);
}

/** Slurm's variables for task `id` of `--array=min-max`. */
const slurm = (id: number, min: number, max: number) => ({
  SLURM_ARRAY_JOB_ID: '1234',
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_MIN: String(min),
  SLURM_ARRAY_TASK_MAX: String(max),
  SLURM_ARRAY_TASK_COUNT: String(max - min + 1),
});

describe('config/hpc/study.sbatch, as Slurm runs it', () => {
  const NQI = { NQI: `${process.execPath} ${CLI}`, ...LEASE };
  const sbatch = (folder: string, args: string[], env: NodeJS.ProcessEnv, box?: { host?: string }) =>
    launch(['bash', 'study.sbatch', 'study.yaml', 'results', ...args], folder, { ...NQI, ...env }, box);

  it('`sbatch --array=4-6 ... --events`: each task its shard, with the extra flag; a task requeued after the study is done runs nothing', async () => {
    const folder = cleanFolder('slurm', { 'study.sbatch': { from: path.join(HPC, 'study.sbatch') }, 'study.yaml': { text: studyText } });
    const tasks = [4, 5, 6].map((id) => sbatch(folder, ['--events'], slurm(id, 4, 6)).done);
    for (const task of await Promise.all(tasks)) assert.equal(task.code, 0, task.stderr);
    await assertComplete(path.join(folder, 'results'), 3);
    assert.equal(readdirSync(path.join(folder, 'results', 'events')).length, 9, 'one event log per run (--events)');
    const again = await sbatch(folder, ['--events'], slurm(5, 4, 6)).done;
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /shard 2\/3: 3 runs \(0 new\)/);
  });

  it(
    'a task killed mid-run (node failure) and requeued on another node continues its slice',
    { skip: !isRoot && 'needs root for unshare' },
    async () => {
      const folder = cleanFolder('slurm-requeue', {
        'study.sbatch': { from: path.join(HPC, 'study.sbatch') },
        'study.yaml': { text: studyText },
      });
      const out = path.join(folder, 'results');
      const first = sbatch(folder, [], { ...slurm(1, 1, 3), ...IDLE_ISLANDS }, { host: 'node041' });
      await until(
        () =>
          existsSync(path.join(out, 'runs.shard-1-of-3.jsonl')) && readFileSync(path.join(out, 'runs.shard-1-of-3.jsonl'), 'utf8') !== '',
        'a first record',
      );
      first.kill();
      await first.done;
      const status = await cliInProcess(['experiment', out, '--status']);
      assert.match(status.stdout, /shard 1\/3: [12] of 3 runs, (running|stopped) \(process 1 on node041/);
      const requeued = await sbatch(folder, [], slurm(1, 1, 3), { host: 'node042' }).done;
      assert.equal(requeued.code, 0, requeued.stderr);
      assert.equal(requeued.stderr.match(/took over the lock of process 1 on node041/g)?.length, 1, requeued.stderr);
      for (const id of [2, 3]) assert.equal((await sbatch(folder, [], slurm(id, 1, 3)).done).code, 0);
      await assertComplete(out, 3);
    },
  );

  it('one shard rerun: `--array=2` with NQI_SHARD_COUNT=3 runs shard 2 of 3; without the count it is refused', async () => {
    const folder = cleanFolder('slurm-rerun', {
      'study.sbatch': { from: path.join(HPC, 'study.sbatch') },
      'study.yaml': { text: studyText },
    });
    for (const id of [1, 3]) assert.equal((await sbatch(folder, [], slurm(id, 1, 3)).done).code, 0);
    const alone = await sbatch(folder, [], slurm(2, 2, 2)).done;
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /cut into 3 shards, not 1/);
    const rerun = await sbatch(folder, [], { ...slurm(2, 2, 2), NQI_SHARD_COUNT: '3' }).done;
    assert.equal(rerun.code, 0, rerun.stderr);
    await assertComplete(path.join(folder, 'results'), 3);
  });

  it('a Node older than 20.19 on PATH, or no command: one line, exit 2, before anything runs', async () => {
    const folder = cleanFolder('slurm-old-node', {
      'study.sbatch': { from: path.join(HPC, 'study.sbatch') },
      'study.yaml': { text: studyText },
    });
    const bin = path.join(folder, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'node'), '#!/bin/sh\n[ "$1" = --version ] && echo v18.20.0 && exit 0\nexit 1\n');
    chmodSync(path.join(bin, 'node'), 0o755);
    const old = await sbatch(folder, [], { ...slurm(1, 1, 1), PATH: `${bin}:${process.env.PATH}` }).done;
    assert.equal(old.code, 2);
    assert.match(old.stderr, /^study\.sbatch: node v18\.20\.0 is too old; nqueens-islands needs Node >= 20\.19/);
    const none = await sbatch(folder, [], { ...slurm(1, 1, 1), NQI: 'no-such-nqueens-islands' }).done;
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no-such-nqueens-islands not found; install it from the clone \(npm install -g \.\)/);
    assert.equal(existsSync(path.join(folder, 'results')), false);
  });

  it('installs from the clone or a tarball, never by name from the registry', () => {
    const text = readFileSync(path.join(HPC, 'study.sbatch'), 'utf8');
    assert.match(text, /npm install -g \.$/m);
    assert.match(text, /npm install -g \.\/nqueens-islands-\*\.tgz/);
    assert.doesNotMatch(text, /npm install -g nqueens-islands/);
  });
});

describe('config/hpc/indexed-job.yaml, as Kubernetes runs it', () => {
  const job = () => YAML.parse(readFileSync(path.join(HPC, 'indexed-job.yaml'), 'utf8'));
  const header = () => readFileSync(path.join(HPC, 'indexed-job.yaml'), 'utf8');

  it("each index's container command (entry point + args) from a folder holding only the ConfigMap's bundle; one container OOM-killed and restarted as PID 1", async () => {
    const spec = job();
    assert.equal(spec.kind, 'Job');
    assert.equal(spec.spec.completionMode, 'Indexed');
    const container = spec.spec.template.spec.containers[0];
    const env = Object.fromEntries(container.env.map((e: { name: string; value: string }) => [e.name, e.value]));
    assert.equal(Number(env.NQI_SHARD_COUNT), spec.spec.completions, 'NQI_SHARD_COUNT must equal completions');
    // The ConfigMap, as the header makes it: the study bundled into study.yaml (here a study with a base file beside it).
    assert.match(
      header(),
      /nqueens-islands experiment (\S+) --bundle study\.yaml\n#\s+kubectl create configmap nqi-study --from-file=study\.yaml/,
    );
    const source = cleanFolder('k8s-source', {
      'base.yaml': { text: 'islands: 2\nga: { populationSize: 40 }\nlimits: { maxIterations: 30 }\n' },
    });
    writeFileSync(path.join(source, 'study.yaml'), studyText.replace(/^base: .*$/m, 'base: base.yaml'));
    const made = await cliAsync(['experiment', path.join(source, 'study.yaml'), '--bundle', path.join(dir, 'configmap-study.yaml')]);
    assert.equal(made.code, 0, made.stderr);
    const configMap = cleanFolder('k8s-study', { 'study.yaml': { from: path.join(dir, 'configmap-study.yaml') } });
    const results = path.join(dir, 'k8s-results');
    mkdirSync(results);
    // The pod's paths, mounted here: the ConfigMap at /study, the claim at /results.
    const mount = (a: string) => a.replace(/^\/study\//, `${configMap}/`).replace(/^\/results\//, `${results}/`);
    const entry = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(path.join(HPC, 'Dockerfile'), 'utf8'))![1]) as string[];
    assert.deepEqual(entry, ['nqueens-islands']);
    const args = (container.args as string[]).map(mount);
    const out = args[args.indexOf('--out') + 1];
    const pod = (index: number, extra: NodeJS.ProcessEnv = {}, box?: object) =>
      launch([process.execPath, CLI, ...args], configMap, { ...env, ...LEASE, ...extra, JOB_COMPLETION_INDEX: String(index) }, box);
    if (isRoot) {
      const first = pod(0, IDLE_ISLANDS, {});
      await until(() => existsSync(path.join(out, shardLockFile({ index: 1, count: 8 }))), 'pod 0 to take its lock');
      first.kill();
      await first.done;
    }
    const indexes = Array.from({ length: spec.spec.completions }, (_, i) => i);
    const pods = await inBatches(indexes, 4, (index) => pod(index, {}, isRoot && index === 0 ? {} : undefined).done);
    for (const p of pods) assert.equal(p.code, 0, p.stderr);
    if (isRoot) assert.match(pods[0].stderr, new RegExp(`took over the lock of process 1 on ${hostname()} since `));
    await assertComplete(out, spec.spec.completions);
    assert.equal(readdirSync(path.join(out, 'events')).length, 9, "the Job's --events");
  });

  it('the image: built and pushed to your registry, tagged by commit, pulled IfNotPresent; the claim is ReadWriteMany', () => {
    const container = job().spec.template.spec.containers[0];
    assert.equal(container.image, '${IMAGE}');
    assert.equal(container.imagePullPolicy, 'IfNotPresent');
    assert.match(header(), /docker build -f config\/hpc\/Dockerfile -t "\$IMAGE" \. && docker push "\$IMAGE"/);
    assert.match(header(), /sed "s\|\\\$\{IMAGE\}\|\$IMAGE\|" config\/hpc\/indexed-job\.yaml \| kubectl apply -f -/);
    const claim = YAML.parse(readFileSync(path.join(HPC, 'results-pvc.yaml'), 'utf8'));
    assert.deepEqual(claim.spec.accessModes, ['ReadWriteMany']);
    const volume = job().spec.template.spec.volumes.find((v: { name: string }) => v.name === 'results');
    assert.equal(volume.persistentVolumeClaim.claimName, claim.metadata.name);
    assert.equal(job().spec.template.spec.securityContext.fsGroup, undefined, 'fsGroup does not apply to NFS: not promised');
  });

  it('Dockerfile: the official Node 20 slim image, the CLI as its entry point', () => {
    const text = readFileSync(path.join(HPC, 'Dockerfile'), 'utf8');
    const from = [...text.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    assert.ok(from.length >= 1 && from.every((image) => image === 'node:20-slim'), from.join(', '));
    const bin = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).bin as Record<string, string>;
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(text);
    assert.ok(entry !== null);
    assert.deepEqual(JSON.parse(entry[1]), [Object.keys(bin)[0]]);
  });
});
